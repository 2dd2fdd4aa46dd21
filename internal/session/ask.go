package session

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"
)

// Asker asks the user a question while the session runs: the question
// shows on the notification bar, and the answer is what the user types up
// to Enter, which then goes nowhere else. The relay's re-dial uses it for
// a password or passphrase when the agent and keys do not do.
type Asker interface {
	// Ask shows question and returns the answer; echo says whether the
	// answer may be shown as it is typed (not for secrets).
	Ask(ctx context.Context, question string, echo bool) (string, error)
}

// ErrAskCancelled is what Ask returns when the user gives up (Ctrl-C or
// Ctrl-D), or the session ends.
var ErrAskCancelled = errors.New("session: the question was not answered")

// maxAnswer bounds an answer's length.
const maxAnswer = 1024

// ask is one question waiting for the user.
type ask struct {
	question string
	echo     bool
	answer   chan askResult // buffered: the loop never blocks on it
	buf      []byte
}

type askResult struct {
	answer string
	err    error
}

// clientAsker is the client loop's Asker: questions go to the loop.
type clientAsker struct {
	asks chan<- *ask
	done <-chan struct{}
}

// Ask hands the question to the loop and waits for the answer.
func (a clientAsker) Ask(ctx context.Context, question string, echo bool) (string, error) {
	q := &ask{question: question, echo: echo, answer: make(chan askResult, 1)}
	select {
	case a.asks <- q:
	case <-ctx.Done():
		return "", ctx.Err()
	case <-a.done:
		return "", ErrAskCancelled
	}
	select {
	case r := <-q.answer:
		return r.answer, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-a.done:
		return "", ErrAskCancelled
	}
}

// startAsk shows a question on the bar; typed bytes go to it until it is
// answered.
func (c *client) startAsk(q *ask) {
	if c.asking != nil { // one at a time: the newer waits its turn
		c.pendingAsks = append(c.pendingAsks, q)
		return
	}
	c.asking = q
	c.showAsk()
}

// showAsk draws the question (and an echoed answer) on the bar.
func (c *client) showAsk() {
	text := strings.TrimSpace(c.asking.question) + " "
	if c.asking.echo {
		text += string(c.asking.buf)
	}
	c.notify.SetBare(text)
}

// answerTyped feeds typed bytes to the question being asked: printable
// text is the answer, Backspace edits it, Enter answers, Ctrl-C and
// Ctrl-D give up. It returns the bytes after the answer, which go to the
// session as usual.
func (c *client) answerTyped(b []byte) []byte {
	q := c.asking
	for i := 0; i < len(b); i++ {
		switch ch := b[i]; {
		case ch == '\r' || ch == '\n':
			c.finishAsk(askResult{answer: string(q.buf)})
			return b[i+1:]
		case ch == 0x03 || ch == 0x04:
			c.finishAsk(askResult{err: ErrAskCancelled})
			return b[i+1:]
		case ch == 0x7f || ch == 0x08:
			if len(q.buf) > 0 {
				_, n := utf8.DecodeLastRune(q.buf)
				q.buf = q.buf[:len(q.buf)-n]
			}
		case ch >= 0x20 && len(q.buf) < maxAnswer:
			q.buf = append(q.buf, ch)
		}
	}
	c.showAsk()
	return nil
}

// finishAsk answers the question asked and moves on to the next one.
func (c *client) finishAsk(r askResult) {
	c.asking.answer <- r
	clear(c.asking.buf)
	c.asking = nil
	c.notify.permanent = false
	c.notify.Clear()
	if len(c.pendingAsks) > 0 {
		next := c.pendingAsks[0]
		c.pendingAsks = c.pendingAsks[1:]
		c.startAsk(next)
	}
}

// cancelAsks gives up every question (the session is over).
func (c *client) cancelAsks() {
	for _, q := range append(c.pendingAsks, c.asking) {
		if q != nil {
			q.answer <- askResult{err: ErrAskCancelled}
		}
	}
	c.asking, c.pendingAsks = nil, nil
}

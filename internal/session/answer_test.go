package session_test

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
)

// splitAnswer is a program behind an in-memory terminal that prints the
// rig's prompt and echoes each key in one write, but for 'z', which it
// answers in two writes gap apart, as vim answers "po" and Escape read at
// once: the first clears the bottom row and leaves the cursor there, the
// second draws the key where it was typed, the cursor after it.
type splitAnswer struct {
	gap     time.Duration
	in      chan []byte
	out     chan []byte
	closed  chan struct{}
	exited  chan struct{}
	once    sync.Once
	pending []byte // only Read touches it
}

func newSplitAnswer(gap time.Duration) *splitAnswer {
	p := &splitAnswer{gap: gap, in: make(chan []byte), out: make(chan []byte),
		closed: make(chan struct{}), exited: make(chan struct{})}
	go p.run()
	return p
}

func (p *splitAnswer) run() {
	defer close(p.exited)
	col := len(prompt) + 1 // the cursor's column, from 1
	if !p.write(prompt) {
		return
	}
	for {
		var in []byte
		select {
		case in = <-p.in:
		case <-p.closed:
			return
		}
		for _, c := range in {
			if c != 'z' {
				if !p.write(string(c)) {
					return
				}
				col++
				continue
			}
			if !p.write("\x1b[24;1H\x1b[K") {
				return
			}
			time.Sleep(p.gap)
			if !p.write(fmt.Sprintf("\x1b[1;%dHz", col)) {
				return
			}
			col++
		}
	}
}

func (p *splitAnswer) write(s string) bool {
	select {
	case p.out <- []byte(s):
		return true
	case <-p.closed:
		return false
	}
}

func (p *splitAnswer) Read(b []byte) (int, error) {
	if len(p.pending) == 0 {
		select {
		case p.pending = <-p.out:
		case <-p.closed:
			return 0, io.EOF
		}
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}

func (p *splitAnswer) Write(b []byte) (int, error) {
	select {
	case p.in <- append([]byte(nil), b...):
		return len(b), nil
	case <-p.closed:
		return 0, io.ErrClosedPipe
	}
}

func (p *splitAnswer) Resize(cols, rows int) error { return nil }

func (p *splitAnswer) Close() error {
	p.once.Do(func() { close(p.closed) })
	<-p.exited
	return nil
}

// answerDelay is a one-way delay long enough for the server to hold
// answers (a frame interval above SendIntervalMin).
const answerDelay = 50 * time.Millisecond

// TestAnswerInTwoWrites: over a 100 ms round trip, a program answers a
// key in two writes 100 µs apart, the first leaving the screen
// half-drawn. The frame that carries the key's echo ack carries both, so
// the client never judges the key's shown prediction against the
// half-drawn screen (it did: one wrong prediction, and the engine forgot
// what it had learned). (Over the rig's 20 ms round trip nothing is held:
// TestPacingEcho.)
func TestAnswerInTwoWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.delay = answerDelay
		r.startServer(session.ServerConfig{PTY: newSplitAnswer(100 * time.Microsecond)})
		eng := predict.NewEngine(predict.Always, false)
		r.startClient(session.ClientConfig{Predict: eng})
		r.waitScreen(ready, 2*time.Second)
		r.term.Type("a") // its echo confirms the prediction epoch
		r.waitScreen(prompt+"a", time.Second)
		time.Sleep(time.Second)

		for i, key := range []string{"z", "b", "z"} {
			typed := time.Now()
			r.term.Type(key)
			synctest.Wait()
			want := prompt + "a" + "zbz"[:i+1]
			if !r.term.Contains(want) {
				t.Fatalf("%q not shown at once by prediction; screen %q, stats %+v", key, r.term.Screen()[0], eng.Stats())
			}
			time.Sleep(time.Until(typed.Add(time.Second)))
			synctest.Wait()
			if s := eng.Stats(); s.Wrong != 0 {
				t.Fatalf("after %q, %d shown predictions judged wrong, want none (stats %+v)", key, s.Wrong, s)
			}
			if x, y, _ := r.term.Cursor(); !r.term.Contains(want) || y != 0 || x != len(want) {
				t.Fatalf("after %q, screen %q cursor (%d,%d), want %q and the cursor after it", key, r.term.Screen()[0], x, y, want)
			}
		}
	})
}

// TestAnswerHeldAtMost: a program that answers Enter with a line every
// millisecond is never quiet; its answer still reaches the screen one
// round trip (100 ms) and answerMax (Mosh's collection delay) after the
// key, and at least answerMax after it: it was held.
func TestAnswerHeldAtMost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.delay = answerDelay
		r.start()
		r.term.Type("yes")
		r.waitScreen(prompt+"yes", time.Second)
		time.Sleep(time.Second)
		typed := time.Now()
		r.term.Type("\r")
		for !r.term.Contains("y1") {
			if time.Since(typed) > time.Second {
				t.Fatal("yes's first line not shown within 1 s")
			}
			time.Sleep(100 * time.Microsecond)
		}
		if d, least := time.Since(typed), 2*answerDelay+session.AnswerMax; d < least || d > least+time.Millisecond {
			t.Errorf("the first line shown %v after Enter, want within [%v, %v]", d, least, least+time.Millisecond)
		}
		r.term.Type("\x03")
		r.waitScreen("^C", 2*time.Second)
	})
}

package session

import (
	"fmt"

	"github.com/gosh-term/gosh/internal/vt"
)

// Native scrollback (docs/protocol.md section 12.3): a gosh server records
// the lines that scroll off its primary screen and sends them in its state
// to a gosh client that advertised capScrollback, which moves them into
// the user's terminal's own scrollback.

// capScrollback is the gosh_caps bit of a peer that takes scrollback
// lines: a client that pushes them into its terminal's scrollback (and
// so keeps the terminal's primary screen), or a server that sends them.
const capScrollback = 1 << 33

// DefaultScrollback is how many lines a server keeps for its client's
// scrollback unless told otherwise (gosh server new --scrollback).
const DefaultScrollback = 10000

// scrollInFlight and scrollLinesInFlight bound the scrollback a server
// keeps in its state beyond what the client acknowledged: the rest waits
// in the history, so one flood cannot make every frame huge and stall the
// screen, and a client that is away gets the newest lines when it is back.
const (
	scrollInFlight      = 32 << 10
	scrollLinesInFlight = 1000
)

// pushScrollback moves lines from the history into the state for a client
// that takes them, as long as what is in flight stays under the bounds
// above. It runs on every loop iteration (acks make room) and after every
// line the history records, so that a flood read in one piece cannot
// push lines out of a small history before they had their chance. Lines the history dropped before they could go are
// skipped; the client sees the gap in the line numbers.
func (s *server) pushScrollback() {
	h := s.term.History()
	if h == nil || s.tr.PeerCaps()&capScrollback == 0 {
		return
	}
	s.histPos = max(s.histPos, h.First())
	for s.histPos < h.Total() && s.term.ScrollBytes() < scrollInFlight && s.term.ScrollHeld() < scrollLinesInFlight {
		l, _ := h.Line(s.histPos)
		s.term.PushScroll(l)
		s.histPos++
	}
}

// scrollLines returns the lines of the server's state the client has not
// put into the terminal's scrollback yet, with a marker line for each gap
// in their numbers, and trims them from the state.
func (c *client) scrollLines(remote *vt.Complete) []vt.ScrollLine {
	if c.scrollPos >= remote.ScrollTotal() {
		return nil
	}
	var out []vt.ScrollLine
	for _, l := range remote.ScrollSince(c.scrollPos) {
		if l.Line > c.histNext {
			marker := fmt.Appendf(nil, "[gosh: %d lines skipped]", l.Line-c.histNext)
			out = append(out, vt.ScrollLine{Line: c.histNext, Text: marker, Width: len(marker)})
		}
		if l.Line >= c.histNext {
			c.histNext = l.Line + 1
			if c.alreadyHas(l) {
				continue
			}
			out = append(out, l)
		}
	}
	c.remember(out)
	c.scrollPos = remote.ScrollTotal()
	remote.TrimScroll(c.scrollPos)
	if len(out) > 0 && c.cfg.ScrollPushed != nil {
		c.cfg.ScrollPushed(c.histNext)
	}
	return out
}

// startScrollback switches the client to native scrollback once the server
// is known to send it: the session moves from the terminal's alternate
// screen to its primary one, where the terminal keeps scrollback, and
// frames stop adding lines of their own to it.
func (c *client) startScrollback() {
	if c.scrollSync || c.tr.PeerCaps()&capScrollback == 0 {
		return
	}
	c.scrollSync = true
	if !c.cfg.NoInit {
		c.write([]byte(c.tinfo.ExitCA))
	}
	caps := c.display.Caps()
	caps.KeepHistory = true
	c.display = vt.NewDisplay(caps)
	c.shown, c.repaint = nil, true
}

// recentLines is how many of the newest lines pushed into the terminal's
// scrollback the client remembers, for a terminal that takes some back
// when it grows: a screenful of the largest screen.
const recentLines = vt.MaxRows

// termResized accounts for what terminals (xterm, VTE, tmux, kitty) do
// with their scrollback when their height changes, keeping the text at
// the bottom: shrinking, they delete rows below the cursor and then push
// rows from the top into the scrollback; growing, they pull rows back
// from the scrollback onto the top of the screen. The client then
// repaints the screen from the server's state, which keeps its rows at
// the top (as Mosh's does): so the rows a shrink pushed are skipped when
// the server sends them later, and the rows a growth pulled, which the
// repaint erases, are pushed again.
func (c *client) termResized(oldRows, newRows int) {
	if !c.scrollSync || c.shown == nil || c.shown.Height() != oldRows {
		return
	}
	switch _, y := c.shown.Cursor(); {
	case newRows < oldRows:
		for r := range max(0, y-newRows+1) {
			row := c.shown.Row(r)
			c.termHas = append(c.termHas, row.Text())
			c.remember([]vt.ScrollLine{vt.LineOf(row, 0)})
		}
	case newRows > oldRows:
		p := min(newRows-oldRows, len(c.recent))
		c.repush = append(c.repush, c.recent[len(c.recent)-p:]...)
		c.recent = c.recent[:len(c.recent)-p]
	}
}

// alreadyHas reports whether l is the next line the terminal put into its
// scrollback itself; a line that is not ends the skipping.
func (c *client) alreadyHas(l vt.ScrollLine) bool {
	if len(c.termHas) == 0 {
		return false
	}
	if l.Row(max(l.Width, 1)).Text() == c.termHas[0] {
		c.termHas = c.termHas[1:]
		return true
	}
	c.termHas = nil
	return false
}

// remember notes lines that went into the terminal's scrollback.
func (c *client) remember(lines []vt.ScrollLine) {
	c.recent = append(c.recent, lines...)
	if n := len(c.recent) - recentLines; n > 0 {
		c.recent = append(c.recent[:0], c.recent[n:]...)
	}
}

// takeRepush returns the lines to put back into the terminal's
// scrollback, oldest first, and forgets them (they go to recent again).
func (c *client) takeRepush() []vt.ScrollLine {
	lines := c.repush
	c.repush = nil
	c.remember(lines)
	return lines
}

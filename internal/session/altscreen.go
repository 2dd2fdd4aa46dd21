package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// Full-screen programs (docs/protocol.md section 12.3). A client keeping
// the session's scrollback paints on its terminal's primary screen, where
// a resize moves rows between the screen and the scrollback; a
// full-screen program's rows must not end up there, and do not with ssh,
// because the program draws on the terminal's alternate screen, which
// keeps no scrollback. So the server tells a gosh client which screen it
// shows (vt.CapAltScreen), and the client switches its terminal with it:
// c.primary keeps what it knew of the primary screen behind, and on the
// way back the terminal's answer says what the resizes meanwhile did to
// it.
//
// The client also shows the server's screen on the alternate screen while
// the server is behind (vt.Complete.ScrollBehind): lines wait in its
// history, and its screen shows newer rows, which a shrink of the primary
// screen would push into the scrollback ahead of them.

// homePrimary keeps what the client knows of the primary screen as it
// switches to the alternate one, having moved the cursor home: a terminal
// shrinking its primary screen keeps the cursor's row, so with the cursor
// on the top row it deletes rows at the bottom and pushes none into the
// scrollback, whatever the program on the alternate screen does.
func (c *client) homePrimary() {
	if c.shown != nil {
		shown := c.shown.Clone()
		shown.SetCursor(0, 0)
		c.shown = shown
	}
	c.primary = c.snapshot()
}

// termAlt reports whether the terminal shows its alternate screen, as far
// as the client knows.
func (c *client) termAlt() bool { return c.shown != nil && c.shown.Modes().AltScreen }

// leaveAlt switches the terminal back to its primary screen before the
// client paints there: when the server's screen left its alternate one,
// or when lines came for the scrollback, which only the primary screen
// keeps (the alternate screen comes back with the next paint). It asks
// where the cursor is then, as a paint's query does: resizes while the
// alternate screen showed may have moved rows of the primary one, and
// terminals move them, at the latest when they switch back, as for a
// resize of the primary screen. It reports whether it wrote: the paint
// then waits for the answer.
func (c *client) leaveAlt(now time.Time, frame *vt.Framebuffer) bool {
	if !c.scrollSync || !c.termAlt() {
		return false
	}
	if frame.Modes().AltScreen && len(c.queue) == 0 && c.tr.Remote().ScrollTotal() <= c.scrollPos {
		return false
	}
	b := []byte("\x1b[?1049l")
	primary := c.primary
	c.primary = termSnap{}
	f := &c.fenced
	switch {
	case primary.shown == nil:
		c.shown, c.repaint = nil, true // unknown (a first paint went to the alternate screen)
	case f.mute:
		c.restore(primary) // altResized followed its resizes
	default:
		c.restore(primary)
		b = append(b, cprQuery...)
		f.pending, f.painted, f.first, f.deadline = true, false, nil, now.Add(cprWait)
		f.before = c.snapshot()
	}
	c.write(b)
	return true
}

// leaveAltForGood appends to b what takes the terminal back to its
// primary screen as the session ends or stops, with the cursor on the
// last row that shows anything (the cursor 1049 restores is home): what
// is written next goes below it.
func (c *client) leaveAltForGood(b []byte) []byte {
	b = append(b, "\x1b[?1049l"...)
	y := vt.MaxRows // unknown: the bottom row
	if p := c.primary.shown; p != nil {
		y = 0
		for r := range p.Height() {
			if strings.TrimSpace(p.Row(r).Text()) != "" {
				y = r
			}
		}
	}
	return fmt.Appendf(b, "\x1b[%d;1H", y+1)
}

// altResized follows, for a terminal that does not answer queries, what a
// resize to cols×rows while its alternate screen shows did to the primary
// screen behind it. Its cursor being home (homePrimary), a shrink deletes
// rows at the bottom and pushes none into the scrollback; a growth is
// taken to add rows at the bottom, as the server's screen does: that is
// vt.Framebuffer.Resize.
func (c *client) altResized(cols, rows int) {
	if p := c.primary.shown; p != nil {
		shown := p.Clone()
		shown.Resize(cols, rows)
		c.primary.shown = shown
	}
	c.repaint = true
}

package session

import (
	"time"
)

// The client's side of its view of the user's terminal (internal/termview):
// the view works out what to write; the client writes it, reads the
// terminal's size and answers, and sends a new size to the server.

// resized takes a new window size from the terminal (termview.View.Resized), and
// sends it to the server if it is a new size to paint.
func (c *client) resized(now time.Time) {
	cols, rows := c.term.Size()
	if c.view.Resized(now, cols, rows) {
		c.sized()
	}
}

// sized sends the view's new size to the server; predictions made for
// the old one go.
func (c *client) sized() {
	if !c.tr.ShutdownInProgress() {
		c.tr.Current().PushResize(c.view.Size())
	}
	c.predict.Reset()
}

// fenceWait reports whether painting waits for the terminal's answer. A
// wait that took too long ends it, and the asking.
func (c *client) fenceWait(now time.Time) bool {
	wait, typed := c.view.FenceWait(now)
	if len(typed) > 0 {
		c.typed(now, typed)
	}
	return wait
}

// takeReports takes the terminal's answers out of typed bytes while one
// is awaited, and accounts for what they show: a size the terminal
// answered is sent to the server.
func (c *client) takeReports(now time.Time, b []byte) []byte {
	cols, rows := c.view.Size()
	keys := c.view.TakeReports(now, b)
	if w, h := c.view.Size(); w != cols || h != rows {
		c.sized()
	}
	return keys
}

// startScrollback switches the client to native scrollback once the server
// is known to send it: the session moves from the terminal's alternate
// screen to its primary one, where the terminal keeps scrollback, and
// frames stop adding lines of their own to it.
func (c *client) startScrollback() {
	if c.view.KeepsScrollback() || c.tr.PeerCaps()&capScrollback == 0 {
		return
	}
	c.view.StartScrollback()
	if !c.cfg.NoInit {
		c.write([]byte(c.tinfo.ExitCA))
	}
}

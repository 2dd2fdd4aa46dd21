package vt_test

import (
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
)

// TestDisplayTopRowKept: a frame whose top row the receiver shows already
// is no scroll, as in Mosh, even where a lower row of the receiver's is
// the same row too: only the rows that changed are drawn. Such screens
// are made by WithRowsBelow, with which a client draws a large frame in
// bands: a band (the frame's top rows above what the terminal showed
// below) holds the frame's top row twice when it had scrolled up from
// the bottom. Before, the differ scrolled the lower one to the top and
// drew every row again, and a client drawing vim's screen on a terminal
// with one screen drew its first band again and again.
func TestDisplayTopRowKept(t *testing.T) {
	e := vt.NewEmulator(20, 5)
	e.Feed([]byte("a\r\nb\r\nc\r\nd\r\n"), nil)
	shell := e.Framebuffer().Clone() // a b c d and a blank row
	e.Feed([]byte("\n\n\n\n\x1b[2;1HONE\r\nTWO\r\nTHREE\r\nFOUR"), nil)
	full := e.Framebuffer().Clone() // the blank row on top
	first := full.WithRowsBelow(1, shell)
	second := full.WithRowsBelow(2, first)
	for _, p := range append(profiles, struct {
		name string
		caps vt.DisplayCaps
	}{"keep history", func() vt.DisplayCaps { c := vt.XtermDisplayCaps(); c.KeepHistory = true; return c }()}) {
		t.Run(p.name, func(t *testing.T) {
			checkFrames(t, p.caps, first, second)
			out := string(vt.NewDisplay(p.caps).NewFrame(nil, true, first, second))
			if !strings.Contains(out, "ONE") || strings.Contains(out, "d") {
				t.Errorf("NewFrame(first, second) = %q, want only the second row drawn", out)
			}
		})
	}
}

package session

import (
	"fmt"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// view is what the client knows of what the user's terminal shows, and
// what it still has to put there: the screen it painted last, the lines
// waiting to go into the terminal's scrollback, the terminal's answers to
// its queries (resize.go) and which of its screens shows (altscreen.go).
// The client loop owns it, as it owns the transport; paint draws the
// overlays on a frame and hands it to the view.
type view struct {
	termSnap
	display *vt.Display
	repaint bool   // the next paint draws every row
	out     []byte // the write a paint builds
	scratch []byte // a paint not written (resize.go)
	cols    int    // the size the client paints and sends
	rows    int

	scrollSync bool       // the server sends scrollback lines (scrollback.go)
	scrollPos  uint64     // the server state's scrollback lines taken
	histNext   uint64     // the number of the next history line expected
	pushedPos  uint64     // the last pushedTo
	fenced     paintFence // the terminal's answers (resize.go)
	primary    termSnap   // the terminal's primary screen while its alternate one shows (altscreen.go)
	dragUntil  time.Time  // paints park the cursor until then: the window is being resized (resize.go)
	parked     bool       // this paint parks it
	sizeCols   int        // the window size the terminal said last (Size)
	sizeRows   int

	scrollPushed func(next uint64) // ClientConfig.ScrollPushed
	logf         logf.Func
}

// frame returns a copy of the server's screen in remote, marked for the
// screen of the terminal it is to show on, for the client to draw its
// overlays on before paint. It also decides whether this paint parks the
// cursor.
func (v *view) frame(now time.Time, remote *statesync.Complete, final bool) *vt.Framebuffer {
	v.parked = v.scrollSync && !final && !v.fenced.mute && now.Before(v.dragUntil)
	frame := remote.Framebuffer().Clone()
	if v.scrollSync && remote.ScrollBehind() && !final {
		frame.MarkAltScreen() // newer than the lines still to come (altscreen.go)
	}
	if v.fenced.single {
		frame.MarkPrimaryScreen() // the terminal has one screen (altscreen.go)
	}
	return frame
}

// paint returns what to write to the terminal to show frame (the server's
// state remote, with the client's overlays) and to move remote's new
// scrollback lines into the terminal's scrollback; final is the last
// paint, which asks nothing. The view takes the write as done. It is long
// because it is where a paint's steps are put in order (the terminal's
// screens and answers, the scrollback lines, the frame in bands); each
// step is a function of its own.
func (v *view) paint(now time.Time, frame *vt.Framebuffer, remote *statesync.Complete, final bool) []byte {
	if !final {
		if b := v.leaveAlt(now, frame, remote); b != nil {
			return b
		}
		if b := v.probeAlt(now, frame); b != nil {
			return b
		}
		ask, idle := v.askFirst(now, frame, remote)
		if ask != nil {
			return ask
		}
		if idle != nil {
			v.shown = idle // nothing to write
			return nil
		}
	}
	v.out = v.out[:0]
	var before termSnap
	fed, feeds, drawn := 0, 0, false
	if v.scrollSync {
		v.queue = append(v.queue, v.scrollLines(remote)...)
		v.trimRecent()
		before = v.snapshot()
		if v.repaint {
			v.untrusted = false // the write draws every row
		}
		fed, feeds, drawn = v.pushQueue(final)
		if drawn && v.parked {
			v.out = append(v.out, parkCursor...)
			v.shown.SetCursor(0, 0)
			v.shown.SetCursorVisible(false)
		}
		if !drawn {
			v.fitFrame(frame)
			v.enterAlt(frame)
		}
	}
	var part *vt.Framebuffer // a band of frame, if that is all the write holds
	if !drawn {
		initialized := !v.repaint && v.shown != nil
		n := len(v.out)
		v.out = v.display.NewFrame(v.out, initialized, v.shown, frame)
		if v.scrollSync && !final && !v.fenced.mute && len(v.out) > writeRoom {
			v.out, part = v.band(v.out[:n], initialized, frame)
		}
	}
	if len(v.out) > 0 {
		if drew := len(v.out) > feeds; !final && v.scrollSync && !v.fenced.mute {
			if drew {
				// Where the cursor is after the write, whatever rows it
				// landed on: the display may have left it unmoved.
				x, y := frame.Cursor()
				if drawn {
					x, y = v.shown.Cursor()
				}
				v.out = fmt.Appendf(v.out, "\x1b[%d;%dH", y+1, x+1)
			}
			v.fence(now, before, fed, feeds)
		}
		v.fenced.valid = false
	}
	switch {
	case part != nil:
		v.shown, v.repaint = part, false // the rest in the next writes
	case !drawn:
		v.shown, v.repaint = frame, false
	}
	return v.out
}

// resized takes a new window size the terminal's kernel gave. The client
// keeping the terminal's scrollback asks the terminal, before the next
// paint, what it did with its rows (resize.go); the size the terminal
// answers then is taken too (the kernel's may lag), so only a change of
// the kernel's counts. It reports whether the size to paint changed.
func (v *view) resized(now time.Time, cols, rows int) bool {
	if cols == v.sizeCols && rows == v.sizeRows {
		return false
	}
	v.sizeCols, v.sizeRows = cols, rows
	v.dragUntil = now.Add(dragPark)
	if v.scrollSync && v.fenced.mute {
		if v.termAlt() {
			v.altResized(cols, rows)
		} else {
			v.termResized(cols, rows)
		}
	}
	v.fenced.valid = false
	return v.setSize(cols, rows)
}

// setSize makes cols×rows the size the view paints; it reports whether
// that is a change (the client sends it to the server).
func (v *view) setSize(cols, rows int) bool {
	if cols == v.cols && rows == v.rows {
		return false
	}
	v.cols, v.rows = cols, rows
	v.repaint = true
	return true
}

// deadline is when the view needs a paint next, if ever (zero), and
// whether paints wait for the terminal's answer until then (hold): what
// only a paint acts on then waits with them.
func (v *view) deadline(now time.Time) (t time.Time, hold bool) {
	if v.fenced.pending {
		return v.fenced.deadline, true
	}
	if v.scrollSync && now.Before(v.dragUntil) {
		return v.dragUntil, false // the cursor goes back
	}
	return time.Time{}, false
}

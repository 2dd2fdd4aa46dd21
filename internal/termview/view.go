// Package termview is the client's view of the user's terminal: what its
// screen shows, the lines still to go into its scrollback, which of its
// screens shows, and its answers to the queries that say what a resize
// did to its rows (docs/protocol.md section 12.3). It is a pure core: it
// takes the server's states, the terminal's answers and sizes, and the
// time, and returns the bytes to write and when it needs a paint next; it
// does no I/O and reads no clock. The client loop (internal/session) owns
// a View the way it owns its transport.
package termview

import (
	"fmt"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// View is what the client knows of what the user's terminal shows, and
// what it still has to put there: the screen it painted last, the lines
// waiting to go into the terminal's scrollback (scrollback.go), the
// terminal's answers to its queries (resize.go, cpr.go) and which of its
// screens shows (altscreen.go). The client draws its overlays on Frame's
// frame and writes what Paint returns for it.
type View struct {
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
	sizeCols   int        // the window size the terminal said last (Resized)
	sizeRows   int

	scrollPushed func(next uint64) // Config.ScrollPushed
	logf         logf.Func
}

// Config is a new View's terminal.
type Config struct {
	// Caps are the terminal's (vt.XtermDisplayCaps and terminfo's).
	Caps vt.DisplayCaps
	// Cols and Rows are its window size at the start.
	Cols, Rows int
	// HistNext is the first history line the terminal's scrollback
	// lacks (a resumed session's).
	HistNext uint64
	// ScrollPushed, if not nil, is told after lines went into the
	// terminal's scrollback: the first history line it now lacks. It is
	// told once the bytes that push them are returned by Paint.
	ScrollPushed func(next uint64)
	// Logf receives diagnostics; nil discards them.
	Logf logf.Func
}

// New returns the view of a terminal whose screen is not known yet: the
// first paint draws every row.
func New(cfg Config) *View {
	return &View{
		display: vt.NewDisplay(cfg.Caps), repaint: true,
		cols: cfg.Cols, rows: cfg.Rows, sizeCols: cfg.Cols, sizeRows: cfg.Rows,
		histNext: cfg.HistNext, scrollPushed: cfg.ScrollPushed, logf: cfg.Logf,
	}
}

// Size is the size the view paints, which the client sends to the server.
func (v *View) Size() (cols, rows int) { return v.cols, v.rows }

// KeepsScrollback reports whether the server sends scrollback lines, which
// the view moves into the terminal's scrollback (StartScrollback).
func (v *View) KeepsScrollback() bool { return v.scrollSync }

// Reset forgets what the terminal shows (the client took it back after a
// suspension, or switched its screen): the next paint draws every row.
func (v *View) Reset() { v.shown, v.repaint = nil, true }

// Repaint makes the next paint draw every row (Ctrl-L, or a resize).
func (v *View) Repaint() { v.repaint = true }

// End appends to b what takes the terminal back to its primary screen if
// the view left it on the alternate one, as the session ends or stops.
func (v *View) End(b []byte) []byte {
	if v.scrollSync && v.termAlt() {
		b = v.leaveAltForGood(b)
	}
	return b
}

// Frame returns a copy of the server's screen in remote, marked for the
// screen of the terminal it is to show on, for the client to draw its
// overlays on before paint. It also decides whether this paint parks the
// cursor.
func (v *View) Frame(now time.Time, remote *statesync.Complete, final bool) *vt.Framebuffer {
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

// Paint returns what to write to the terminal to show frame (the server's
// state remote, with the client's overlays) and to move remote's new
// scrollback lines into the terminal's scrollback; final is the last
// paint, which asks nothing. The view takes the write as done. It is long
// because it is where a paint's steps are put in order (the terminal's
// screens and answers, the scrollback lines, the frame in bands); each
// step is a function of its own.
func (v *View) Paint(now time.Time, frame *vt.Framebuffer, remote *statesync.Complete, final bool) []byte {
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

// Resized takes a new window size the terminal's kernel gave. The client
// keeping the terminal's scrollback asks the terminal, before the next
// paint, what it did with its rows (resize.go); the size the terminal
// answers then is taken too (the kernel's may lag), so only a change of
// the kernel's counts. It reports whether the size to paint changed.
func (v *View) Resized(now time.Time, cols, rows int) bool {
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
func (v *View) setSize(cols, rows int) bool {
	if cols == v.cols && rows == v.rows {
		return false
	}
	v.cols, v.rows = cols, rows
	v.repaint = true
	return true
}

// Deadline is when the view needs a paint next, if ever (zero), and
// whether paints wait for the terminal's answer until then (hold): what
// only a paint acts on then waits with them.
func (v *View) Deadline(now time.Time) (t time.Time, hold bool) {
	if v.fenced.pending {
		return v.fenced.deadline, true
	}
	if v.scrollSync && now.Before(v.dragUntil) {
		return v.dragUntil, false // the cursor goes back
	}
	return time.Time{}, false
}

// pushQueue appends to v.out the bytes that move the queue's lines into
// the terminal's scrollback, and returns how many it pushed with line
// feeds before it drew anything, and where in v.out those end. While the
// terminal answers queries, a write pushes only lines an earlier write
// drew on its top rows (or that showed there already):
// should the terminal have resized just before, its line feeds push its
// top rows as they are then, which the answer lets the client know, while
// lines drawn and pushed in one write would be pushed twice. So when lines
// have to be drawn, the write ends with them (drawn), and the frame waits
// for the next.
func (v *View) pushQueue(final bool) (fed, feeds int, drawn bool) {
	asking := !final && !v.fenced.mute
	feeds = len(v.out)
	for len(v.queue) > 0 {
		if v.onTop == 0 {
			shown := v.shown
			if v.repaint {
				shown = nil
			}
			n := len(v.out)
			v.out, v.shown, v.onTop = v.drawLines(shown, asking)
			v.repaint = false
			if len(v.out) > n && asking {
				return fed, feeds, true
			}
		}
		if v.shown.Width() != v.cols || v.shown.Height() != v.rows {
			v.onTop, v.repaint = 0, true // drawn again at the size it is now
			continue
		}
		v.out, v.shown = v.display.FeedLines(v.out, v.shown, v.onTop)
		v.remember(v.queue[:v.onTop])
		if v.onTop > 0 {
			v.pushedTo(v.queue[v.onTop-1].Line + 1) // written below, before the loop waits
		}
		fed += v.onTop
		v.queue, v.onTop = v.queue[v.onTop:], 0
		feeds = len(v.out)
	}
	return fed, feeds, false
}

package termview

import (
	"time"

	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// cprWait is how long a client waits for the terminal's cursor position
// report before it stops asking and falls back to the terminals' rule. A
// local terminal answers within a millisecond; one behind a slow ssh link
// within a round trip.
const cprWait = 500 * time.Millisecond

// paintFence follows the resizes of a terminal whose scrollback the client
// keeps (section 12.3 of docs/protocol.md). A terminal moves rows between
// its screen and its scrollback when its height changes, and a window
// dragged with the mouse changes it many times in a row, faster than the
// client hears of it: SIGWINCH does not queue. Whatever the client writes
// meanwhile lands on rows that have moved. What is sure is the result: the
// screen and the scrollback stay one sequence of rows and the cursor stays
// on its text, so the number of rows the cursor's row moved down is the
// number of lines that left the scrollback for the screen (up: rows that
// went into it).
//
// So every write starts with a query (cprQuery: where the cursor is, and
// the screen's size), and the client writes nothing more until the answer
// is in; before a paint it also asks alone, so that the paint is made for
// the terminal as it is. An answer that does not match what the client
// knew shows what the terminal did before it read the query, which the
// client accounts for (termMoved). For a query that started a write, the
// write's line feeds then pushed whatever the terminal's top rows showed
// by then, which the client knows too. What cannot be undone is a line
// pushed twice, so a write never pushes rows it drew itself: lines are
// drawn on the top rows in one write and pushed with line feeds at the
// start of the next, once an answer said where they are.
//
// A terminal that does not answer in time is not asked again; its resizes
// are accounted for by the terminals' rule (termResized).
type paintFence struct {
	cpr      cprFilter
	pending  bool        // a query is unanswered
	reps     []cprReport // its reports so far: the cursor, the size, then probeAlt's cursor
	painted  bool        // the query started a write
	valid    bool        // answered, and nothing written since
	unsure   bool        // the client does not know where the cursor is (a first paint): the next answer says
	mute     bool        // the terminal did not answer once: the rule decides
	deadline time.Time
	before   termSnap        // what the client knew of the terminal when it asked
	fed      int             // lines the write pushed with line feeds, before it drew anything
	drew     bool            // the write drew after them
	drawing  []byte          // what it wrote after them
	leaving  *vt.Framebuffer // the query follows a switch back from this alternate screen (leaveAlt)
	probing  bool            // probeAlt's query: a third report follows
	probed   bool            // probeAlt asked
	single   bool            // the terminal ignores mode 1049 (altscreen.go)
}

// termSnap is what the client knows of its terminal at one moment: what
// its screen shows (shown), the lines still to go into its scrollback
// (queue, the first onTop of them on its top rows), the newest lines of
// its scrollback the client remembers (recent) and the lines the terminal
// pushed itself that the server will send (termHas). A snapshot is a copy
// of it: the slices in it are resliced or appended to, never changed
// within their length, except recent, which trimRecent shifts in place
// before a write, so of recent restore takes only the snapshot's length.
type termSnap struct {
	shown     *vt.Framebuffer // what the user's terminal shows; nil = unknown
	untrusted bool            // shown's rows may not be the terminal's (resize.go)
	queue     []vt.ScrollLine // lines to put into the terminal's scrollback, oldest first
	onTop     int             // how many of them its top rows show
	recent    []vt.ScrollLine // the newest lines in the terminal's scrollback, oldest first
	termHas   []string        // lines the terminal put into its scrollback itself (a resize), to skip
}

// snapshot returns what the view knows of its terminal now.
func (v *View) snapshot() termSnap { return v.termSnap }

// restore goes back to what the view knew at s, before a write that
// turned out to land on moved rows.
func (v *View) restore(s termSnap) {
	recent := v.recent[:min(len(s.recent), len(v.recent))]
	v.termSnap = s
	v.recent = recent
}

// askFirst asks the terminal where its cursor is, if the client keeps the
// terminal's scrollback and is about to paint frame of the server's state
// remote without having asked since the last write. It returns the query
// to write if it asked: the paint then waits for the answer. If it found
// that painting frame would write nothing, it returns the frame as
// painted (idle), so that the paint is not worked out twice.
func (v *View) askFirst(now time.Time, frame *vt.Framebuffer, remote *statesync.Complete) (ask []byte, idle *vt.Framebuffer) {
	f := &v.fenced
	if !v.scrollSync || f.mute || f.valid || v.shown == nil {
		return nil, nil
	}
	if paint, fit := v.wouldPaint(frame, remote); !paint {
		return nil, fit
	}
	f.pending, f.painted, f.reps, f.deadline = true, false, f.reps[:0], now.Add(cprWait)
	f.before = v.snapshot()
	return []byte(cprQuery), nil
}

// fence prefixes the write in v.out with a query, for a client that keeps
// the scrollback of a terminal that answers: before is what the client
// knew of the terminal before the write, which pushed fed lines with line
// feeds first, ending at v.out[feeds], and drew after them if it goes on.
func (v *View) fence(now time.Time, before termSnap, fed, feeds int) {
	f := &v.fenced
	f.drawing = append(f.drawing[:0], v.out[feeds:]...)
	v.out = append(v.out, cprQuery...)
	copy(v.out[len(cprQuery):], v.out)
	copy(v.out, cprQuery)
	f.pending, f.painted, f.reps, f.deadline = true, true, f.reps[:0], now.Add(cprWait)
	f.before, f.fed, f.drew = before, fed, len(f.drawing) > 0
	if before.shown == nil {
		f.unsure = true // a first paint: the answer says where the cursor was
	}
}

// wouldPaint reports whether painting frame would write to the terminal;
// if not, also what the client then knows the terminal shows.
func (v *View) wouldPaint(frame *vt.Framebuffer, remote *statesync.Complete) (bool, *vt.Framebuffer) {
	if v.repaint || len(v.queue) > 0 || remote.ScrollTotal() > v.scrollPos {
		return true, nil
	}
	fit := frame.Clone()
	v.fitFrame(fit)
	v.scratch = v.display.NewFrame(v.scratch[:0], true, v.shown, fit)
	if len(v.scratch) > 0 {
		return true, nil
	}
	return false, fit
}

// FenceWait reports whether painting waits for the terminal's answer. A
// wait that took too long ends it, and the asking; the bytes held as the
// start of an answer are then typed ones, returned.
func (v *View) FenceWait(now time.Time) (wait bool, typed []byte) {
	f := &v.fenced
	if f.pending && !now.Before(f.deadline) {
		v.logf.Printf("the terminal did not report its cursor within %v: resizes follow the terminals' rule", cprWait)
		if f.leaving != nil {
			// Which screen it shows is not known: every row is drawn.
			v.repaint = true
		}
		f.pending, f.mute, f.reps, f.probing, f.leaving = false, true, f.reps[:0], false, nil
		f.before = termSnap{}
		typed = f.cpr.flush()
	}
	return f.pending, typed
}

// TakeReports takes the terminal's answers out of typed bytes while one
// is awaited, and accounts for what they show. A query is answered at
// most once per call (the next is asked after), so the painting size
// changes at most once.
func (v *View) TakeReports(now time.Time, b []byte) []byte {
	f := &v.fenced
	if !f.pending && len(f.cpr.held) == 0 {
		return b
	}
	keys, reps := f.cpr.take(b)
	for _, r := range reps {
		if !f.pending {
			break // not awaited: a late answer after a timeout
		}
		if f.reps = append(f.reps, r); len(f.reps) < 2 || f.probing && len(f.reps) < 3 {
			continue
		}
		at, size := f.reps[0], f.reps[1]
		f.pending, f.valid = false, !f.painted
		v.answered(now, at.col, at.row, size.col+1, size.row+1)
		if f.probing {
			f.probing = false
			v.probedAlt(f.reps[2])
		}
		f.reps, f.before = f.reps[:0], termSnap{}
	}
	if !f.pending {
		keys = append(keys, f.cpr.flush()...)
	}
	return keys
}

// answered accounts for the terminal's answer to the query: when it read
// it, its cursor was at (x, y) on a w×h screen. It is long because it is
// one case analysis of the answer (a switch back from the alternate
// screen, a first paint, nothing moved, the alternate screen, a query
// alone, a write that landed on moved rows), each case short.
func (v *View) answered(now time.Time, x, y, w, h int) {
	f := &v.fenced
	b := f.before
	v.setSize(w, h)
	if alt := f.leaving; alt != nil {
		f.leaving = nil
		if x != 0 { // the cursor 1049 saved, home, was not restored
			v.oneScreen(alt, x, y, w, h)
			return
		}
	}
	if f.unsure {
		// Only a query alone says where the cursor is now.
		if !f.painted && v.shown != nil {
			shown := v.shown.Clone()
			shown.Resize(w, h)
			shown.SetCursor(x, y)
			v.shown, f.unsure = shown, false
		}
		return
	}
	_, by := b.shown.Cursor()
	if y == by && w == b.shown.Width() && h == b.shown.Height() {
		return // as the client knew
	}
	if w != b.shown.Width() || h != b.shown.Height() {
		v.dragUntil = now.Add(dragPark)
	}
	if b.shown.Modes().AltScreen {
		v.repaint = true // the alternate screen keeps no scrollback: what moved is drawn again
		return
	}
	if !f.painted {
		v.termMoved(y-by, w, h)
		return
	}
	// The write landed on moved rows. What it pushed is known: the rows
	// on the top of the moved screen, as many as its line feeds. What it
	// drew after them is replayed on what the terminal showed then, unless
	// it scrolled rows off (a narrower screen wrapped them): those rows are
	// not known, and are drawn again; they are where the write put them,
	// its last move having been absolute, as the cursor is.
	v.logf.Printf("the terminal resized under a write: its rows moved by %d", y-by)
	after := v.shown
	v.restore(b)
	v.termMoved(y-by, w, h)
	v.feedTop(f.fed)
	if after.Modes().AltScreen {
		// The write went on to the alternate screen, after its line
		// feeds: behind it the primary screen is as the client knows it
		// now, and the alternate one is drawn again.
		v.homePrimary()
		v.shown, v.repaint = after, true
		return
	}
	if !f.drew {
		return
	}
	if shown, pushed := vt.Replay(v.shown, f.drawing); pushed == 0 {
		v.shown, v.onTop, v.repaint = shown, 0, true
		for v.onTop < min(len(v.queue), shown.Height()) && shown.Row(v.onTop).Text() == v.queue[v.onTop].Row(shown.Width()).Text() {
			v.onTop++ // lines the write drew, on the top rows still
		}
		// The answer is as good as one to a question alone: the next
		// paint, which corrects the screen, goes at once.
		f.valid = true
		return
	}
	v.shown.SetCursor(after.Cursor())
	v.onTop, v.repaint, v.untrusted = 0, true, true
}

// feedTop accounts for line feeds that pushed the top k rows of what the
// terminal shows into its scrollback.
func (v *View) feedTop(k int) {
	if k <= 0 {
		return
	}
	shown := v.shown.Clone()
	k = min(k, shown.Height())
	v.tookTop(shown, k)
	shown.DropTop(k)
	shown.SetCursor(0, shown.Height()-1)
	v.shown = shown
}

// tookTop accounts for the terminal moving the top k rows of shown into
// its scrollback: lines of the queue (those drawn there, and rows that
// show the next line as it is), then rows the server's screen still
// shows, which the client skips when the server sends them as lines.
//
// Rows a write drew on moved rows (untrusted) are not known: they are not
// skipped, lest a line be lost for one the terminal did not push.
func (v *View) tookTop(shown *vt.Framebuffer, k int) {
	for r := range k {
		row := shown.Row(r)
		if v.onTop > 0 || !v.untrusted && len(v.queue) > 0 && v.queue[0].Row(shown.Width()).Text() == row.Text() {
			v.remember(v.queue[:1])
			v.pushedTo(v.queue[0].Line + 1)
			v.queue, v.onTop = v.queue[1:], max(v.onTop-1, 0)
			continue
		}
		if !v.untrusted {
			v.termHas = append(v.termHas, row.Text())
		}
		v.remember([]vt.ScrollLine{vt.LineOf(row, 0)})
	}
}

// dragPark is how long after a change of the window's size paints park
// the cursor, hidden, on the top row (parkCursor): a terminal that shrinks
// keeps the cursor's row, so with the cursor on the top row it deletes
// rows at the bottom and pushes none into its scrollback, and a paint
// made for the size before a step of a drag cannot draw again rows the
// step pushed. The server's screen shrinks keeping its own cursor's row,
// and sends the rows that left as lines, which the client pushes. A
// growth still pulls lines back from the scrollback, which the answers
// show. The cursor comes back with the first paint after the drag.
const dragPark = 300 * time.Millisecond

// parkCursor hides the cursor and moves it home.
const parkCursor = "\x1b[?25l\x1b[H"

// writeRoom bounds what a write to a terminal whose scrollback the client
// keeps holds, besides its query and its last cursor move. xterm and tmux
// read 4 KiB at a time, and a resize between two reads of one write
// lands on rows the client cannot know of, while one between two writes
// shows in the next write's answer. So a larger frame is drawn in bands
// of rows (band), a write each, and a screenful of lines in smaller
// groups (drawLines); a write below 4 KiB is also one chunk for the
// kernel's tty layer.
const writeRoom = 2048 - len(cprQuery) - len("\x1b[999;999H")

// band appends to out, which holds the write so far, as much of frame as
// fits in the write: the frame down to some row, what the terminal shows
// below left as it is (blank if the frame is drawn from a reset). It
// returns what the terminal shows then (nil: all of frame); the next
// writes draw the rest. A single row too large for a write is written
// whole.
func (v *View) band(out []byte, initialized bool, frame *vt.Framebuffer) ([]byte, *vt.Framebuffer) {
	var below *vt.Framebuffer
	if s := v.shown; initialized && s.Width() == frame.Width() && s.Height() == frame.Height() &&
		s.Modes().AltScreen == frame.Modes().AltScreen {
		below = s
	}
	room := writeRoom - len(out)
	var best *vt.Framebuffer
	var bestOut []byte
	lo, hi := 1, frame.Height()-1
	for lo <= hi {
		k := (lo + hi) / 2
		part := frame.WithRowsBelow(k, below)
		b := v.display.NewFrame(nil, initialized, v.shown, part)
		if len(b) > room && k > 1 {
			hi = k - 1
			continue
		}
		best, bestOut, lo = part, b, k+1
		if len(b) > room {
			break // one row, written whole
		}
	}
	if best == nil { // a screen of one row
		return v.display.NewFrame(out, initialized, v.shown, frame), nil
	}
	return append(out, bestOut...), best
}

// drawLines draws the head of the queue on the top rows of what the
// terminal shows (shown, nil if unknown), as vt.Display.DrawLines, in a
// write of at most writeRoom bytes when asking: fewer lines if a
// screenful is too large, at least one.
func (v *View) drawLines(shown *vt.Framebuffer, asking bool) ([]byte, *vt.Framebuffer, int) {
	n := len(v.out)
	lines := v.queue
	for {
		out, drawn, k := v.display.DrawLines(v.out[:n], shown, v.cols, v.rows, lines)
		if !asking || len(out) <= writeRoom || k <= 1 {
			return out, drawn, k
		}
		m := min(k, len(lines)) / 2
		for m > 1 && lines[m-1].Wrapped {
			m-- // a wrapped line goes with its continuation
		}
		lines = lines[:max(m, 1)]
	}
}

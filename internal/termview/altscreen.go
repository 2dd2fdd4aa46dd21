package termview

import (
	"fmt"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// Full-screen programs (docs/protocol.md section 12.3). A client keeping
// the session's scrollback paints on its terminal's primary screen, where
// a resize moves rows between the screen and the scrollback; a
// full-screen program's rows must not end up there, and do not with ssh,
// because the program draws on the terminal's alternate screen, which
// keeps no scrollback. So the server tells a gosh client which screen it
// shows (vt.CapAltScreen), and the client switches its terminal with it:
// v.primary keeps what it knew of the primary screen behind, and on the
// way back the terminal's answer says what the resizes meanwhile did to
// it.
//
// The client also shows the server's screen on the alternate screen while
// the server is behind (statesync.Complete.ScrollBehind): lines wait in its
// history, and its screen shows newer rows, which a shrink of the primary
// screen would push into the scrollback ahead of them.
//
// Some terminals ignore mode 1049: GNU screen by default (altscreen off),
// tmux with alternate-screen off, xterm with titeInhibit. They have one
// screen, where the program's rows are drawn over the primary screen's,
// which the client cannot take back from the terminal. So before it first
// switches, the client asks whether 1049 works (probeAlt): it switches to
// the alternate screen and back with the cursor moved off the first
// column meanwhile, and asks where the cursor is; 1049 restores the
// cursor it saved, on the first column. (DECRQM for mode 1049 would say
// it too, but tmux 3.3 does not answer DECRQM.) A terminal with one
// screen gets frames as a stock Mosh client paints them, all on the
// primary screen, from what the client knows it shows; the lines for the
// scrollback still go into the terminal's. The switch back asks again
// (leaveAlt). A terminal that answers no queries keeps the client
// guessing: it switches, and draws every row again on the way back, which
// shows the right screen whether the terminal switched or not.

// homePrimary keeps what the client knows of the primary screen as it
// switches to the alternate one, having moved the cursor home: a terminal
// shrinking its primary screen keeps the cursor's row, so with the cursor
// on the top row it deletes rows at the bottom and pushes none into the
// scrollback, whatever the program on the alternate screen does.
func (v *View) homePrimary() {
	if v.shown != nil {
		shown := v.shown.Clone()
		shown.SetCursor(0, 0)
		v.shown = shown
	}
	v.primary = v.snapshot()
}

// termAlt reports whether the terminal shows its alternate screen, as far
// as the client knows.
func (v *View) termAlt() bool { return v.shown != nil && v.shown.Modes().AltScreen }

// leaveAlt switches the terminal back to its primary screen before the
// client paints there: when the server's screen left its alternate one,
// or when lines came for the scrollback, which only the primary screen
// keeps (the alternate screen comes back with the next paint). It asks
// where the cursor is then, as a paint's query does: resizes while the
// alternate screen showed may have moved rows of the primary one, and
// terminals move them, at the latest when they switch back, as for a
// resize of the primary screen. It returns what to write, if anything:
// the paint then waits for the answer.
//
// It moves the cursor off the first column first, and an answer there
// shows a terminal that ignored 1049 (oneScreen). A terminal that
// answers no queries has every row drawn again, with the cursor home
// whichever screen it shows.
func (v *View) leaveAlt(now time.Time, frame *vt.Framebuffer, remote *statesync.Complete) []byte {
	if !v.scrollSync || !v.termAlt() {
		return nil
	}
	if frame.Modes().AltScreen && len(v.queue) == 0 && remote.ScrollTotal() <= v.scrollPos {
		return nil
	}
	b := []byte("\x1b[?1049l")
	alt, primary := v.shown, v.primary
	v.primary = termSnap{}
	f := &v.fenced
	switch {
	case primary.shown == nil:
		v.shown, v.repaint = nil, true // unknown (a first paint went to the alternate screen)
	case f.mute:
		v.restore(primary) // altResized followed its resizes
		v.repaint = true
		b = append(b, "\x1b[H"...)
	default:
		v.restore(primary)
		b = append([]byte(offFirstColumn), b...)
		b = append(b, cprQuery...)
		f.pending, f.painted, f.reps, f.deadline = true, false, f.reps[:0], now.Add(cprWait)
		f.before, f.leaving = v.snapshot(), alt
	}
	return b
}

// offFirstColumn moves the cursor to the second column of its row.
const offFirstColumn = "\x1b[2G"

// altProbe switches to the alternate screen and back, with the cursor
// moved to the second column meanwhile, and asks where the cursor is: on
// the first column if 1049 restored it.
const altProbe = "\x1b[H\x1b[?1049h" + offFirstColumn + "\x1b[?1049l\x1b[6n"

// probeAlt asks the terminal, the first time frame is to be shown on its
// alternate screen, whether it has one: it asks where the cursor is and
// the screen's size, as askFirst does, and then runs altProbe. It returns the
// queries if it asked: the paint then waits for the answers.
func (v *View) probeAlt(now time.Time, frame *vt.Framebuffer) []byte {
	f := &v.fenced
	if !v.scrollSync || f.mute || f.probed || v.shown == nil || !frame.Modes().AltScreen || v.termAlt() {
		return nil
	}
	f.pending, f.painted, f.reps, f.deadline = true, false, f.reps[:0], now.Add(cprWait)
	f.before, f.probing, f.probed = v.snapshot(), true, true
	return []byte(cprQuery + altProbe)
}

// probedAlt takes the answer to altProbe, once the answer to the query
// before it has been accounted for: the cursor is at rep, on the top row.
func (v *View) probedAlt(rep cprReport) {
	if rep.col != 0 {
		v.logf.Printf("the terminal ignores mode 1049: full-screen programs show on its primary screen")
		v.fenced.single = true
	}
	if v.shown != nil {
		shown := v.shown.Clone()
		shown.SetCursor(rep.col, rep.row)
		v.shown = shown
	}
}

// enterAlt starts a write that draws frame, if frame shows on the
// alternate screen and the display is to switch to it (it does so for a
// Frame drawn whole): the cursor goes home first, where 1049 saves it.
// On the way back the cursor is restored there (leaveAlt) if the
// terminal honoured 1049; xterm saves it again when it is switched while
// on the alternate screen already.
func (v *View) enterAlt(frame *vt.Framebuffer) {
	switch {
	case !frame.Modes().AltScreen:
	case !v.termAlt():
		v.out = append(v.out, "\x1b[H"...)
		v.homePrimary() // the write switches to the alternate screen
	case v.repaint:
		v.out = append(v.out, "\x1b[H"...)
	}
}

// oneScreen accounts for a terminal that ignored mode 1049, found out as
// the client switched it back (leaveAlt): its only screen shows what the
// client drew on the alternate one (alt), with the cursor at (x, y) of
// w×h, and not the primary screen's rows the client had kept. It is no
// scrollback of the session's, so the client draws every row again,
// from what it knows the terminal shows.
func (v *View) oneScreen(alt *vt.Framebuffer, x, y, w, h int) {
	v.logf.Printf("the terminal ignored mode 1049: full-screen programs show on its primary screen")
	v.fenced.single = true
	shown := alt.Clone()
	shown.MarkPrimaryScreen()
	shown.Resize(w, h)
	shown.SetCursor(x, y)
	// Its rows are not the server's: a shrink that pushed them before the
	// next paint skips none of the server's lines (tookTop).
	v.shown, v.onTop, v.untrusted, v.repaint = shown, 0, true, true
}

// leaveAltForGood appends to b what takes the terminal back to its
// primary screen as the session ends or stops, with the cursor on the
// last row that shows anything (the cursor 1049 restores is home): what
// is written next goes below it.
func (v *View) leaveAltForGood(b []byte) []byte {
	b = append(b, "\x1b[?1049l"...)
	y := vt.MaxRows // unknown: the bottom row
	if p := v.primary.shown; p != nil {
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
func (v *View) altResized(cols, rows int) {
	if p := v.primary.shown; p != nil {
		shown := p.Clone()
		shown.Resize(cols, rows)
		v.primary.shown = shown
	}
	v.repaint = true
}

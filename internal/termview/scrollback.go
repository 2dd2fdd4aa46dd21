package termview

import (
	"fmt"
	"slices"

	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// queueLines and queueBytes bound the lines a client holds for its
// terminal's scrollback that the terminal has not taken yet (the queue):
// what a server may send is bounded per state (statesync.MaxScrollBacklog), but
// the client takes each state's lines at once and the terminal takes them
// a screenful per round trip, so a server (a hostile one, or a fast one
// before a slow terminal) could make the queue grow without end. Past
// them the oldest lines the terminal has not been given are dropped, and
// a "[gosh: N lines skipped]" line says so, as for lines the server's
// history dropped.
const (
	queueLines = 2 * 10000 // twice a server's history by default
	queueBytes = 4 << 20
)

// scrollLines returns the lines of the server's state the client has not
// put into the terminal's scrollback yet, with a marker line for each gap
// in their numbers, and trims them from the state.
func (v *View) scrollLines(remote *statesync.Complete) []vt.ScrollLine {
	if v.scrollPos >= remote.ScrollTotal() {
		return nil
	}
	var out []vt.ScrollLine
	for _, l := range remote.ScrollSince(v.scrollPos) {
		if l.Line > v.histNext {
			marker := fmt.Appendf(nil, "[gosh: %d lines skipped]", l.Line-v.histNext)
			out = append(out, vt.ScrollLine{Line: v.histNext, Text: marker, Width: len(marker)})
		}
		if l.Line >= v.histNext {
			v.histNext = l.Line + 1
			if v.alreadyHas(l) {
				continue
			}
			out = append(out, l)
		}
	}
	v.scrollPos = remote.ScrollTotal()
	remote.TrimScroll(v.scrollPos)
	if len(out) > 0 {
		out = v.boundQueue(out)
	}
	if len(out) == 0 && len(v.queue) == 0 {
		v.pushedTo(v.histNext) // the terminal has them all (or there were none)
	}
	return out
}

// boundQueue returns the new lines to append to the queue, dropping the
// oldest of the queue beyond the lines its top rows show (v.onTop), and of
// the new lines, so that the queue stays within queueLines and
// queueBytes; a marker line takes the place of those dropped. The queue
// is replaced, not changed in place: a snapshot (resize.go) may hold it.
func (v *View) boundQueue(add []vt.ScrollLine) []vt.ScrollLine {
	size := func(l vt.ScrollLine) int { return len(l.Text) + statesync.ScrollLineCost }
	n, bytes := len(v.queue)+len(add), 0
	for _, l := range v.queue {
		bytes += size(l)
	}
	for _, l := range add {
		bytes += size(l)
	}
	if n <= queueLines && bytes <= queueBytes {
		return add
	}
	// Drop from the joined tail of the queue and the new lines, oldest
	// first, keeping room for the marker.
	tail := append(slices.Clone(v.queue[v.onTop:]), add...)
	drop := 0
	for drop < len(tail) && (n-drop+1 > queueLines || bytes+statesync.ScrollLineCost+64 > queueBytes) {
		bytes -= size(tail[drop])
		drop++
	}
	if drop == 0 {
		return add
	}
	first := tail[0].Line
	next := v.histNext
	if drop < len(tail) {
		next = tail[drop].Line
	}
	text := fmt.Appendf(nil, "[gosh: %d lines skipped]", next-first)
	v.queue = v.queue[:v.onTop:v.onTop]
	return append([]vt.ScrollLine{{Line: first, Text: text, Width: len(text)}}, tail[drop:]...)
}

// pushedTo tells the session's record (ClientConfig.ScrollPushed) that
// the terminal's scrollback holds every line before next. It is told
// once the line feeds that push them are written, not when they arrive:
// a client killed in between resumes with them still to push.
func (v *View) pushedTo(next uint64) {
	if v.scrollPushed != nil && next > v.pushedPos {
		v.pushedPos = next
		v.scrollPushed(next)
	}
}

// StartScrollback makes the view keep the terminal's scrollback: frames
// add no lines of their own to it, and show on the alternate screen when
// the server's do.
func (v *View) StartScrollback() {
	v.scrollSync = true
	caps := v.display.Caps()
	caps.KeepHistory = true
	caps.Ext |= vt.CapAltScreen
	v.display = vt.NewDisplay(caps)
	v.shown, v.repaint = nil, true
}

// recentLines is how many of the newest lines pushed into the terminal's
// scrollback the client remembers, for a terminal that takes some back
// when it grows: a screenful of the largest screen.
const recentLines = vt.MaxRows

// termResized accounts, by the terminals' rule, for what a terminal
// showing v.shown did with its scrollback when it changed to cols×rows:
// xterm, VTE, tmux and kitty keep their text at the bottom, so shrinking
// they delete rows below the cursor and then push rows from the top into
// the scrollback, and growing they pull rows back from it onto the top of
// the screen. The client uses the rule only for a terminal that does not
// answer its queries; the others say how far the cursor's row moved
// (paintFence), which also covers several changes in a row.
func (v *View) termResized(cols, rows int) {
	if v.shown == nil {
		return
	}
	switch _, y := v.shown.Cursor(); {
	case rows < v.shown.Height():
		v.termMoved(-max(0, y-rows+1), cols, rows)
	case rows > v.shown.Height():
		v.termMoved(rows-v.shown.Height(), cols, rows)
	}
}

// termMoved accounts for a terminal that showed v.shown and whose cursor's
// row then moved by delta as it resized to w×h: delta < 0 rows went from
// the top of the screen into its scrollback, delta > 0 lines came back
// from the scrollback onto the top of the screen. v.shown becomes what it
// shows then, as far as the client knows.
//
// The client paints the server's screen, which keeps its rows at the top
// (as Mosh's does): so the rows a shrink pushed, unless they were lines of
// the queue, are left out of the frames and skipped when the server sends
// them later (it shrinks the same way); the lines a growth pulled, which
// the next paint erases, go back to the head of the queue, on the top
// rows.
func (v *View) termMoved(delta, w, h int) {
	shown := v.shown.Clone()
	switch {
	case delta < 0:
		k := min(-delta, shown.Height())
		v.tookTop(shown, k)
		shown.DropTop(k)
	case delta > 0:
		p := min(delta, len(v.recent))
		pulled := slices.Clone(v.recent[len(v.recent)-p:])
		v.recent = v.recent[:len(v.recent)-p]
		v.queue = append(pulled, v.queue...)
		shown.Resize(shown.Width(), max(shown.Height(), h)) // the cursor moves down within it
		if delta > p {
			// Lines the client does not know: those below them on the
			// screen are not the queue's.
			shown.InsertTop(make([]vt.ScrollLine, delta-p))
			v.onTop = 0
		}
		shown.InsertTop(pulled)
		v.onTop += p
	}
	shown.Resize(w, h)
	v.onTop = min(v.onTop, h)
	v.shown, v.repaint = shown, true
}

// fitFrame makes a server screen show on the terminal as the terminal
// holds it after a resize the server has not caught up with: without the
// top rows the terminal moved into its scrollback (the lines still to be
// skipped), and at the terminal's size, a shrink keeping the cursor's row
// as terminals do. A frame larger than the terminal would scroll it, and
// so add rows to its scrollback. While the window is being resized, the
// cursor is parked (resize.go).
func (v *View) fitFrame(frame *vt.Framebuffer) {
	k := 0
	for k < len(v.termHas) && k < frame.Height()-1 && !frame.Modes().AltScreen && frame.Row(k).Text() == v.termHas[k] {
		k++
	}
	frame.DropTop(k)
	if w, h := frame.Size(); w != v.cols || h != v.rows {
		frame.ResizeKeepingCursor(v.cols, v.rows)
	}
	if v.parked && !frame.Modes().AltScreen {
		frame.SetCursor(0, 0) // parkCursor
		frame.SetCursorVisible(false)
	}
}

// alreadyHas reports whether l is a line the terminal put into its
// scrollback itself, next in order: the lines before it in v.termHas are
// forgotten (a resize the client learnt of only after it painted). A line
// that is none of them ends the skipping.
func (v *View) alreadyHas(l vt.ScrollLine) bool {
	if len(v.termHas) == 0 {
		return false
	}
	text := l.Row(max(l.Width, 1)).Text()
	for i, t := range v.termHas {
		if t == text {
			v.termHas = v.termHas[i+1:]
			return true
		}
	}
	v.termHas = nil
	return false
}

// remember notes lines that went into the terminal's scrollback.
func (v *View) remember(lines []vt.ScrollLine) {
	v.recent = append(v.recent, lines...)
}

// trimRecent forgets all but the newest recentLines lines remembered. It
// runs only before a write, so that restore finds what it left.
func (v *View) trimRecent() {
	if n := len(v.recent) - recentLines; n > 0 {
		v.recent = append(v.recent[:0], v.recent[n:]...)
	}
}

package session

import (
	"bytes"
	"fmt"
	"slices"
	"time"

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
// client hears of it: SIGWINCH does not queue, and tmux resizes its
// screen at once but tells the program up to a quarter of a second later.
// Whatever the client paints meanwhile lands on rows that have moved. What
// is sure is the result: the screen and the scrollback stay one sequence
// of rows and the cursor stays on its text, so the number of rows the
// cursor's row moved down is the number of lines that left the scrollback
// for the screen (up: rows that went into it).
//
// So before each paint the client asks where the cursor is (DSR 6) and
// paints once the answer is in. If the cursor is not where the last paint
// left it, the terminal resized in between and the difference is what it
// moved; the client accounts for it (termMoved) and paints from there.
// The paint itself starts with the same question, in the same write: a
// resize in the moment between the answer and the paint is then found out
// too, after the fact (termMovedUnder), so that what the client knows of
// the terminal stays true. A terminal that does not answer in time is not
// asked again; its resizes are accounted for by the terminals' rule
// (termResized).
type paintFence struct {
	cpr      cprFilter
	pending  bool            // a query is unanswered
	painted  bool            // a paint followed it
	pushed   int             // how many lines the paint pushed
	fed      []vt.ScrollLine // those lines, if pushed by line feeds alone (noteFeeds)
	head     []byte          // noteFeeds's scratch
	valid    bool            // answered, and nothing painted since
	from     *vt.Framebuffer // what the terminal showed when it was asked
	deadline time.Time
	mute     bool // the terminal did not answer once: the rule decides
}

// askFirst asks the terminal where its cursor is, if the client keeps the
// terminal's scrollback and is about to paint frame without having asked
// since the last paint. It reports whether it asked: the paint then waits
// for the answer.
func (c *client) askFirst(now time.Time, frame *vt.Framebuffer) bool {
	f := &c.fenced
	if !c.scrollSync || f.mute || f.valid || c.shown == nil || !c.wouldPaint(frame) {
		return false
	}
	c.write([]byte(cprQuery))
	f.pending, f.painted, f.from, f.deadline = true, false, c.shown, now.Add(cprWait)
	return true
}

// fence prefixes the paint in c.out with a query, if the client keeps the
// terminal's scrollback and knows what it shows before the paint (from).
func (c *client) fence(now time.Time, from *vt.Framebuffer) {
	f := &c.fenced
	if !c.scrollSync || f.mute || from == nil {
		return
	}
	c.out = append(c.out, cprQuery...)
	copy(c.out[len(cprQuery):], c.out)
	copy(c.out, cprQuery)
	f.pending, f.painted, f.from, f.deadline = true, true, from, now.Add(cprWait)
}

// wouldPaint reports whether painting frame would write to the terminal.
func (c *client) wouldPaint(frame *vt.Framebuffer) bool {
	if c.repaint || len(c.repush) > 0 || c.tr.Remote().ScrollTotal() > c.scrollPos {
		return true
	}
	fit := frame.Clone()
	c.fitFrame(fit)
	c.scratch = c.display.NewFrame(c.scratch[:0], true, c.shown, fit)
	return len(c.scratch) > 0
}

// fenceWait reports whether painting waits for the terminal's answer. A
// wait that took too long ends it, and the asking.
func (c *client) fenceWait(now time.Time) bool {
	f := &c.fenced
	if f.pending && !now.Before(f.deadline) {
		c.logf("the terminal did not report its cursor within %v: resizes follow the terminals' rule", cprWait)
		f.pending, f.mute, f.from = false, true, nil
		if b := f.cpr.flush(); len(b) > 0 {
			c.typed(now, b)
		}
	}
	return f.pending
}

// takeReports takes the terminal's cursor position reports out of typed
// bytes while one is awaited, and accounts for the move it shows.
func (c *client) takeReports(b []byte) []byte {
	f := &c.fenced
	if !f.pending && len(f.cpr.held) == 0 {
		return b
	}
	keys, rows := f.cpr.take(b)
	for _, row := range rows {
		if !f.pending {
			break // not awaited: a late answer after a timeout
		}
		f.pending, f.valid = false, !f.painted
		switch _, y := f.from.Cursor(); {
		case row == y:
		case f.painted:
			c.termMovedUnder(row - y)
		default:
			c.shown, c.repaint = c.termMoved(f.from, row-y), true
		}
		f.from = nil
	}
	if !f.pending {
		keys = append(keys, f.cpr.flush()...)
	}
	return keys
}

// noteFeeds notes the lines a paint pushes (out: PushLines's bytes for
// them) if it pushes them with line feeds alone, the terminal's top rows
// showing them already, as while output scrolls: should the terminal have
// moved its rows just before, the line feeds push whatever its top rows
// show then, and termMovedUnder knows which lines those are.
func (f *paintFence) noteFeeds(out []byte, lines []vt.ScrollLine, rows int) {
	f.pushed = len(lines)
	head := fmt.Appendf(f.head[:0], "\x1b[0m\x1b[r\x1b[%d;1H", max(rows, 999))
	f.head = head
	feeds, ok := bytes.CutPrefix(out, head)
	if ok && len(lines) <= rows && len(feeds) == len(lines) && bytes.Count(feeds, []byte{'\n'}) == len(feeds) {
		f.fed = lines
	}
}

// termMovedUnder accounts for a terminal that moved its rows by delta
// just before the last paint, which then landed on rows the client did
// not expect: it is drawn again from what the terminal shows now, which
// is the paint, with the cursor where the terminal's size put it.
//
// The paint's line feeds pushed the terminal's top rows as they were
// then. When they were meant to push lines already on those rows (fed),
// the client knows what they pushed instead: after a shrink, the rows
// below the ones the shrink pushed (the server will send them: they are
// skipped); after a growth, the lines it had pulled back, and then the
// paint's own lines, as many as the line feeds; the rest of them are
// pushed again, in order.
func (c *client) termMovedUnder(delta int) {
	c.logf("the terminal resized under a paint: its rows moved by %d", delta)
	f := &c.fenced
	fed := f.fed
	switch {
	case delta > 0:
		// What the client remembers ends with the lines the terminal
		// pulled back, then the paint's (k). Line feeds alone pushed the
		// first k of them; a paint that drew its lines erased the pulled
		// ones, which go back after its own.
		k := f.pushed
		p := min(delta, len(c.recent)-k)
		base := len(c.recent) - k - p
		seq := slices.Clone(c.recent[base:])
		kept, again := seq[:k], seq[k:]
		if fed == nil {
			kept, again = seq[p:], seq[:p]
		}
		c.recent = append(c.recent[:base], kept...)
		c.repush = append(again, c.repush...)
	case fed == nil:
		c.termMoved(f.from, delta) // as well as can be known
	default:
		for r := len(fed); r < min(len(fed)-delta, f.from.Height()); r++ {
			row := f.from.Row(r)
			c.termHas = append(c.termHas, row.Text())
			c.remember([]vt.ScrollLine{vt.LineOf(row, 0)})
		}
	}
	shown := c.shown.Clone()
	cols, rows := c.term.Size()
	shown.Resize(cols, rows)
	c.shown, c.repaint = shown, true
}

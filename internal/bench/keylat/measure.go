package keylat

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/vt"
)

// Snapshot is the client's screen as it was right after one read of its
// output, and when that read returned.
type Snapshot struct {
	At time.Time
	FB *vt.Framebuffer
}

// Result is how a session showed a typing workload, keystroke by
// keystroke.
type Result struct {
	// Keys is the number of keystrokes typed.
	Keys int
	// Latency is, per keystroke, how long after it was typed the screen
	// first showed it (the cursor and the text of its row as they are
	// after it, or after a later keystroke already typed); -1 if never.
	Latency []time.Duration
	// Wrong marks the keystrokes during which the screen showed a wrong
	// prediction. For [Measure], an underlined character that the screen
	// did not hold at that place after any keystroke of the previous
	// WrongWindow (screen states that lasted less than Transient
	// excepted); for [Session.Measure], any cell or the cursor (see
	// there).
	Wrong []bool
	// Predicted marks the keystrokes during which the screen showed a
	// prediction, right or wrong ([Session.Measure]); nil from
	// [Measure], which does not tell.
	Predicted []bool
	// Silent marks the keystrokes whose reference shows nothing new (a
	// password's characters, a Tab that only rings the bell): they have
	// no response time, and [Result.Stats] leaves them out of the times
	// (their Latency stays -1). Nil from [Measure], which times every
	// keystroke.
	Silent []bool
}

// Measure matches the screen states a session went through (snaps, in
// time order) against the reference screens after each keystroke (refs)
// typed at the given times (at, in time order, as long as refs). It
// counts as wrong only underlined characters, the check of the
// end-to-end tests; [Session.Measure] judges every cell and the cursor,
// underlined or not. logf, if
// not nil, is told about each keystroke found shown wrongly, with the
// screen and its reference.
//
// Measure panics if at and refs differ in length.
func Measure(at []time.Time, refs []*vt.Framebuffer, snaps []Snapshot, logf logf.Func) Result {
	if len(at) != len(refs) {
		panic("keylat: Measure given a different number of keystrokes and references")
	}
	r := Result{Keys: len(at), Latency: make([]time.Duration, len(at)), Wrong: make([]bool, len(at))}
	for i := range r.Latency {
		r.Latency[i] = -1
	}
	last := -1 // the latest keystroke typed by the time of the snapshot
	for n, s := range snaps {
		for last+1 < len(at) && !at[last+1].After(s.At) {
			last++
		}
		if last < 0 {
			continue
		}
		r.markShown(s, last, at, refs, nil)
		if n+1 < len(snaps) && snaps[n+1].At.Sub(s.At) < Transient {
			continue // a frame read in pieces: not on the screen long enough to be seen
		}
		from := last
		for from > 0 && s.At.Sub(at[from]) < WrongWindow {
			from--
		}
		if x, y, bad := WrongCell(s.FB, refs[from:last+1]); bad {
			if !r.Wrong[last] {
				logf.Printf("keylat: wrong cell (%d,%d) after key %d:\n%s\nreference:\n%s\n", x, y, last, dump(s.FB), dump(refs[last]))
			}
			r.Wrong[last] = true
		}
	}
	return r
}

// markShown finds the latest keystroke up to last, not yet shown, whose
// reference s matches, and marks it and every earlier keystroke not yet
// shown as shown at s.At. A reference with the cursor's line of the
// screen from before the earliest of those keystrokes (initial, or the
// reference of the one before it) matches only a screen with all its
// text (and differs from that screen elsewhere): vim's Enter after ":w"
// puts the cursor back where it was before the ":", and the screen still
// waiting for the ":" would otherwise count all three shown at once; a
// pager's scroll leaves the cursor after its prompt and moves the rows
// above.
func (r *Result) markShown(s Snapshot, last int, at []time.Time, refs []*vt.Framebuffer, initial *vt.Framebuffer) {
	first := last + 1 // the earliest keystroke not yet shown
	for first > 0 && r.Latency[first-1] < 0 {
		first--
	}
	before := initial
	if first > 0 {
		before = refs[first-1]
	}
	for j := last; j >= first; j-- {
		if !SameLine(s.FB, refs[j]) {
			continue
		}
		if before != nil && SameLine(refs[j], before) && (!sameScreenText(s.FB, refs[j]) || sameScreenText(refs[j], before)) {
			continue
		}
		for i := j; i >= first; i-- {
			r.Latency[i] = s.At.Sub(at[i])
		}
		return
	}
}

// SameLine reports whether a and b have the cursor at the same place and
// the same text on its row.
func SameLine(a, b *vt.Framebuffer) bool {
	ax, ay := a.Cursor()
	bx, by := b.Cursor()
	return ax == bx && ay == by && a.Row(ay).Text() == b.Row(by).Text()
}

// WrongCell finds an underlined character on fb that none of refs has at
// that place.
func WrongCell(fb *vt.Framebuffer, refs []*vt.Framebuffer) (x, y int, found bool) {
	w, h := fb.Size()
	for y := range h {
		for x := range w {
			c := fb.Cell(x, y)
			if c.Rend.Attrs.Underline() == vt.UnderlineNone || c.IsBlank() {
				continue
			}
			if !slices.ContainsFunc(refs, func(r *vt.Framebuffer) bool { return inside(r, x, y) && sameText(c, r.Cell(x, y)) }) {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

// inside reports whether (x, y) is on fb's screen.
func inside(fb *vt.Framebuffer, x, y int) bool {
	w, h := fb.Size()
	return x < w && y < h
}

// sameText reports whether a and b show the same character (both blank,
// or the same text).
func sameText(a, b vt.Cell) bool {
	if a.IsBlank() || b.IsBlank() {
		return a.IsBlank() && b.IsBlank()
	}
	return a.Text() == b.Text()
}

// sameScreenText reports whether a and b have the same size and the same
// text on every row.
func sameScreenText(a, b *vt.Framebuffer) bool {
	aw, ah := a.Size()
	if bw, bh := b.Size(); aw != bw || ah != bh {
		return false
	}
	for y := range ah {
		if a.Row(y).Text() != b.Row(y).Text() {
			return false
		}
	}
	return true
}

// dump renders fb's rows, numbered, for a log.
func dump(fb *vt.Framebuffer) string {
	var b strings.Builder
	for y := range fb.Height() {
		fmt.Fprintf(&b, "%2d|%s\n", y, fb.Row(y).Text())
	}
	return b.String()
}

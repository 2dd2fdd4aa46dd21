package keylat

import (
	"hash/maphash"
	"slices"
	"sort"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// Session is one typing session to measure with [Session.Measure]: the
// keystrokes, the reference, and every state the client's screen went
// through, with, when they were recorded, the states the server's program
// drew.
type Session struct {
	// At are the times the keystrokes were typed, in order, and Refs the
	// reference screens after each (as long as At).
	At   []time.Time
	Refs []*vt.Framebuffer
	// Initial is the screen before the first keystroke (nil if unknown):
	// what the reference shows before it.
	Initial *vt.Framebuffer
	// Screen are the client's screen states, in time order.
	Screen []Snapshot
	// Server are the screen states the program on the server drew, in
	// time order, as a terminal fed its output would show them (nil if
	// they were not recorded). A client can show only these, or a
	// prediction.
	Server []Snapshot
	// Up and Down are the least time a packet takes to cross the link
	// each way (the propagation delay).
	Up, Down time.Duration
	// Logf, if not nil, is told about each keystroke found shown
	// wrongly, with the screen and its reference.
	Logf func(format string, args ...any)
}

// Measure matches the client's screen states against the references (for
// the latency, as [Measure] does) and against what the server's program
// drew (for predictions). Every screen state that stayed at least
// [Transient] is judged while keystroke i is the latest typed. The keys
// in flight are those from the first not yet shown to i; the window
// starts when the one before them was typed and ends when the keystroke
// after i could reach the server (when it is typed, plus Up).
//
//   - The state shows a prediction (Result.Predicted[i]) when it has an
//     underlined character, or a cell's text or the visible cursor as the
//     server had not drawn it from the window's start until now. Without
//     Server, a keystroke shown sooner than the round trip (Up plus Down)
//     counts instead.
//   - It is wrong (Result.Wrong[i]) when the visible cursor, or a cell's
//     text, is neither as the reference of a key in flight (or of the
//     last key shown) has it nor as the server drew it during the window;
//     an underlined character, which is a prediction, must be the
//     reference's.
//
// So a wrong blank, a wrong cursor and a wrong prediction drawn plain
// count alike, and an intermediate state of the server's screen (output
// half drawn) does not count. Measure panics if At and Refs differ in
// length.
func (s *Session) Measure() Result {
	if len(s.At) != len(s.Refs) {
		panic("keylat: Session with a different number of keystrokes and references")
	}
	n := len(s.At)
	r := Result{Keys: n, Latency: make([]time.Duration, n), Wrong: make([]bool, n), Predicted: make([]bool, n)}
	for i := range r.Latency {
		r.Latency[i] = -1
	}
	j := judge{seed: maphash.MakeSeed(), rowHash: map[*vt.Row]uint64{}}
	last, first := -1, 0 // the latest keystroke typed; the first not yet shown
	for k, snap := range s.Screen {
		for last+1 < n && !s.At[last+1].After(snap.At) {
			last++
		}
		if last < 0 {
			continue
		}
		r.markShown(snap, last, s.At, s.Refs)
		for first < n && r.Latency[first] >= 0 {
			first++
		}
		if k+1 < len(s.Screen) && s.Screen[k+1].At.Sub(snap.At) < Transient {
			continue // a frame read in pieces: not on the screen long enough to be seen
		}
		from := s.At[max(min(first, last+1)-1, 0)]
		until := time.Unix(1<<40, 0)
		if last+1 < n {
			until = s.At[last+1].Add(s.Up)
		}
		refs := s.Refs[max(min(first, last+1)-1, 0) : last+1]
		if first == 0 && s.Initial != nil {
			refs = append([]*vt.Framebuffer{s.Initial}, refs...)
		}
		if _, _, found := WrongCell(snap.FB, nil); found {
			r.Predicted[last] = true
		} else if s.Server != nil {
			if _, _, ok := j.matches(snap.FB, s.serverBetween(from, snap.At), nil); !ok {
				r.Predicted[last] = true
			}
		}
		if x, y, ok := j.matches(snap.FB, s.serverBetween(from, until), refs); !ok {
			r.markWrong(last, x, y, snap.FB, s.Refs[last], s.Logf)
		}
	}
	if s.Server == nil {
		s.predictedByTime(&r, &j)
	}
	return r
}

// predictedByTime marks as predicted, without a record of the server, the
// keystrokes that changed the cursor's line and were shown sooner than the
// round trip.
func (s *Session) predictedByTime(r *Result, j *judge) {
	for i, d := range r.Latency {
		before := s.Initial
		if i > 0 {
			before = s.Refs[i-1]
		}
		if d >= 0 && d < s.Up+s.Down && (before == nil || !j.sameLine(s.Refs[i], before)) {
			r.Predicted[i] = true
		}
	}
}

// markWrong marks keystroke i shown wrongly, telling logf the first time.
func (r *Result) markWrong(i, x, y int, fb, ref *vt.Framebuffer, logf func(string, ...any)) {
	if !r.Wrong[i] && logf != nil {
		logf("keylat: wrong cell or cursor (%d,%d) after key %d:\n%s\nreference:\n%s\n", x, y, i, dump(fb), dump(ref))
	}
	r.Wrong[i] = true
}

// serverBetween returns the server's states from the one on screen at
// from to the last one drawn by until.
func (s *Session) serverBetween(from, until time.Time) []Snapshot {
	lo := max(sort.Search(len(s.Server), func(i int) bool { return s.Server[i].At.After(from) })-1, 0)
	hi := sort.Search(len(s.Server), func(i int) bool { return s.Server[i].At.After(until) })
	if hi <= lo {
		return nil
	}
	return s.Server[lo:hi]
}

// judge compares screens cell by cell, caching a hash of each row it has
// seen (rows of framebuffer clones never change).
type judge struct {
	seed    maphash.Seed
	rowHash map[*vt.Row]uint64
}

// matches reports whether fb's visible cursor, with the row it is on, is
// as a screen of server or refs has them, and every other cell of fb shows
// the text that one of them shows there. Underlined characters are
// predictions: a row holding one must be as one of refs has it. If fb does
// not match, it returns the first place that does not.
func (j *judge) matches(fb *vt.Framebuffer, server []Snapshot, refs []*vt.Framebuffer) (x, y int, ok bool) {
	cands := make([]*vt.Framebuffer, 0, len(server)+len(refs))
	for _, s := range server {
		cands = append(cands, s.FB)
	}
	cands = append(cands, refs...)
	w, h := fb.Size()
	cx, cy := fb.Cursor()
	if fb.CursorVisible() {
		among := cands
		if underlined(fb.Row(cy)) {
			among = refs
		}
		if !slices.ContainsFunc(among, func(c *vt.Framebuffer) bool { return j.sameLine(fb, c) }) {
			return cx, cy, false
		}
	}
	for y := range h {
		if y == cy && fb.CursorVisible() {
			continue
		}
		row := fb.Row(y)
		hash := j.hash(row)
		sameRow := func(c *vt.Framebuffer) bool { return inside(c, 0, y) && j.hash(c.Row(y)) == hash }
		if slices.ContainsFunc(refs, sameRow) || !underlined(row) && slices.ContainsFunc(cands, sameRow) {
			continue
		}
		for x := range w {
			cell := fb.Cell(x, y)
			sameCell := func(c *vt.Framebuffer) bool { return inside(c, x, y) && sameShown(cell, c.Cell(x, y)) }
			among := cands
			if predicted(cell) {
				among = refs
			}
			if !slices.ContainsFunc(among, sameCell) {
				return x, y, false
			}
		}
	}
	return 0, 0, true
}

// sameLine reports whether a and b have the cursor at the same place and
// show the same text on its row.
func (j *judge) sameLine(a, b *vt.Framebuffer) bool {
	ax, ay := a.Cursor()
	bx, by := b.Cursor()
	return ax == bx && ay == by && inside(b, 0, by) && j.hash(a.Row(ay)) == j.hash(b.Row(by))
}

// predicted reports whether c is drawn as a prediction: an underlined
// character.
func predicted(c vt.Cell) bool { return c.Rend.Attrs.Underline() != vt.UnderlineNone && !c.IsBlank() }

// underlined reports whether row has a predicted cell.
func underlined(row *vt.Row) bool { return slices.ContainsFunc(row.Cells(), predicted) }

// hash returns a hash of the text row shows, cell by cell.
func (j *judge) hash(row *vt.Row) uint64 {
	if h, ok := j.rowHash[row]; ok {
		return h
	}
	var m maphash.Hash
	m.SetSeed(j.seed)
	var buf []byte
	for _, c := range row.Cells() {
		buf = appendShown(buf[:0], c)
		m.Write(buf)
		m.WriteByte(0)
	}
	h := m.Sum64()
	j.rowHash[row] = h
	return h
}

// appendShown appends what cell c shows: its text, a space for a blank.
func appendShown(dst []byte, c vt.Cell) []byte {
	if c.Rune() == 0 {
		return append(dst, ' ')
	}
	return c.AppendText(dst)
}

// sameShown reports whether a and b show the same text, a blank and a
// space alike.
func sameShown(a, b vt.Cell) bool {
	ra, rb := a.Rune(), b.Rune()
	if ra == 0 {
		ra = ' '
	}
	if rb == 0 {
		rb = ' '
	}
	return ra == rb && a.Combining() == b.Combining()
}

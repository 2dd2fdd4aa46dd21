package keylat

import (
	"hash/maphash"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/vt"
)

// Session is one typing session to measure with [Session.Measure]: the
// keystrokes, the reference, and every state the client's screen went
// through, with, when it was recorded, what the server's program wrote.
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
	// Server is what the program on the server wrote to its terminal, in
	// time order, from its start (nil if it was not recorded). Replayed
	// into a terminal of the references' size, it gives every state the
	// server's screen went through: a client can show only those, or a
	// prediction.
	Server []Output
	// Up and Down are the least time a packet takes to cross the link
	// each way (the propagation delay).
	Up, Down time.Duration
	// Logf is told about each keystroke found shown wrongly, with the
	// screen and its reference; nil tells nothing.
	Logf logf.Func
}

// Output is a piece of what a program wrote to its terminal, and when it
// was read.
type Output struct {
	At   time.Time
	Data []byte
}

// maxLines bounds the cursor lines a replay records (about 200 bytes
// each): past it, a session's output is judged by whole screens only.
const maxLines = 1 << 20

// Measure matches the client's screen states against the references (for
// the latency, as [Measure] does) and against what the server's program
// drew (for predictions). Every screen state that stayed at least
// [Transient] is judged while keystroke i is the latest typed. The keys
// in flight are those from the first not yet shown to i; the window
// starts when the one before them was typed (for the server's states a
// screen may show without being wrong, a one-way delay, Down, earlier:
// what the server drew then may still be on its way) and ends when the
// keystroke after i could reach the server (when it is typed, plus Up).
//
//   - The state shows a prediction (Result.Predicted[i]) when it has an
//     underlined character, or a cell's text or the visible cursor as the
//     server had not drawn it from the window's start until now. Without
//     Server, a keystroke that changed the cursor's line and was shown
//     sooner than the round trip (Up plus Down) counts instead.
//   - It is wrong (Result.Wrong[i]) when the visible cursor with the text
//     of its row, or another cell's text, is neither as the reference of
//     a key in flight (or of the last key shown) has it nor as the server
//     drew it during the window; an underlined character, which is a
//     prediction, must be the reference's.
//
// So a wrong blank, a wrong cursor and a wrong prediction drawn plain
// count alike, and an intermediate state of the server's screen (output
// half drawn, in whatever pieces the transport read it) does not.
// Measure panics if At and Refs differ in length. It walks the screen
// states once, keeping each one's window; hence its length.
func (s *Session) Measure() Result {
	if len(s.At) != len(s.Refs) {
		panic("keylat: Session with a different number of keystrokes and references")
	}
	n := len(s.At)
	r := Result{Keys: n, Latency: make([]time.Duration, n), Wrong: make([]bool, n), Predicted: make([]bool, n), Silent: make([]bool, n)}
	for i := range r.Latency {
		r.Latency[i] = -1
	}
	j := judge{seed: maphash.MakeSeed(), rows: map[*vt.Row]rowID{}}
	for i := range n {
		before := s.Initial
		if i > 0 {
			before = s.Refs[i-1]
		}
		r.Silent[i] = before != nil && j.sameScreen(before, s.Refs[i])
	}
	var srv server
	if s.Server != nil && n > 0 {
		w, h := s.Refs[0].Size()
		srv = replay(s.Server, w, h, &j)
	}
	last, first := -1, 0 // the latest keystroke typed; the first not yet shown
	for k, snap := range s.Screen {
		for last+1 < n && !s.At[last+1].After(snap.At) {
			last++
		}
		if last < 0 {
			continue
		}
		r.markShown(snap, last, s.At, s.Refs, s.Initial)
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
			if _, _, ok := j.matches(snap.FB, srv.between(from, snap.At), nil); !ok {
				r.Predicted[last] = true
			}
		}
		// The client shows what the server drew a one-way delay
		// before: the server states it may show start that much earlier.
		if x, y, ok := j.matches(snap.FB, srv.between(from.Add(-s.Down), until), refs); !ok {
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
func (r *Result) markWrong(i, x, y int, fb, ref *vt.Framebuffer, log logf.Func) {
	if !r.Wrong[i] {
		log.Printf("keylat: wrong cell or cursor (%d,%d) after key %d:\n%s\nreference:\n%s\n", x, y, i, dump(fb), dump(ref))
	}
	r.Wrong[i] = true
}

// server is what the server's screen went through: whole screens, at
// every line feed, carriage return, backspace and escape sequence of the
// program's output (a transport that reads the output in other pieces
// can show a state in between only by drawing part of a run of text), and
// the cursor with the text of its row after every byte (which covers
// those).
type server struct {
	states []Snapshot
	lines  []line
}

// line is the cursor's place and the text of its row.
type line struct {
	at   time.Time
	x, y int
	row  rowID
}

// window is the part of a server's record from the state on screen at
// one time to the last drawn by another.
type window struct {
	states []Snapshot
	lines  []line
}

// between returns the states and lines from the ones on screen at from to
// the last drawn by until.
func (s *server) between(from, until time.Time) window {
	lo := max(sort.Search(len(s.states), func(i int) bool { return s.states[i].At.After(from) })-1, 0)
	hi := sort.Search(len(s.states), func(i int) bool { return s.states[i].At.After(until) })
	llo := max(sort.Search(len(s.lines), func(i int) bool { return s.lines[i].at.After(from) })-1, 0)
	lhi := sort.Search(len(s.lines), func(i int) bool { return s.lines[i].at.After(until) })
	var w window
	if hi > lo {
		w.states = s.states[lo:hi]
	}
	if lhi > llo {
		w.lines = s.lines[llo:lhi]
	}
	return w
}

// replay feeds out into a cols×rows terminal, recording what the server's
// screen went through.
func replay(out []Output, cols, rows int, j *judge) server {
	emu := vt.NewEmulator(cols, rows)
	var s server
	record := func(at time.Time) {
		s.states = append(s.states, Snapshot{At: at, FB: emu.Framebuffer().Clone()})
	}
	record(time.Time{})
	for _, o := range out {
		for i := range o.Data {
			b := o.Data[i]
			if b == 0x1b {
				record(o.At)
			}
			emu.Feed(o.Data[i:i+1], nil)
			if b == '\n' || b == '\r' || b == '\b' {
				record(o.At)
			}
			if len(s.lines) < maxLines {
				fb := emu.Framebuffer()
				x, y := fb.Cursor()
				l := line{at: o.At, x: x, y: y, row: j.idOf(fb.Row(y))}
				if n := len(s.lines); n == 0 || s.lines[n-1].x != x || s.lines[n-1].y != y || s.lines[n-1].row != l.row {
					s.lines = append(s.lines, l)
				}
			}
		}
		record(o.At)
	}
	return s
}

// judge compares screens cell by cell. It knows every row it has seen by
// its text (rows of framebuffer clones never change; the live row a
// replay reads is identified afresh each time).
type judge struct {
	seed maphash.Seed
	rows map[*vt.Row]rowID
}

// rowID identifies a row's text: its hash, and the text itself.
type rowID struct {
	hash uint64
	text string
}

// id returns the identity of a clone's row.
func (j *judge) id(row *vt.Row) rowID {
	if id, ok := j.rows[row]; ok {
		return id
	}
	id := j.idOf(row)
	j.rows[row] = id
	return id
}

// idOf computes the identity of a row's text.
func (j *judge) idOf(row *vt.Row) rowID {
	var b strings.Builder
	var buf []byte
	for _, c := range row.Cells() {
		buf = appendShown(buf[:0], c)
		b.Write(buf)
		b.WriteByte(0)
	}
	text := b.String()
	return rowID{hash: maphash.String(j.seed, text), text: text}
}

// matches reports whether fb's visible cursor, with the row it is on, is
// as a screen of the server's window or of refs has them (or as the
// server's cursor line was after a byte of its output), and every other
// cell of fb shows the text that one of them shows there. Underlined
// characters are predictions: a row holding one must be as one of refs
// has it. If fb does not match, it returns the first place that does
// not.
func (j *judge) matches(fb *vt.Framebuffer, srv window, refs []*vt.Framebuffer) (x, y int, ok bool) {
	cands := make([]*vt.Framebuffer, 0, len(srv.states)+len(refs))
	for _, s := range srv.states {
		cands = append(cands, s.FB)
	}
	cands = append(cands, refs...)
	w, h := fb.Size()
	cx, cy := fb.Cursor()
	if fb.CursorVisible() {
		sameLine := slices.ContainsFunc(refs, func(c *vt.Framebuffer) bool { return j.sameLine(fb, c) })
		if !sameLine && !underlined(fb.Row(cy)) {
			sameLine = slices.ContainsFunc(cands, func(c *vt.Framebuffer) bool { return j.sameLine(fb, c) })
			if !sameLine {
				id := j.id(fb.Row(cy))
				sameLine = slices.ContainsFunc(srv.lines, func(l line) bool { return l.x == cx && l.y == cy && l.row == id })
			}
		}
		if !sameLine {
			return cx, cy, false
		}
	}
	for y := range h {
		if y == cy && fb.CursorVisible() {
			continue
		}
		row := fb.Row(y)
		id := j.id(row)
		sameRow := func(c *vt.Framebuffer) bool { return inside(c, 0, y) && j.id(c.Row(y)).hash == id.hash }
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

// sameScreen reports whether a and b show the same text and cursor.
func (j *judge) sameScreen(a, b *vt.Framebuffer) bool {
	ax, ay := a.Cursor()
	bx, by := b.Cursor()
	if ax != bx || ay != by || a.CursorVisible() != b.CursorVisible() || a.Height() != b.Height() {
		return false
	}
	for y := range a.Height() {
		if j.id(a.Row(y)).hash != j.id(b.Row(y)).hash {
			return false
		}
	}
	return true
}

// sameLine reports whether a and b have the cursor at the same place and
// show the same text on its row.
func (j *judge) sameLine(a, b *vt.Framebuffer) bool {
	ax, ay := a.Cursor()
	bx, by := b.Cursor()
	return ax == bx && ay == by && inside(b, 0, by) && j.id(a.Row(ay)).hash == j.id(b.Row(by)).hash
}

// predicted reports whether c is drawn as a prediction: an underlined
// character.
func predicted(c vt.Cell) bool { return c.Rend.Attrs.Underline() != vt.UnderlineNone && !c.IsBlank() }

// underlined reports whether row has a predicted cell.
func underlined(row *vt.Row) bool { return slices.ContainsFunc(row.Cells(), predicted) }

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

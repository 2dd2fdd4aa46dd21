package predict

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// The pager tests run less on a 20×5 screen (four content rows and the
// prompt) over a 500 ms path, reading numbered lines long enough to place
// a screen by one of them (minPagerOverlap).

// docLine is line i (from 1) of the file less shows.
func docLine(i int) string { return fmt.Sprintf("%03d line of text %c", i, 'a'+i%26) }

// pageRows are the rows of less showing lines top to top+3.
func pageRows(top int) []string {
	return []string{docLine(top), docLine(top + 1), docLine(top + 2), docLine(top + 3), ":"}
}

// page is less drawing lines top to top+3 and its prompt.
func page(top int) string {
	return "\x1b[H\x1b[2J" + strings.Join(pageRows(top), "\r\n")
}

// pagerFB is a 20×5 screen showing page(top).
func pagerFB(top int) *vt.Framebuffer {
	em := vt.NewEmulator(20, 5)
	em.Feed([]byte(page(top)), nil)
	return em.Framebuffer()
}

// pagerSim starts less with Enter (typed in state 1) on the first page,
// and scrolls with the server alone through the pages with the given
// tops (as if typed before the engine started), so that the document
// knows their lines. The screen shows the last of them.
func pagerSim(t *testing.T, tops ...int) *sim {
	s := newSim(t, 20, 5, Adaptive, false)
	s.link.SendInterval = 40 * time.Millisecond // shown, not underlined
	s.typ(0, "\r")
	for i, top := range tops {
		s.host(500+10*i, page(top), 1, 1)
		s.paint()
	}
	return s
}

// TestPagerKeys checks each scroll the document model predicts, once
// trusted, from a document of lines 1 to 12 (learned from screens the
// server drew), and the keys and places it does not predict.
func TestPagerKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		top   int    // the first line shown before the keys
		keys  string // typed at once
		shown int    // the first line shown after them; 0: not predicted
	}{
		{name: "j", top: 5, keys: "j", shown: 6},
		{name: "k", top: 5, keys: "k", shown: 4},
		{name: "space", top: 4, keys: " ", shown: 8},
		{name: "b", top: 6, keys: "b", shown: 2},
		{name: "j then k then j", top: 5, keys: "jkj", shown: 6},
		{name: "jj", top: 5, keys: "jj", shown: 7},
		{name: "j to the last line known", top: 8, keys: "j", shown: 9},
		{name: "j past the last line known", top: 9, keys: "j"},
		{name: "k at the first line known", top: 1, keys: "k"},
		{name: "space to the last line known", top: 5, keys: " ", shown: 9},
		{name: "space past the lines known", top: 6, keys: " "},
		{name: "b before the lines known", top: 4, keys: "b"},
		{name: "g, the top not known", top: 5, keys: "g"},
		{name: "a count", top: 5, keys: "5j"},
		{name: "a key not modelled, then j", top: 5, keys: "nj"},
		{name: "d", top: 5, keys: "d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pagerSim(t, 1, 2, 3, 4, 5, 6, 7, 8, 9, tc.top)
			s.e.trusted = map[trustKey]bool{{modePager, 'j'}: true, {modePager, 'k'}: true, {modePager, ' '}: true, {modePager, 'b'}: true, {modePager, 'g'}: true}
			s.typ(1000, tc.keys)
			if got := s.e.Shown(); got != (tc.shown != 0) {
				t.Fatalf("Shown() = %v, want %v", got, tc.shown != 0)
			}
			want := pageRows(tc.top)
			if tc.shown != 0 {
				want = pageRows(tc.shown)
			}
			if v := render(s.paint()); !slices.Equal(v.rows, want) || v.x != 1 || v.y != 4 {
				t.Errorf("shows\n%v\nwant rows %q, the cursor at (1,4)", v, want)
			}
		})
	}
}

// TestPagerTrust: a scroll is hidden until the server has shown it once
// as predicted, and shown at once from then on; lines the client has
// not seen are never predicted.
func TestPagerTrust(t *testing.T) {
	s := pagerSim(t, 1)
	s.run([]step{
		// j brings line 5, never seen: not predicted.
		{at: 1000, keys: "j", show: pageRows(1), cur: [2]int{1, 4}, shown: notShown},
		{at: 1500, host: "\r\x1b[K" + docLine(5) + "\r\n:", acked: 2, echo: 2, show: pageRows(2), cur: [2]int{1, 4}},
		// k brings line 1 back: predicted, hidden until the server shows it.
		{at: 2000, keys: "k", show: pageRows(2), cur: [2]int{1, 4}, shown: notShown},
		{at: 2500, host: page(1), acked: 3, echo: 3, show: pageRows(1), cur: [2]int{1, 4}},
		// j, now over lines seen: hidden the first time too.
		{at: 3000, keys: "j", show: pageRows(1), cur: [2]int{1, 4}, shown: notShown},
		{at: 3500, host: page(2), acked: 4, echo: 4, show: pageRows(2), cur: [2]int{1, 4}},
		// Both trusted: shown at once, and the next one follows the first.
		{at: 4000, keys: "k", show: pageRows(1), cur: [2]int{1, 4}, shown: isShown},
		{at: 4100, keys: "j", show: pageRows(2), cur: [2]int{1, 4}, shown: isShown},
		{at: 4500, host: page(1), acked: 5, echo: 5, show: pageRows(2), cur: [2]int{1, 4}},
		{at: 4600, host: page(2), acked: 6, echo: 6, show: pageRows(2), cur: [2]int{1, 4}},
		// Line 6 is not known: not predicted.
		{at: 5000, keys: "j", show: pageRows(2), cur: [2]int{1, 4}, shown: notShown},
	})
	if st := s.e.Stats(); st.Wrong != 0 {
		t.Errorf("Stats = %+v, want no wrong predictions", st)
	}
}

// TestPagerWrongForgets: a shown scroll the server contradicts (the
// file changed under less) is wrong once, and the engine forgets the
// document and what it trusted: the next scroll is not predicted.
func TestPagerWrongForgets(t *testing.T) {
	s := pagerSim(t, 1, 2, 3, 4, 5)
	s.e.trusted = map[trustKey]bool{{modePager, 'j'}: true, {modePager, 'k'}: true}
	other := "\x1b[H\x1b[2Jsomething else now\r\n" + strings.Join(pageRows(5)[1:], "\r\n")
	s.run([]step{
		{at: 1000, keys: "k", show: pageRows(4), cur: [2]int{1, 4}, shown: isShown},
		{at: 1500, host: other, acked: 2, echo: 2, show: append([]string{"something else now"}, pageRows(5)[1:]...), cur: [2]int{1, 4}},
		{at: 2000, keys: "j", show: append([]string{"something else now"}, pageRows(5)[1:]...), cur: [2]int{1, 4}, shown: notShown},
	})
	if st := s.e.Stats(); st.Wrong != 1 {
		t.Errorf("Stats = %+v, want one wrong prediction", st)
	}
	if len(s.e.pager.segs) != 1 || len(s.e.pager.segs[0].lines) != 4 {
		t.Errorf("the document holds %d segments, want only the screen seen since", len(s.e.pager.segs))
	}
}

// TestPagerJoin: a screen of new lines after space is placed a window
// (the screen's height less one) after the one before; a scroll across
// that join is hidden, even when the key is trusted, until the server
// has shown one as predicted: less may scroll by another window (-z).
func TestPagerJoin(t *testing.T) {
	s := pagerSim(t, 1)
	s.e.trusted = map[trustKey]bool{{modePager, ' '}: true, {modePager, 'b'}: true, {modePager, 'k'}: true}
	s.run([]step{
		{at: 1000, keys: " ", show: pageRows(1), cur: [2]int{1, 4}, shown: notShown},
		{at: 1500, host: page(5), acked: 2, echo: 2, show: pageRows(5), cur: [2]int{1, 4}},
		{at: 2000, keys: "b", show: pageRows(5), cur: [2]int{1, 4}, shown: notShown},
		{at: 2500, host: page(1), acked: 3, echo: 3, show: pageRows(1), cur: [2]int{1, 4}},
		{at: 3000, keys: "j", show: pageRows(1), cur: [2]int{1, 4}, shown: notShown},
		{at: 3500, host: page(2), acked: 4, echo: 4, show: pageRows(2), cur: [2]int{1, 4}},
		// The join is known now: k and space across it show at once.
		{at: 4000, keys: "k", show: pageRows(1), cur: [2]int{1, 4}, shown: isShown},
		{at: 4100, keys: " ", show: pageRows(5), cur: [2]int{1, 4}, shown: isShown},
	})
	if st := s.e.Stats(); st.Wrong != 0 {
		t.Errorf("Stats = %+v, want no wrong predictions", st)
	}
}

// TestPagerJoinWrong: when less scrolls by more than a window, the
// screen after b across the join is not the one predicted: it was
// hidden, so nothing wrong was shown, and the join stays unverified.
func TestPagerJoinWrong(t *testing.T) {
	s := pagerSim(t, 1, 2, 3, 4, 5)
	s.e.trusted = map[trustKey]bool{{modePager, ' '}: true, {modePager, 'k'}: true}
	s.run([]step{
		// A window of 6: from line 5 to line 11, taken to be line 9.
		{at: 1000, keys: " ", show: pageRows(5), cur: [2]int{1, 4}, shown: notShown},
		{at: 1500, host: page(11), acked: 2, echo: 2, show: pageRows(11), cur: [2]int{1, 4}},
		{at: 2000, keys: "k", show: pageRows(11), cur: [2]int{1, 4}, shown: notShown},
		{at: 2500, host: page(10), acked: 3, echo: 3, show: pageRows(10), cur: [2]int{1, 4}},
		{at: 3000, keys: "k", show: pageRows(10), cur: [2]int{1, 4}, shown: notShown},
	})
	if st := s.e.Stats(); st.Wrong != 0 || s.e.pager.joinsOK {
		t.Errorf("Stats = %+v, joins verified %v; want no wrong prediction, no join verified", st, s.e.pager.joinsOK)
	}
}

// TestPagerCatchUp: scrolls typed while a search is in flight have no
// base; once the server shows the search's screen with every key before
// them echoed, they are predicted from it (shown, being trusted), and a
// scroll typed after them shows at once.
func TestPagerCatchUp(t *testing.T) {
	s := pagerSim(t, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1)
	s.e.trusted = map[trustKey]bool{{modePager, 'j'}: true}
	s.run([]step{
		{at: 1000, keys: "n", show: pageRows(1), cur: [2]int{1, 4}},
		{at: 1100, keys: "j", show: pageRows(1), cur: [2]int{1, 4}, shown: notShown},
		{at: 1500, host: page(4), acked: 2, echo: 2, show: pageRows(5), cur: [2]int{1, 4}},
		{at: 1600, keys: "j", show: pageRows(6), cur: [2]int{1, 4}, shown: isShown},
	})
	if st := s.e.Stats(); st.Wrong != 0 {
		t.Errorf("Stats = %+v, want no wrong predictions", st)
	}
}

// TestPagerTop: g is predicted once the top of the document is known,
// from a screen the server showed after g.
func TestPagerTop(t *testing.T) {
	s := pagerSim(t, 1, 2, 3, 4, 5)
	s.e.trusted = map[trustKey]bool{{modePager, 'g'}: true}
	s.run([]step{
		{at: 1000, keys: "g", show: pageRows(5), cur: [2]int{1, 4}, shown: notShown},
		{at: 1500, host: page(1), acked: 2, echo: 2, show: pageRows(1), cur: [2]int{1, 4}},
		{at: 2000, keys: "G", show: pageRows(1), cur: [2]int{1, 4}},
		{at: 2500, host: page(5), acked: 3, echo: 3, show: pageRows(5), cur: [2]int{1, 4}},
		{at: 3000, keys: "g", show: pageRows(1), cur: [2]int{1, 4}, shown: isShown},
	})
}

// TestPagerDocAlign: screens that overlap by whole rows extend one
// segment; one that overlaps nothing starts another; one that overlaps
// two joins them.
func TestPagerDocAlign(t *testing.T) {
	var d pagerDoc
	d.observe(pagerFB(3), false, nil)
	d.observe(pagerFB(5), false, nil)
	if len(d.segs) != 1 || len(d.segs[0].lines) != 6 || d.top != 2 {
		t.Fatalf("after lines 3-6 and 5-8: %d segments, top %d, want one of 6 lines, top 2", len(d.segs), d.top)
	}
	d.observe(pagerFB(20), false, nil)
	if len(d.segs) != 2 || d.top != 0 {
		t.Fatalf("after lines 20-23: %d segments, want 2", len(d.segs))
	}
	first := d.segs[0]
	d.observe(pagerFB(1), false, nil)
	if len(d.segs) != 2 || d.top != 0 || len(d.cur.lines) != 8 {
		t.Fatalf("after lines 1-4: %d segments, top %d, %d lines; want 2, 0, 8", len(d.segs), d.top, len(d.cur.lines))
	}
	if s, i := first.resolve(0); s != d.cur || i != 2 {
		t.Errorf("the first segment's line 0 resolves to line %d of %p, want 2 of %p", i, s, d.cur)
	}
	for i, l := range d.cur.lines {
		if got := strings.TrimRight(vtText(l.cells), " "); got != docLine(i+1) {
			t.Errorf("line %d = %q, want %q", i, got, docLine(i+1))
		}
	}
}

// vtText is the text of cells.
func vtText(cells []vt.Cell) string {
	var b strings.Builder
	for _, c := range cells {
		if c.IsBlank() {
			b.WriteByte(' ')
			continue
		}
		b.WriteString(c.Text())
	}
	return b.String()
}

// TestPagerDocAmbiguous: a screen that overlaps a segment at two places
// (repeated lines) is not placed, and nothing is predicted from it.
func TestPagerDocAmbiguous(t *testing.T) {
	rep := func(lines ...string) *vt.Framebuffer {
		em := vt.NewEmulator(20, 5)
		em.Feed([]byte("\x1b[H\x1b[2J"+strings.Join(lines, "\r\n")+"\r\n:"), nil)
		return em.Framebuffer()
	}
	a, b := "the same line again", "another line of it"
	var d pagerDoc
	d.observe(rep(a, b, a, b), false, nil)
	d.observe(rep(b, a, b, a), false, nil)
	if d.cur != nil {
		t.Errorf("a screen that fits two places was placed at line %d", d.top)
	}
	if len(d.segs) != 1 || len(d.segs[0].lines) != 4 {
		t.Errorf("the document grew from an ambiguous screen: %d segments", len(d.segs))
	}
	// Short lines recur: one alone does not place a screen.
	d = pagerDoc{}
	d.observe(rep("}", "x", "y", "z"), false, nil)
	d.observe(rep("w", "v", "u", "}"), false, nil)
	if len(d.segs) != 2 {
		t.Errorf("screens sharing only \"}\" were joined: %d segments", len(d.segs))
	}
}

// TestPagerDocWrapped: a row that fills the last column may be a long
// line less wrapped, which a scroll moves whole: such a screen teaches
// nothing.
func TestPagerDocWrapped(t *testing.T) {
	em := vt.NewEmulator(20, 5)
	em.Feed([]byte("\x1b[H\x1b[2J"+docLine(1)+"\r\n"+strings.Repeat("w", 20)+docLine(2)+"\r\n:"), nil)
	var d pagerDoc
	d.observe(em.Framebuffer(), false, nil)
	if d.cur != nil || len(d.segs) != 0 {
		t.Errorf("a screen with a full row was placed (%d segments)", len(d.segs))
	}
}

// TestPagerDocBounds: a server drawing screen after screen of new lines,
// scrolling one line at a time or jumping, never makes the document grow
// past maxPagerLines lines or maxPagerSegs segments; the screen shown is
// always placed.
func TestPagerDocBounds(t *testing.T) {
	var d pagerDoc
	total := func() int {
		n := 0
		for _, s := range d.segs {
			n += len(s.lines)
		}
		return n
	}
	for top := 1; top < 3*maxPagerLines; top++ {
		d.observe(pagerFB(top%999+1), false, nil)
		if d.cur == nil || total() > maxPagerLines {
			t.Fatalf("after line %d: placed %v, %d lines", top, d.cur != nil, total())
		}
	}
	for top := 1; top < 3*maxPagerLines; top += 5 {
		d.observe(pagerFB(top%999+1), false, nil)
		if d.cur == nil || total() > maxPagerLines || len(d.segs) > maxPagerSegs {
			t.Fatalf("after line %d: placed %v, %d lines, %d segments", top, d.cur != nil, total(), len(d.segs))
		}
	}
}

// FuzzPagerDoc feeds the document model arbitrary screens: each input
// is server output fed to a 12×4 emulator, split into screens at 0x00
// bytes (0x01 marks the next screen as the top of the file, 0x02 as the
// one after a space typed on the screen before, 0x03 after a b), and
// scrolls asked of it at 0x04. It must never panic, never hold more
// than maxPagerLines lines or maxPagerSegs segments, keep every line the
// screen's width, and scroll only to screens whose lines it holds.
func FuzzPagerDoc(f *testing.F) {
	f.Add([]byte("\x1b[H\x1b[2Jaaaaaaaaaaa\r\nbbbbbbbbbbb\r\nccccccccccc\r\n:\x00\x1b[H\x1b[2Jbbbbbbbbbbb\r\nccccccccccc\r\nddddddddddd\r\n:\x04"))
	f.Add([]byte("\x1b[H\x1b[2Jaaaaaaaaa\r\nbbbbbbbbbbb\r\nccccccccccc\r\n:\x02\x00\x1b[H\x1b[2Jxxxxxxxxxxx\r\nyyyyyyyyyyy\r\nzzzzzzzzzzz\r\n:\x04\x03\x00\x01"))
	f.Add([]byte("\x1b[H\x1b[2Jsame line!!\r\nsame line!!\r\nsame line!!\r\n:\x00\x00\x04"))
	f.Fuzz(func(t *testing.T, in []byte) {
		em := vt.NewEmulator(12, 4)
		var d pagerDoc
		start := false
		var after *key
		var from *pagerSeg
		fromTop := 0
		for _, part := range bytesSplit(in) {
			em.Feed(part.out, nil)
			fb := em.Framebuffer()
			switch part.op {
			case 0x00:
				if pagerPrompt(fb) {
					d.observe(fb, start, after)
				}
				start, after = false, nil
			case 0x01:
				start = true
			case 0x02, 0x03:
				if s, top, ok := d.at(fb); ok {
					from, fromTop = s, top
				}
				if from != nil {
					after = &key{kind: keyPrint, r: map[byte]rune{2: ' ', 3: 'b'}[part.op], pgFrom: from, pgFromTop: fromTop}
				}
			case 0x04:
				s, top, ok := d.at(fb)
				if !ok {
					break
				}
				for _, r := range pagerScrollKeys {
					if to, ok := d.scroll(s, top, r); ok && (to < 0 || to+d.h-1 > len(s.lines)) {
						t.Fatalf("%q from line %d scrolls to line %d of %d", r, top, to, len(s.lines))
					}
				}
			}
			total := 0
			for _, s := range d.segs {
				total += len(s.lines)
				for _, l := range s.lines {
					if len(l.cells) != d.w {
						t.Fatalf("a line of %d cells on a screen %d wide", len(l.cells), d.w)
					}
				}
				for _, j := range s.joins {
					if j <= 0 || j >= len(s.lines) {
						t.Fatalf("a join at line %d of %d", j, len(s.lines))
					}
				}
			}
			if total > maxPagerLines || len(d.segs) > maxPagerSegs {
				t.Fatalf("%d lines in %d segments", total, len(d.segs))
			}
			if d.cur != nil && (d.top < 0 || d.top+d.h-1 > len(d.cur.lines)) {
				t.Fatalf("the screen placed at line %d of %d", d.top, len(d.cur.lines))
			}
		}
	})
}

// fuzzPart is output to feed, then an operation of FuzzPagerDoc.
type fuzzPart struct {
	out []byte
	op  byte
}

// bytesSplit cuts in at its operation bytes (0x00 to 0x04).
func bytesSplit(in []byte) []fuzzPart {
	var parts []fuzzPart
	startAt := 0
	for i, c := range in {
		if c <= 0x04 {
			parts = append(parts, fuzzPart{out: in[startAt:i], op: c})
			startAt = i + 1
		}
	}
	return append(parts, fuzzPart{out: in[startAt:], op: 0xff})
}

// TestPagerDrawing: the server may send the screen with the echo ack
// while less is still drawing after a scroll (the rows, then the
// prompt, in two writes): the cursor not yet after the prompt is not
// wrong, and the scrolls stay trusted. Without it, a real less over
// EV-DO lost every scroll learned at such a screen.
func TestPagerDrawing(t *testing.T) {
	s := pagerSim(t, 1, 2, 3)
	s.e.trusted = map[trustKey]bool{{modePager, 'j'}: true, {modePager, 'k'}: true}
	drawing := append(pageRows(2)[:4], docLine(6))
	s.run([]step{
		{at: 1000, keys: "k", show: pageRows(2), cur: [2]int{1, 4}, shown: isShown},
		// less -X: a line inserted at the top, drawn; the prompt next.
		{at: 1500, host: "\x1b[H\x1b[L" + docLine(2), acked: 2, echo: 2, show: drawing, cur: [2]int{1, 4}},
		{at: 1510, host: "\x1b[5;1H\x1b[K:", acked: 2, echo: 2, show: pageRows(2), cur: [2]int{1, 4}},
		{at: 2000, keys: "j", show: pageRows(3), cur: [2]int{1, 4}, shown: isShown},
	})
	if st := s.e.Stats(); st.Wrong != 0 {
		t.Errorf("Stats = %+v, want no wrong predictions", st)
	}
}

package predict

import (
	"hash/fnv"
	"sort"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// The pager document model: what the engine knows of the file less
// shows, so that its scrolls (j, k, space, b, g) are predicted when every
// line they bring onto the screen has been on it before.
//
// While less waits for a command (":" alone on the bottom row, every key
// echoed), the content rows of the server's screen (all but the bottom
// one) are a window onto the document. Each such screen is aligned with
// what is known by its whole rows: a unique place where it overlaps a
// known run of lines (a segment) extends that segment, and joins two
// segments it overlaps both; a screen that overlaps nothing starts a
// segment of its own. Where the overlap is not unique (repeated lines),
// nothing is learned and nothing is predicted from that screen. The
// lines keep the renditions last seen (search highlighting changes them;
// the predictions are judged on the characters alone).
//
// The model is bounded (maxPagerLines, maxPagerSegs): a server drawing
// screen after screen of new text makes the engine forget the oldest.

// Bounds of the pager document model.
const (
	// maxPagerLines bounds the lines remembered over every segment.
	maxPagerLines = 512
	// maxPagerSegs bounds the segments.
	maxPagerSegs = 8
	// minPagerOverlap is how many characters (not blanks) the rows a
	// screen shares with a segment must hold for the screen to be
	// placed there: one short line ("}") may recur anywhere.
	minPagerOverlap = 16
	// pagerDrawWait is how long after the echo ack a screen without
	// less's prompt is taken for less still drawing (pagerDrawing).
	pagerDrawWait = 1000 * time.Millisecond
)

// pagerLine is one row of the document: its cells as last seen, and a
// hash of its characters (not their renditions).
type pagerLine struct {
	cells []vt.Cell
	hash  uint64
	chars int // cells that are not blank
}

// pagerSeg is a run of consecutive lines of the document.
type pagerSeg struct {
	lines []pagerLine
	// start: the first line is the document's first (seen at the top
	// after g).
	start bool
	// into, shift: the segment was merged into (or trimmed to) into,
	// where its line i is line i+shift; nil while it is current.
	into  *pagerSeg
	shift int
	gone  bool // forgotten (bounds): its lines are not known any more
	// joins are the lines a screen was placed right after (or before)
	// by the window less scrolls by (space, b), not by the lines it
	// shares with the segment: line joins[i] follows line joins[i]-1
	// only if that window is the screen's height less one, which
	// pagerDoc.joinsOK says was seen.
	joins []int
}

// resolve follows merges from line i of s to the segment holding it now;
// nil if that segment was forgotten.
func (s *pagerSeg) resolve(i int) (*pagerSeg, int) {
	for s != nil && s.into != nil {
		i += s.shift
		s = s.into
	}
	if s == nil || s.gone || i < 0 || i >= len(s.lines) {
		return nil, 0
	}
	return s, i
}

// pagerDoc is the document model.
type pagerDoc struct {
	w, h int
	segs []*pagerSeg // oldest first
	// The last screen observed: where its top row is, and its hash
	// (screenHash); cur is nil when it was not placed.
	cur  *pagerSeg
	top  int
	hash uint64
	// joinsOK: a screen predicted across a join was shown by the server
	// as predicted: space and b scroll by the screen's height less one,
	// and every join is known to be right.
	joinsOK bool
}

// reset forgets the document.
func (d *pagerDoc) reset() {
	for _, s := range d.segs {
		s.gone, s.lines = true, nil
	}
	*d = pagerDoc{}
}

// lineOf returns row y of fb as a document line.
func lineOf(fb *vt.Framebuffer, y int) pagerLine {
	cells := append([]vt.Cell(nil), fb.Row(y).Cells()...)
	hash, chars := cellsHash(cells)
	return pagerLine{cells: cells, hash: hash, chars: chars}
}

// cellsHash hashes the characters of cells (not their renditions) and
// counts those that are not blank.
func cellsHash(cells []vt.Cell) (hash uint64, chars int) {
	h := fnv.New64a()
	var b [12]byte
	for _, c := range cells {
		r := c.Rune()
		switch {
		case c.IsBlank():
			r = 0
		case c.IsContinuation():
			r = -1
		default:
			chars++
		}
		b[0], b[1], b[2], b[3] = byte(r), byte(r>>8), byte(r>>16), byte(r>>24)
		b[4] = byte(c.Width())
		h.Write(b[:5])
		h.Write([]byte(c.Combining()))
		h.Write([]byte{0xff})
	}
	return h.Sum64(), chars
}

// screenHash hashes the characters of fb's content rows (all but the
// bottom one).
func screenHash(fb *vt.Framebuffer) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for y := range fb.Height() - 1 {
		l, _ := cellsHash(fb.Row(y).Cells())
		for i := range b {
			b[i] = byte(l >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// pagerCandidate is a place where a screen overlaps a segment: its top
// row is line off of seg.
type pagerCandidate struct {
	seg *pagerSeg
	off int
}

// observe learns from fb, a screen of less waiting for a command with
// every key echoed. start says the screen is the top of the document (the
// screen after g). after, when not nil, is the last key typed, a space
// or b typed on a placed screen: a screen that shares no line with
// that one is placed a window (the screen's height less one) after or
// before it, and the place where it joins is recorded as such
// (pagerSeg.joins). It is one function because placing, merging and
// bounding are one step over the same candidates.
func (d *pagerDoc) observe(fb *vt.Framebuffer, start bool, after *key) {
	w, h := fb.Size()
	if w != d.w || h != d.h {
		d.reset()
		d.w, d.h = w, h
	}
	n := h - 1
	hash := screenHash(fb)
	if d.cur != nil && hash == d.hash && !start {
		return
	}
	prev, prevTop := d.cur, d.top // the screen before, if placed
	d.cur, d.hash = nil, hash
	if n < 2 {
		return
	}
	rows := make([]pagerLine, n)
	for y := range rows {
		rows[y] = lineOf(fb, y)
		if c := rows[y].cells[w-1]; !c.IsBlank() {
			return // a line less may have wrapped (or chopped): scrolls move it whole
		}
	}
	var cands []pagerCandidate
	for _, s := range d.segs {
		found := 0
		for off := -(n - 1); off < len(s.lines); off++ {
			if overlaps(rows, s.lines, off) {
				found++
				cands = append(cands, pagerCandidate{s, off})
			}
		}
		if found > 1 {
			return // repeated lines: the screen's place is not known
		}
	}
	if start && (len(cands) > 1 || len(cands) == 1 && cands[0].off != 0) {
		return
	}
	join := -1 // the screen's row where a join is, in its coordinates
	if after != nil {
		from, ftop := after.pgFrom.resolve(after.pgFromTop)
		shared := false
		for _, c := range cands {
			shared = shared || c.seg == from
		}
		switch {
		case from == nil || shared || from != prev || ftop != prevTop:
		case after.r == ' ' && ftop+n == len(from.lines):
			cands, join = append(cands, pagerCandidate{from, ftop + n}), 0
		case after.r == 'b' && ftop == 0:
			cands, join = append(cands, pagerCandidate{from, -n}), n
		}
	}
	// Lay the screen and the segments it overlaps on one line, the
	// screen's top row at 0, and check that they agree where they
	// overlap each other.
	lo, hi := 0, n
	for _, c := range cands {
		lo, hi = min(lo, -c.off), max(hi, len(c.seg.lines)-c.off)
	}
	merged := make([]pagerLine, hi-lo)
	isStart := start
	var joins []int
	if join >= 0 {
		joins = append(joins, join-lo)
	}
	for _, c := range cands {
		for _, j := range c.seg.joins {
			joins = append(joins, j-c.off-lo)
		}
		for i, l := range c.seg.lines {
			at := i - c.off - lo
			if merged[at].cells != nil && merged[at].hash != l.hash {
				return
			}
			merged[at] = l
		}
		if c.seg.start && -c.off == lo {
			isStart = true
		}
	}
	if start && lo != 0 {
		return
	}
	for i, r := range rows {
		merged[i-lo] = r // the renditions last seen
	}
	for i := range merged {
		if merged[i].cells == nil {
			return // a gap between two segments: not consecutive
		}
	}
	// Keep at most maxPagerLines, around the screen.
	cut := min(max(0, -lo-(maxPagerLines-n)/2), max(0, len(merged)-maxPagerLines))
	merged = merged[cut:min(len(merged), cut+maxPagerLines)]
	merged = append([]pagerLine(nil), merged...) // drop the cut lines' memory
	lo += cut
	kept := joins[:0]
	for _, j := range joins {
		if j -= cut; j > 0 && j < len(merged) {
			kept = append(kept, j)
		}
	}
	seg := &pagerSeg{lines: merged, start: isStart && cut == 0, joins: kept}
	segs := d.segs[:0]
	for _, s := range d.segs {
		drop := false
		for _, c := range cands {
			if c.seg == s {
				s.into, s.shift, s.lines = seg, -c.off-lo, nil
				drop = true
			}
		}
		if !drop {
			segs = append(segs, s)
		}
	}
	d.segs = append(segs, seg)
	d.cur, d.top = seg, -lo
	d.bound()
}

// overlaps reports whether the screen rows, placed with their top row at
// line off of lines, agree with every line they overlap, and the
// overlap holds enough characters to place them.
func overlaps(rows, lines []pagerLine, off int) bool {
	chars, shared := 0, 0
	for y := max(0, -off); y < len(rows) && off+y < len(lines); y++ {
		if rows[y].hash != lines[off+y].hash {
			return false
		}
		chars += rows[y].chars
		shared++
	}
	return shared > 0 && chars >= minPagerOverlap
}

// bound forgets the oldest segments beyond maxPagerSegs or
// maxPagerLines; the current one is never dropped (observe keeps it
// within maxPagerLines).
func (d *pagerDoc) bound() {
	total := 0
	for _, s := range d.segs {
		total += len(s.lines)
	}
	for len(d.segs) > 1 && (len(d.segs) > maxPagerSegs || total > maxPagerLines) {
		i := 0
		if d.segs[0] == d.cur {
			i = 1
		}
		s := d.segs[i]
		total -= len(s.lines)
		s.gone, s.lines = true, nil
		d.segs = append(d.segs[:i], d.segs[i+1:]...)
	}
}

// at returns where the screen fb shows is in the document, if it is
// less waiting for a command on the screen last observed, placed.
func (d *pagerDoc) at(fb *vt.Framebuffer) (*pagerSeg, int, bool) {
	if d.cur == nil || fb.Width() != d.w || fb.Height() != d.h || !pagerPrompt(fb) || screenHash(fb) != d.hash {
		return nil, 0, false
	}
	return d.cur, d.top, true
}

// scroll returns the top line after less's command r on a screen whose
// top row is line top of s, and whether every line of the screen after
// it is known. Less then waits for a command with ":" (not "(END)"):
// each line known, the last of a segment too, was on a screen that
// showed ":", so the file goes on after it.
func (d *pagerDoc) scroll(s *pagerSeg, top int, r rune) (int, bool) {
	n := d.h - 1
	switch r {
	case 'j':
		top++
	case 'k':
		top--
	case ' ':
		top += n
	case 'b':
		top -= n
	case 'g':
		if !s.start {
			return 0, false
		}
		top = 0
	default:
		return 0, false
	}
	return top, top >= 0 && top+n <= len(s.lines)
}

// pagerScrollKeys are less's commands whose effect the document model
// predicts.
const pagerScrollKeys = "jkb g"

// pagerDoneKeys are keys after which less waits for a new command with
// no count or prefix pending: its commands (not digits, not m ' - and the
// like, which take more keys).
const pagerDoneKeys = "jkbgG nNpP%qfyedu"

// pagerScroll predicts k, one of less's scrolls (pagerScrollKeys) typed
// while it waits for a command, reporting whether it did: every content
// row of the screen after it, from the document, when its lines are all
// known. The base is the screen the server shows, when it shows every
// key typed before (in sync, computed before the key was predicted) and
// is placed in the document, or the screen predicted after the key
// before, a scroll too.
func (e *Engine) pagerScroll(k *key, fb *vt.Framebuffer) bool {
	if !e.fresh || len(e.log) == 0 {
		return false // re-based (pagerCatchUp does it), or nothing known of what was typed before
	}
	inSync := e.inSync()
	prev := &e.log[len(e.log)-1]
	var s *pagerSeg
	var top int
	switch {
	case prev.pgSeg != nil && prev.frame > e.link.EchoAck:
		// The key before is a scroll still in flight, predicted.
		s, top = prev.pgSeg.resolve(prev.pgTop)
	case inSync && pagerDone(prev):
		var ok bool
		if s, top, ok = e.pager.at(fb); !ok {
			s = nil
		} else if k.r == ' ' || k.r == 'b' {
			k.pgFrom, k.pgFromTop = s, top
		}
	}
	if s == nil {
		return false
	}
	to, ok := e.pager.scroll(s, top, k.r)
	if !ok {
		return false
	}
	return e.modelled(k, fb, func(k *key, fb *vt.Framebuffer, _ *cursorPred) bool {
		e.pagerPredict(k, fb, s, top, to)
		return true
	})
}

// pagerDone reports whether less waits for a new command after k, with
// no count or prefix pending.
func pagerDone(k *key) bool {
	return k.kind == keyReturn || k.kind == keyPrint && k.mode.mode == modePager && strings.ContainsRune(pagerDoneKeys, k.r)
}

// pagerPredict predicts the content rows after scroll k from a screen
// whose top is line top of s to one whose top is line to.
func (e *Engine) pagerPredict(k *key, fb *vt.Framebuffer, s *pagerSeg, top, to int) {
	n := e.h - 1
	if !e.pager.joinsOK && s.crosses(min(top, to), max(top, to)+n) {
		// Hidden until the server shows it: the window the join
		// assumed is not known yet.
		e.becomeTentative()
		k.pgLink, k.probe = true, true
		e.initCursor(fb, k)
	}
	for y := range n {
		line := s.lines[to+y].cells
		row := e.row(y)
		for x := range row {
			p := &row[x]
			e.startCell(p, k, fb.Cell(x, y))
			p.unknown, p.cont, p.repl = false, line[x].IsContinuation(), line[x]
			p.pager = true
		}
	}
	e.cursor().expire(k)
	e.cursor().pager = true
	k.pgSeg, k.pgTop = s, to
}

// pagerCatchUp predicts, when the server's screen shows less waiting for
// a command after every key typed up to some scrolls it has not received
// yet, those scrolls again from that screen: typed while an earlier key
// (a search, n, a count and %) was in flight, they had no base. Keys
// typed after them then follow at once. The scrolls are shown at once if
// the server has shown each before as predicted (trusted), and hidden
// until it does otherwise.
func (e *Engine) pagerCatchUp(fb *vt.Framebuffer) {
	if e.mode == Experimental || e.link.EchoAck < e.barrier {
		return
	}
	first := sort.Search(len(e.log), func(i int) bool { return e.log[i].frame > e.link.EchoAck })
	if first == 0 || first == len(e.log) || e.log[first].frame <= max(e.link.Acked, e.link.EchoAck) || !pagerDone(&e.log[first-1]) {
		return // nothing in flight, or keys received that the screen may or may not show
	}
	for i := first; i < len(e.log); i++ {
		if k := &e.log[i]; k.kind != keyPrint || k.mode.mode != modePager || !strings.ContainsRune(pagerScrollKeys, k.r) {
			return
		}
	}
	s, top, ok := e.pager.at(fb)
	if !ok {
		return
	}
	// The keys whose screens are known, and whether one of them is not
	// predicted yet.
	end, missing := first, false
	for to := top; end < len(e.log); end++ {
		if to, ok = e.pager.scroll(s, to, e.log[end].r); !ok {
			break
		}
		missing = missing || e.log[end].pgSeg == nil
	}
	if !missing {
		return
	}
	e.logf.Printf("pager: catching up on keys %d to %d of %d", first, end, len(e.log))
	e.clearPredictions()
	e.becomeTentative()
	epoch := e.predEpoch
	shown := true
	for i := first; i < end; i++ {
		k := &e.log[i]
		to, _ := e.pager.scroll(s, top, k.r)
		k.opaque, k.probe = false, false
		e.initCursor(fb, k)
		e.pagerPredict(k, fb, s, top, to)
		k.hasCursor = true
		k.cx, k.cy = e.cursor().col, e.cursor().row
		if tk := (trustKey{modePager, k.r}); !e.trusted[tk] || k.pgLink {
			shown = false
			k.probe = true
			if e.probes == nil {
				e.probes = map[trustKey]uint64{}
			}
			e.probes[tk] = e.predEpoch
		}
		top = to
	}
	for i := end; i < len(e.log); i++ {
		e.log[i].pgSeg, e.log[i].opaque = nil, true
	}
	if shown && e.predEpoch == epoch {
		e.confEpoch = epoch
		e.stats.Quick++
	}
}

// pagerShows reports whether fb shows the screen predicted after k, a
// scroll: every content row as in the document, and less's prompt.
func (e *Engine) pagerShows(fb *vt.Framebuffer, k *key) bool {
	s, top := k.pgSeg.resolve(k.pgTop)
	w, h := fb.Size()
	x, y := fb.Cursor()
	if s == nil || w != e.pager.w || h != e.pager.h || top+h-1 > len(s.lines) || x != 1 || y != h-1 || fb.Row(h-1).Text() != ":" {
		return false
	}
	for y := range h - 1 {
		if l, _ := cellsHash(fb.Row(y).Cells()); l != s.lines[top+y].hash {
			return false
		}
	}
	return true
}

// pagerTop reports whether the server's screen, showing the keys
// log[:n] all echoed, is the top of the document: the last key is g,
// typed with no count before it.
func (e *Engine) pagerTop(n int) bool {
	if n < 1 {
		return false
	}
	k := &e.log[n-1]
	return k.kind == keyPrint && k.r == 'g' && k.mode.mode == modePager && k.pgClean
}

// crosses reports whether a join lies within lines lo to hi (a join at
// line i is between lines i-1 and i).
func (s *pagerSeg) crosses(lo, hi int) bool {
	for _, j := range s.joins {
		if j > lo && j <= hi {
			return true
		}
	}
	return false
}

// pagerAfter returns the last of the keys log[:n], all echoed, when it
// is a space or b typed on a screen placed in the document.
func (e *Engine) pagerAfter(n int) *key {
	if n == 0 {
		return nil
	}
	if k := &e.log[n-1]; k.pgFrom != nil {
		return k
	}
	return nil
}

// pagerPrompt reports whether fb shows less waiting for a command: ":"
// alone on the bottom row, the cursor after it.
func pagerPrompt(fb *vt.Framebuffer) bool {
	x, y := fb.Cursor()
	h := fb.Height()
	return h >= 2 && x == 1 && y == h-1 && fb.Row(h-1).Text() == ":"
}

// pagerDrawing reports whether fb may show less still drawing the screen
// after a scroll: not its prompt, within pagerDrawWait of the echo ack
// that made the scroll's prediction due. Less writes the rows, then the
// prompt, and the server may send the screen between two of its writes
// with that echo ack; the rows are judged against the screen that
// shows the prompt again.
func (e *Engine) pagerDrawing(fb *vt.Framebuffer) bool {
	return !pagerPrompt(fb) && e.now.Sub(e.echoAt) < pagerDrawWait
}

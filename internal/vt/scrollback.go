package vt

// Native scrollback (spec section 12.3). A gosh server records every line
// that scrolls off the top of its primary screen in a bounded [History];
// the server's state (package statesync) carries the lines its client has
// not yet taken in an append-only log, sent in diffs as an Instruction
// extension that stock Mosh never receives; and the client moves them into
// the user's terminal's own scrollback with [Display.PushLines], so that
// the terminal's scrollbar, search and copy work on them as they would
// under ssh.

// ScrollLine is one line that scrolled off the top of the server's
// primary screen.
type ScrollLine struct {
	// Line is the line's number in the server's history: the lines that
	// ever scrolled off, counted from 0. A gap between two lines a client
	// receives is lines the server no longer had.
	Line uint64
	// Text is the line's cells as SGR sequences and characters (see
	// [History]), trailing default blanks left out.
	Text []byte
	// Width is how many columns the screen had.
	Width int
	// Wrapped reports that the text continues on the next line
	// (autowrap), so a terminal may join the two when copying.
	Wrapped bool
}

// lineOverhead is about what a held line costs beyond its Text.
const lineOverhead = 64

// History is a server's bounded record of the lines that scrolled off the
// top of its primary screen, oldest first, numbered from 0 over the
// session: at most a given number of lines, and about 256 bytes of text
// per line on average, the oldest dropped first. Lines are kept in their
// wire form ([ScrollLine.Text]), rendered with every gosh style.
//
// Only lines that leave the screen by a line feed or SU with the scroll
// region's top at the top of the screen are recorded, as xterm saves
// them; nothing is recorded while the alternate screen is shown.
type History struct {
	max      int // lines
	maxBytes int
	lines    []ScrollLine // lines[head:] are held
	head     int
	first    uint64 // the number of lines[head]
	bytes    int
	onRecord func()
}

// OnRecord makes h call f after recording each line (while the emulator
// is feeding; f must not feed it).
func (h *History) OnRecord(f func()) { h.onRecord = f }

// historyBytesPerLine is the average text per line a History may hold.
const historyBytesPerLine = 256

// NewHistory returns an empty history of at most maxLines lines.
func NewHistory(maxLines int) *History {
	maxLines = max(maxLines, 0)
	return &History{max: maxLines, maxBytes: maxLines * historyBytesPerLine}
}

// Total returns the number of lines ever recorded (the number the next
// one gets).
func (h *History) Total() uint64 { return h.first + uint64(len(h.lines)-h.head) }

// First returns the number of the oldest line held.
func (h *History) First() uint64 { return h.first }

// Line returns line n, if it is held. Its Text must not be modified.
func (h *History) Line(n uint64) (ScrollLine, bool) {
	if n < h.first || n >= h.Total() {
		return ScrollLine{}, false
	}
	return h.lines[h.head+int(n-h.first)], true
}

// Footprint is about how many bytes the held lines take.
func (h *History) Footprint() int { return h.bytes + lineOverhead*(len(h.lines)-h.head) }

// record appends row (the screen had width w).
func (h *History) record(r *Row, w int) {
	if h.max == 0 {
		return
	}
	text := lineDisplay.appendLine(nil, r)
	h.lines = append(h.lines, ScrollLine{Line: h.Total(), Text: text, Width: w, Wrapped: r.wrap})
	h.bytes += len(text)
	for len(h.lines)-h.head > h.max || (h.bytes > h.maxBytes && len(h.lines)-h.head > 1) {
		h.bytes -= len(h.lines[h.head].Text)
		h.lines[h.head] = ScrollLine{}
		h.head++
		h.first++
	}
	if h.head > len(h.lines)/2 && h.head > 64 {
		h.lines = append(h.lines[:0], h.lines[h.head:]...)
		h.head = 0
	}
	if h.onRecord != nil {
		h.onRecord()
	}
}

// appendLine appends row r's cells as SGR sequences and characters:
// renditions under d's profile (hyperlinks left out), trailing blanks of
// the default rendition left out, ending in the default rendition if it
// changed.
func (d *Display) appendLine(b []byte, r *Row) []byte {
	end := len(r.cells)
	for end > 0 && r.cells[end-1].IsBlank() && r.cells[end-1].Rend == (Rendition{}) {
		end--
	}
	var cur Rendition
	for x := range end {
		c := &r.cells[x]
		if c.IsContinuation() {
			continue
		}
		rend := d.mask.apply(c.Rend)
		rend.Link = 0
		if rend != cur {
			b = d.appendSGR(b, rend)
			cur = rend
		}
		b = c.AppendText(b)
	}
	if cur != (Rendition{}) {
		b = append(b, "\x1b[0m"...)
	}
	return b
}

// Row returns the line as a row of w cells: its text interpreted on a
// screen of its own width, then cut or extended to w. The row is not
// marked wrapped; see [ScrollLine.Wrapped].
func (l ScrollLine) Row(w int) *Row {
	e := NewEmulator(max(l.Width, 1), 1)
	e.Feed(l.Text, nil)
	fb := e.Framebuffer()
	fb.Resize(w, 1)
	r := fb.rows[0]
	r.wrap = false
	return r
}

// recordScroll records the n rows about to scroll off the top of the
// screen in the history, if there is one and they leave the primary
// screen's top.
func (fb *Framebuffer) recordScroll(n int) {
	if fb.hist == nil || fb.top != 0 || fb.modes.AltScreen {
		return
	}
	for _, r := range fb.rows[:min(n, fb.bottom+1)] {
		fb.hist.record(r, fb.w)
	}
}

// PushLines appends to dst the bytes that move lines, oldest first, into
// the scrollback of a terminal showing shown (nil: unknown content), and
// returns what the terminal shows afterwards, for the next [NewFrame]. It
// paints up to a screenful of lines at the top of the screen, where they
// are usually shown already (the differ then writes nothing), and scrolls
// them off with line feeds at the bottom of a full-screen scroll region,
// which terminals keep; the rows below move up, blank rows enter at the
// bottom, and the cursor is left at the bottom left in the default
// rendition. lines are not modified; their Wrapped flags make a wrapped
// line continue onto the next in the terminal's history where both are
// in one screenful. It is [Display.DrawLines] and [Display.FeedLines] in
// turn until every line is pushed.
func (d *Display) PushLines(dst []byte, shown *Framebuffer, w, h int, lines []ScrollLine) ([]byte, *Framebuffer) {
	for len(lines) > 0 {
		var k int
		dst, shown, k = d.DrawLines(dst, shown, w, h, lines)
		dst, shown = d.FeedLines(dst, shown, k)
		lines = lines[k:]
	}
	return dst, shown
}

// DrawLines appends to dst the bytes that paint the first of lines, a
// screenful at most, on the top rows of a terminal showing shown (nil, or
// of another size than w×h: unknown content), and returns what it shows
// then and how many lines are on its top rows, for [Display.FeedLines].
// Rows that show their line already are not written; the other rows stay
// as they were. Nothing scrolls. A wrapped line is left for the next
// screenful with its continuation rather than cut from it.
func (d *Display) DrawLines(dst []byte, shown *Framebuffer, w, h int, lines []ScrollLine) ([]byte, *Framebuffer, int) {
	init := shown != nil && shown.w == w && shown.h == h
	if !init {
		shown = NewFramebuffer(w, h)
	}
	k := min(len(lines), shown.h)
	if k < len(lines) && k > 1 && lines[k-1].Wrapped {
		k-- // keep a wrapped line on the screen with its continuation
	}
	t := shown.Clone()
	for i, l := range lines[:k] {
		r := l.Row(t.w)
		r.wrap = l.Wrapped && i < k-1
		t.rows[i] = r
	}
	return d.NewFrame(dst, init, shown, t), t, k
}

// FeedLines appends to dst the bytes that scroll the top k rows of a
// terminal showing shown into its scrollback: line feeds on its last row
// in a full-screen scroll region, the last row reached by clamping so
// that they scroll whatever its height is by then. It returns what the
// terminal shows afterwards: the rows below moved up, blank rows at the
// bottom, the cursor at the bottom left in the default rendition.
func (d *Display) FeedLines(dst []byte, shown *Framebuffer, k int) ([]byte, *Framebuffer) {
	if k <= 0 {
		return dst, shown
	}
	dst = append(dst, "\x1b[0m\x1b[r\x1b["...)
	dst = appendUint(dst, max(shown.h, 999))
	dst = append(dst, ";1H"...)
	for range k {
		dst = append(dst, '\n')
	}
	shown = shown.Clone()
	shown.rend = Rendition{}
	shown.scrollUp(0, shown.h-1, k)
	shown.unwrapBottom()
	shown.x, shown.y, shown.wrapNext = 0, shown.h-1, false
	return dst, shown
}

// EnableHistory makes e record the lines that scroll off the top of its
// primary screen, as a terminal keeps its scrollback, in a new [History]
// of at most maxLines lines, which it returns. Clones do not record.
func (e *Emulator) EnableHistory(maxLines int) *History {
	h := NewHistory(maxLines)
	e.t.fb.hist = h
	return h
}

// Texts returns the text of every line h holds, oldest first, trailing
// blanks removed.
func (h *History) Texts() []string {
	var out []string
	for n := h.First(); n < h.Total(); n++ {
		l, _ := h.Line(n)
		out = append(out, l.Row(max(l.Width, 1)).Text())
	}
	return out
}

// lineDisplay renders rows as scrollback lines, with every gosh style.
var lineDisplay = NewDisplay(WireDisplayCaps(CapStyles))

// LineOf returns row r as a scrollback line (see [ScrollLine.Text]),
// numbered n.
func LineOf(r *Row, n uint64) ScrollLine {
	return ScrollLine{Line: n, Text: lineDisplay.appendLine(nil, r), Width: len(r.cells), Wrapped: r.wrap}
}

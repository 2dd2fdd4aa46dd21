package vt

// Emulator is a terminal emulator: a [Parser] driving a [Framebuffer].
// Host output goes in through [Emulator.Feed]; answers to queries (DA, DSR,
// CPR, DECRQM, XTWINOPS 18) come back as its return value, never through a
// pipe, so they can be written to the host (or discarded) by the caller.
//
// An Emulator is not safe for concurrent use.
type Emulator struct {
	p Parser
	t terminal
}

// terminal implements [Handler] on a framebuffer.
type terminal struct {
	fb    *Framebuffer
	reply []byte
}

// NewEmulator returns an emulator with a blank w×h screen.
func NewEmulator(w, h int) *Emulator {
	return &Emulator{t: terminal{fb: NewFramebuffer(w, h)}}
}

// Replay returns what a terminal showing fb shows after it read p, bytes
// a [Display] wrote (read with the modes a differ assumes), and how many
// rows p scrolled off the top of its primary screen, which a terminal
// keeps in its scrollback. A client replays with it a write that landed on
// a screen that had changed since it made the write. fb is not modified.
func Replay(fb *Framebuffer, p []byte) (*Framebuffer, uint64) {
	e := &Emulator{t: terminal{fb: fb.Clone()}}
	h := e.EnableHistory(1)
	e.FeedFrame(p)
	e.t.fb.hist = nil
	return e.t.fb, h.Total()
}

// Feed interprets host output p and returns reply with the answers to any
// queries in p appended. It keeps no reference to p.
func (e *Emulator) Feed(p, reply []byte) []byte {
	e.t.reply = reply
	e.p.Feed(p, &e.t)
	reply, e.t.reply = e.t.reply, nil
	return reply
}

// FeedFrame interprets p, bytes a [Display] wrote, as a terminal that
// only ever reads frames does: the modes no frame changes but every frame
// relies on (full-screen scroll region, origin and insert mode off,
// autowrap on, ASCII character set, no pending wrap) are put back to
// their defaults first, and answers to queries are discarded. They are
// at their defaults already unless e also read other output.
func (e *Emulator) FeedFrame(p []byte) {
	e.t.fb.assumeDiffModes()
	e.Feed(p, nil)
}

// Framebuffer returns the screen. It stays valid until the next Feed or
// Resize, which modify it in place.
func (e *Emulator) Framebuffer() *Framebuffer { return e.t.fb }

// Resize changes the screen size (see [Framebuffer.Resize]).
func (e *Emulator) Resize(w, h int) { e.t.fb.Resize(w, h) }

// Clone returns a deep copy of e, including a partially parsed sequence.
func (e *Emulator) Clone() *Emulator {
	return &Emulator{p: e.p.clone(), t: terminal{fb: e.t.fb.Clone()}}
}

// Print implements [Handler].
func (t *terminal) Print(r rune) { t.fb.print(r) }

// PrintASCII implements [Handler]: the fast path for runs of ASCII text.
func (t *terminal) PrintASCII(s []byte) { t.fb.printASCII(s) }

// printASCII prints a run of bytes 0x20–0x7E.
func (fb *Framebuffer) printASCII(s []byte) {
	if fb.cs.active() || fb.insert {
		for _, b := range s {
			fb.print(rune(b))
		}
		return
	}
	rend := fb.rend
	for len(s) > 0 {
		if fb.wrapNext {
			fb.wrap()
		}
		row := fb.mrow(fb.y)
		x0 := fb.x
		n := min(len(s), fb.w-x0)
		row.fixWide(x0, x0+n)
		cells := row.cells[x0 : x0+n]
		for i, b := range s[:n] {
			r := rune(b)
			if r == ' ' {
				r = 0
			}
			cells[i].set(r, 0, rend)
		}
		fb.lastRune = rune(s[n-1])
		fb.writes += uint64(n)
		s = s[n:]
		fb.combX, fb.combY = x0+n-1, fb.y
		fb.x = x0 + n
		if fb.x < fb.w {
			continue
		}
		fb.x = fb.w - 1
		if !fb.noAutowrap {
			fb.wrapNext = true
			continue
		}
		if len(s) > 0 { // no autowrap: the rest overwrites the last column
			fb.print(rune(s[len(s)-1]))
			s = nil
		}
	}
}

// print draws one graphic character (Mosh's rules, spec section 10.5).
func (fb *Framebuffer) print(r rune) {
	r = fb.cs.translate(r)
	w := Width(r)
	switch {
	case w < 0 || w > fb.w:
		return
	case w == 0:
		fb.combine(r)
		return
	}
	autowrap := !fb.noAutowrap
	switch {
	case fb.wrapNext && autowrap:
		fb.wrap()
	case w == 2 && fb.x == fb.w-1:
		if !autowrap {
			return // does not fit and cannot wrap
		}
		row := fb.mrow(fb.y)
		row.fixWide(fb.x, fb.x+1)
		row.cells[fb.x] = Cell{Rend: fb.erase()}
		row.wrap = false
		fb.x = 0
		fb.lineFeed()
	}
	if fb.insert {
		fb.insertCells(w)
	}
	fb.putCell(r, w)
	fb.lastRune = r
}

// putCell writes r (w columns) at the cursor and advances it.
func (fb *Framebuffer) putCell(r rune, w int) {
	row := fb.mrow(fb.y)
	x := fb.x
	row.fixWide(x, x+w)
	if r == ' ' {
		r = 0
	}
	if w == 2 {
		row.cells[x].set(r, cellWide, fb.rend)
		row.cells[x+1].set(0, cellCont, fb.rend)
	} else {
		row.cells[x].set(r, 0, fb.rend)
	}
	fb.combX, fb.combY = x, fb.y
	fb.writes++
	fb.x += w
	fb.wrapNext = false
	if fb.x >= fb.w {
		fb.x = fb.w - 1
		fb.wrapNext = !fb.noAutowrap
	}
}

// combine appends a zero-width character to the cell of the last printed
// grapheme. On an empty cell it becomes U+00A0 plus the mark, and if that
// cell is under the cursor the cursor advances (Mosh's fallback).
func (fb *Framebuffer) combine(r rune) {
	x, y := fb.combX, fb.combY
	if x < 0 || y < 0 || x >= fb.w || y >= fb.h {
		return
	}
	row := fb.mrow(y)
	c := row.cells[x]
	if c.flags&cellCont != 0 {
		return
	}
	blank := c.r == 0 && c.comb == nil
	row.cells[x] = c.addCombining(r)
	if blank && x == fb.x && y == fb.y && !fb.wrapNext {
		fb.x++
		if fb.x >= fb.w {
			fb.x = fb.w - 1
			fb.wrapNext = !fb.noAutowrap
		}
	}
}

// repeat implements REP: print the last graphic character n more times,
// at most one line's worth (the screen width), so that a REP costs no more
// than an erase; ncurses, its main user, repeats only within a line.
func (fb *Framebuffer) repeat(n int) {
	if fb.lastRune == 0 {
		return
	}
	r := fb.lastRune
	n = min(n, fb.w)
	saved := fb.cs
	fb.cs = charsetState{} // already translated
	if r >= 0x20 && r < 0x7F && !fb.insert {
		if cap(fb.repBuf) < n {
			fb.repBuf = make([]byte, n)
		}
		buf := fb.repBuf[:n]
		for i := range buf {
			buf[i] = byte(r)
		}
		fb.printASCII(buf)
	} else {
		for range n {
			fb.print(r)
		}
	}
	fb.cs = saved
}

// Execute implements [Handler] for C0 and C1 controls.
func (t *terminal) Execute(c rune) {
	fb := t.fb
	switch c {
	case 0x07: // BEL
		fb.bell++
	case 0x08: // BS
		fb.moveTo(fb.x-1, fb.y)
	case 0x09: // HT keeps a pending wrap
		fb.x = fb.nextTab(fb.x, 1)
		fb.combX, fb.combY = fb.x, fb.y
	case 0x0A, 0x0B, 0x0C, 0x84: // LF, VT, FF, IND
		fb.lineFeed()
		fb.combX, fb.combY = fb.x, fb.y
	case 0x0D: // CR
		fb.moveTo(0, fb.y)
	case 0x0E: // SO: G1 into GL
		fb.cs.gl = 1
	case 0x0F: // SI: G0 into GL
		fb.cs.gl = 0
	case 0x85: // NEL
		fb.x = 0
		fb.lineFeed()
		fb.combX, fb.combY = fb.x, fb.y
	case 0x88: // HTS
		fb.mtabs()[fb.x] = true
	case 0x8D: // RI
		fb.reverseIndex()
		fb.combX, fb.combY = fb.x, fb.y
	case 0x8E, 0x8F: // SS2, SS3
		fb.cs.ss = uint8(c - 0x8E + 2)
	case 0x00:
	default:
		fb.wrapNext = false // unknown controls clear the pending wrap (Mosh)
	}
}

// DCSHook implements [Handler]; device control strings are ignored.
func (t *terminal) DCSHook(*Sequence) {}

// DCSPut implements [Handler].
func (t *terminal) DCSPut(rune) {}

// DCSUnhook implements [Handler].
func (t *terminal) DCSUnhook() {}

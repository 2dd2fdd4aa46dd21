package vt

// Display computes the escape stream that turns one screen into another
// (Mosh's Display::new_frame, spec section 9). The same differ produces the
// host diff on the wire (profile [WireDisplayCaps]) and what a client
// writes to the user's terminal (e.g. [XtermDisplayCaps]).
//
// Feeding NewFrame(true, a, b) to a gosh [Emulator] that shows a (having
// reached it through earlier frames) makes it show b, as far as the
// profile can express b; NewFrame(false, nil, b) does the same from any
// screen content, assuming only that the terminal's own modes (autowrap
// on, insert and origin mode off, ASCII character set) are at their
// defaults, which no frame ever changes. The receiver's pending-wrap state
// is never relied upon. A Display keeps scratch buffers and is not safe
// for concurrent use.
type Display struct {
	caps  DisplayCaps
	mask  renditionMask
	old   []*Row // scratch: the receiver's rows during a frame
	blank *Row   // scratch: a default blank row
}

// NewDisplay returns a differ for a terminal with the given capabilities.
func NewDisplay(caps DisplayCaps) *Display {
	return &Display{caps: caps, mask: caps.mask()}
}

// Caps returns the capabilities d was created with.
func (d *Display) Caps() DisplayCaps { return d.caps }

// SameScreen reports whether a and b look the same on a terminal of d's
// profile, so that a frame between them would be empty: [Framebuffer.Equal]
// with renditions compared as the profile shows them, the cursor style
// only with [CapCursorStyle], hyperlink targets only with
// [CapHyperlinks], and, with [CapAltScreen], which screen is shown.
func (d *Display) SameScreen(a, b *Framebuffer) bool {
	if d.caps.Ext&CapAltScreen != 0 && a.modes.AltScreen != b.modes.AltScreen {
		return false
	}
	return a.equalMasked(b, d.mask, d.caps.Ext&CapCursorStyle != 0)
}

// frame is the differ's model of the receiving terminal during NewFrame.
type frame struct {
	d          *Display
	out        []byte
	last, next *Framebuffer
	w, h       int
	x, y       int
	colKnown   bool // x is certain (false after writing the last column)
	rowKnown   bool
	visible    bool
	rend       Rendition // masked, without link
	raw        Rendition // the unmasked rendition rend was last derived from
	link       string    // current hyperlink target
	contRow    int       // row whose first cell must be printed next (autowrap), or -1
	init       bool
	lastKnown  bool // last was given (a bell counter to compare with)
}

// NewFrame appends to dst the bytes that change a terminal showing last
// into one showing next. With initialized false nothing is assumed about
// the terminal (last may then be nil) and the whole screen is drawn.
//
// Output order: bell, titles, clipboard, reverse video, reset on size
// change, scrolling, changed rows, cursor position, cursor visibility,
// cursor style, rendition, hyperlink, then the mirrored modes (bracketed
// paste, mouse reporting, focus events, mouse encoding).
func (d *Display) NewFrame(dst []byte, initialized bool, last, next *Framebuffer) []byte {
	lastKnown := last != nil
	if last == nil {
		last, initialized = NewFramebuffer(next.w, next.h), false
	}
	f := frame{d: d, out: dst, last: last, next: next, w: next.w, h: next.h, contRow: -1, lastKnown: lastKnown}
	f.init = initialized
	f.preamble()
	f.startState()
	d.loadOld(&f)
	if f.init {
		f.scroll()
	}
	for y := range f.h {
		f.putRow(y)
	}
	f.epilogue()
	return f.out
}

// preamble emits bell, titles, clipboard and reverse video (steps 1–4).
func (f *frame) preamble() {
	last, next, caps := f.last, f.next, f.d.caps
	if f.lastKnown && next.bell != last.bell {
		// One BEL per bell rung since last, up to maxBells, so that the
		// receiver's counter follows.
		n := uint64(1)
		if next.bell > last.bell {
			n = min(next.bell-last.bell, maxBells)
		}
		for range n {
			f.out = append(f.out, '\a')
		}
	}
	if caps.Titles && next.titleSet && (!f.init || next.title != last.title || next.icon != last.icon) {
		f.titles()
	}
	if next.clip != last.clip {
		f.clipboard()
	}
	if !f.init || next.modes.ReverseVideo != last.modes.ReverseVideo {
		f.out = appendMode(f.out, 5, next.modes.ReverseVideo)
	}
}

func (f *frame) titles() {
	next := f.next
	if next.icon == next.title {
		f.out = append(f.out, "\x1b]0;"...)
		f.out = append(append(f.out, next.title...), '\a')
		return
	}
	f.out = append(f.out, "\x1b]1;"...)
	f.out = append(append(f.out, next.icon...), '\a')
	f.out = append(f.out, "\x1b]2;"...)
	f.out = append(append(f.out, next.title...), '\a')
}

func (f *frame) clipboard() {
	c := f.next.clip
	sel := c.Selection
	if f.d.caps.Ext&CapLongOSC == 0 {
		sel = "c"
		if len(c.Data)+len("52;c;") > moshOSCLimit {
			return // a stock peer would keep a cut, corrupt copy
		}
	}
	f.out = append(f.out, "\x1b]52;"...)
	f.out = append(append(f.out, sel...), ';')
	f.out = append(append(f.out, c.Data...), '\a')
}

// startState resets the terminal on a size change or a first frame
// (steps 5–6), else takes the receiver's state from last. A profile with
// CapAltScreen first switches screens if next is on the other one (or
// says which one, for a first frame), and then draws the whole of it.
func (f *frame) startState() {
	last, next := f.last, f.next
	if alt := next.modes.AltScreen; f.d.caps.Ext&CapAltScreen != 0 && (!f.init || alt != last.modes.AltScreen) {
		f.out = appendMode(f.out, 1049, alt)
		f.init = false
	}
	if !f.init || last.w != next.w || last.h != next.h {
		if f.d.caps.KeepHistory {
			// Clear the first row, then the rest from the second.
			f.out = append(f.out, "\x1b[r\x1b[0m\x1b[H\x1b[2K\x1b[2;1H\x1b[J\x1b[H\x1b[?25l"...)
		} else {
			f.out = append(f.out, "\x1b[r\x1b[0m\x1b[H\x1b[2J\x1b[?25l"...)
		}
		if f.d.caps.Ext&CapHyperlinks != 0 {
			f.out = append(f.out, "\x1b]8;;\x1b\\"...)
		}
		f.init = false
		f.x, f.y, f.colKnown, f.rowKnown = 0, 0, true, true
		f.rend, f.raw, f.link, f.visible = Rendition{}, Rendition{}, "", false
		return
	}
	f.x, f.y = last.x, last.y
	f.rowKnown = true
	f.colKnown = last.x < last.w-1 && !last.wrapNext
	f.rend, f.raw = f.d.mask.apply(last.rend), last.rend
	f.link = f.linkOf(last, last.rend.Link)
	f.visible = !last.cursorHidden
}

// linkOf returns the hyperlink target of id in fb, if the profile shows
// hyperlinks.
func (f *frame) linkOf(fb *Framebuffer, id uint16) string {
	if !f.d.mask.link || id == 0 {
		return ""
	}
	return fb.Link(id)
}

// loadOld fills d.old with the rows the receiver shows.
func (d *Display) loadOld(f *frame) {
	if d.blank == nil || len(d.blank.cells) != f.w {
		d.blank = &Row{cells: make([]Cell, f.w)}
	}
	d.old = d.old[:0]
	if f.init {
		d.old = append(d.old, f.last.rows...)
		return
	}
	for range f.h {
		d.old = append(d.old, d.blank)
	}
}

// epilogue emits cursor, rendition and modes (steps 9–15).
func (f *frame) epilogue() {
	last, next := f.last, f.next
	if !f.init || !f.colKnown || !f.rowKnown || f.x != next.x || f.y != next.y {
		f.move(next.x, next.y)
	}
	if vis := !next.cursorHidden; !f.init || vis != f.visible {
		f.out = appendMode(f.out, 25, vis)
	}
	if f.d.caps.Ext&CapCursorStyle != 0 && (!f.init || next.cursorStyle != last.cursorStyle) {
		f.out = append(f.out, "\x1b["...)
		f.out = appendUint(f.out, int(next.cursorStyle))
		f.out = append(f.out, " q"...)
	}
	if r := f.d.mask.apply(next.rend); !f.init || r != f.rend {
		f.out = f.d.appendSGR(f.out, r)
		f.rend, f.raw = r, next.rend
	}
	f.setLink(f.linkOf(next, next.rend.Link))
	f.modes()
}

// modes mirrors bracketed paste, mouse reporting, focus events and mouse
// encoding (steps 12–15).
func (f *frame) modes() {
	o, n := f.last.modes, f.next.modes
	if !f.init || o.BracketedPaste != n.BracketedPaste {
		f.out = appendMode(f.out, 2004, n.BracketedPaste)
	}
	if !f.init || o.Mouse != n.Mouse {
		if n.Mouse == 0 {
			f.out = append(f.out, "\x1b[?1003l\x1b[?1002l\x1b[?1001l\x1b[?1000l"...)
		} else {
			if f.init && o.Mouse != 0 {
				f.out = appendMode(f.out, int(o.Mouse), false)
			}
			f.out = appendMode(f.out, int(n.Mouse), true)
		}
	}
	if !f.init || o.FocusEvents != n.FocusEvents {
		f.out = appendMode(f.out, 1004, n.FocusEvents)
	}
	if !f.init || o.MouseEncoding != n.MouseEncoding {
		if n.MouseEncoding == 0 {
			f.out = append(f.out, "\x1b[?1015l\x1b[?1006l\x1b[?1005l"...)
		} else {
			if f.init && o.MouseEncoding != 0 {
				f.out = appendMode(f.out, int(o.MouseEncoding), false)
			}
			f.out = appendMode(f.out, int(n.MouseEncoding), true)
		}
	}
}

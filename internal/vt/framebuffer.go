package vt

import "slices"

// CursorStyle is the cursor shape set by DECSCUSR (CSI Ps SP q); the values
// are Ps. The zero value is the terminal's default.
type CursorStyle uint8

// Cursor styles.
const (
	CursorDefault CursorStyle = iota
	CursorBlinkingBlock
	CursorSteadyBlock
	CursorBlinkingUnderline
	CursorSteadyUnderline
	CursorBlinkingBar
	CursorSteadyBar
)

// MouseMode is the mouse reporting mode: 0 or one of the DEC private mode
// numbers 9, 1000, 1001, 1002, 1003.
type MouseMode uint16

// MouseEncoding is the mouse report encoding: 0 (default) or one of the DEC
// private mode numbers 1005, 1006, 1015.
type MouseEncoding uint16

// Modes are the terminal modes a client mirrors on the user's terminal
// and the ones the server needs. See [Framebuffer.Modes].
type Modes struct {
	ReverseVideo   bool          // DECSCNM, ?5
	BracketedPaste bool          // ?2004
	Mouse          MouseMode     // ?9, ?1000–?1003
	MouseEncoding  MouseEncoding // ?1005, ?1006, ?1015
	FocusEvents    bool          // ?1004
	AltScroll      bool          // ?1007 (stored, not transmitted)
	AppCursorKeys  bool          // DECCKM ?1 (not transmitted)
	AppKeypad      bool          // DECKPAM / DECKPNM (not transmitted)
	AltScreen      bool          // ?47, ?1047, ?1049 active (not transmitted)
}

// Clipboard is the last OSC 52 selection set by the host. As in Mosh,
// copying the same text again is not a change.
type Clipboard struct {
	Selection string // the Pc parameter, e.g. "c"
	Data      string // base64 as sent (not validated), or "?" for a query
}

// savedCursor is what DECSC saves.
type savedCursor struct {
	valid    bool
	x, y     int
	rend     Rendition
	wrapNext bool
	autowrap bool
	origin   bool
	cs       charsetState
}

// Framebuffer is a terminal screen: rows of cells, the cursor, the drawing
// rendition, modes, titles, clipboard and bell counter, plus the emulator
// state that is not displayed (scroll region, tab stops, saved cursor,
// character sets).
//
// Rows are shared copy-on-write between a framebuffer and its clones, so
// [Framebuffer.Clone] costs one slice copy. A Framebuffer is not safe for
// concurrent use, and Clone modifies the receiver's bookkeeping.
type Framebuffer struct {
	w, h    int
	rows    []*Row
	owner   *rowOwner
	lastGen uint64
	scratch []*Row

	x, y         int // cursor
	wrapNext     bool
	rend         Rendition
	cursorHidden bool
	cursorStyle  CursorStyle
	modes        Modes

	title, icon string
	titleSet    bool
	clip        Clipboard
	bell        uint64
	links       []string // hyperlink targets, id = index + 1
	writes      uint64   // cells printed (amortizes link compaction)
	compacted   uint64   // writes at the last link compaction

	// Emulator state that is not displayed.
	top, bottom  int // scroll region, inclusive
	insert       bool
	origin       bool
	noAutowrap   bool
	tabs         []bool
	tabsShared   bool
	noDefaultTab bool
	saved        savedCursor
	cs           charsetState
	combX, combY int // cell of the last printed grapheme, or -1
	lastRune     rune
	repBuf       []byte // scratch for REP
	mainRows     []*Row // the normal screen while the alternate one is shown
	altSaved     savedCursor
	hist         *History // where rows scrolling off go (a server's live screen only)
}

// NewFramebuffer returns a blank w×h framebuffer with the cursor at the
// top left and default modes. Sizes are clamped to [1, MaxCols]×[1, MaxRows].
func NewFramebuffer(w, h int) *Framebuffer {
	w, h = clampSize(w, h)
	fb := &Framebuffer{w: w, h: h, owner: new(rowOwner)}
	fb.rows = make([]*Row, h)
	for i := range fb.rows {
		fb.rows[i] = fb.newRow(Rendition{})
	}
	fb.resetState()
	return fb
}

func clampSize(w, h int) (int, int) {
	return min(max(w, 1), MaxCols), min(max(h, 1), MaxRows)
}

// resetState sets the non-row state to power-on defaults.
func (fb *Framebuffer) resetState() {
	fb.x, fb.y, fb.wrapNext = 0, 0, false
	fb.rend = Rendition{}
	fb.cursorHidden, fb.cursorStyle = false, CursorDefault
	fb.modes = Modes{}
	fb.top, fb.bottom = 0, fb.h-1
	fb.insert, fb.origin, fb.noAutowrap = false, false, false
	fb.noDefaultTab = false
	fb.tabs, fb.tabsShared = nil, false
	fb.resetTabs()
	fb.saved = savedCursor{}
	fb.cs = charsetState{}
	fb.combX, fb.combY = -1, -1
	fb.lastRune = 0
}

// newRow returns a blank row of the current width with a fresh generation.
func (fb *Framebuffer) newRow(rend Rendition) *Row {
	fb.lastGen++
	r := &Row{cells: make([]Cell, fb.w), gen: fb.lastGen, owner: fb.owner}
	r.fill(0, fb.w, rend)
	return r
}

// recycle blanks r for reuse if this framebuffer owns it, else allocates.
func (fb *Framebuffer) recycle(r *Row, rend Rendition) *Row {
	if r.owner != fb.owner || len(r.cells) != fb.w {
		return fb.newRow(rend)
	}
	fb.lastGen++
	r.gen, r.wrap = fb.lastGen, false
	r.fill(0, fb.w, rend)
	return r
}

// mrow returns row y, copying it first if it is shared with a clone.
func (fb *Framebuffer) mrow(y int) *Row {
	r := fb.rows[y]
	if r.owner != fb.owner {
		r = r.clone(fb.owner)
		fb.rows[y] = r
	}
	return r
}

// Clone returns a deep copy of fb (rows are shared copy-on-write).
func (fb *Framebuffer) Clone() *Framebuffer {
	c := *fb
	c.rows = slices.Clone(fb.rows)
	c.mainRows = slices.Clone(fb.mainRows)
	c.scratch, c.repBuf, c.hist = nil, nil, nil
	fb.owner, c.owner = new(rowOwner), new(rowOwner)
	fb.links = fb.links[:len(fb.links):len(fb.links)]
	c.links = fb.links
	fb.tabsShared, c.tabsShared = true, true
	return &c
}

// cellBytes is the memory of one Cell (checked by a test).
const cellBytes = 32

// Footprint is about how many bytes fb holds, counting every row as its
// own (rows shared with clones are counted in each), and those of the
// saved primary screen while the alternate one is shown: what a state
// holding fb reports for its memory bound.
func (fb *Framebuffer) Footprint() int {
	n := (len(fb.rows) + len(fb.mainRows)) * (fb.w*cellBytes + 64)
	n += len(fb.title) + len(fb.icon)
	for _, l := range fb.links {
		n += len(l) + 16
	}
	return n
}

// Size returns the width (columns) and height (rows).
func (fb *Framebuffer) Size() (w, h int) { return fb.w, fb.h }

// Width returns the number of columns.
func (fb *Framebuffer) Width() int { return fb.w }

// Height returns the number of rows.
func (fb *Framebuffer) Height() int { return fb.h }

// Row returns row y (0 at the top). The row must not be modified.
func (fb *Framebuffer) Row(y int) *Row { return fb.rows[y] }

// Cell returns the cell at column x, row y.
func (fb *Framebuffer) Cell(x, y int) Cell { return fb.rows[y].cells[x] }

// Cursor returns the cursor position (0-based column and row).
func (fb *Framebuffer) Cursor() (x, y int) { return fb.x, fb.y }

// CursorVisible reports whether the cursor is shown (DECTCEM).
func (fb *Framebuffer) CursorVisible() bool { return !fb.cursorHidden }

// CursorStyle returns the cursor shape set by DECSCUSR.
func (fb *Framebuffer) CursorStyle() CursorStyle { return fb.cursorStyle }

// Rendition returns the current drawing rendition (what SGR last set).
func (fb *Framebuffer) Rendition() Rendition { return fb.rend }

// Modes returns the terminal modes.
func (fb *Framebuffer) Modes() Modes { return fb.modes }

// WithRowsBelow returns a copy of fb whose rows from y on are below's (a
// screen of fb's size), or blank if below is nil: a client that draws fb
// in parts (bands of rows, one write each) models with it the terminal
// after a part.
func (fb *Framebuffer) WithRowsBelow(y int, below *Framebuffer) *Framebuffer {
	c := fb.Clone()
	for r := max(y, 0); r < c.h; r++ {
		if below != nil {
			c.rows[r] = below.rows[r].clone(c.owner)
		} else {
			c.rows[r] = c.newRow(Rendition{})
		}
	}
	return c
}

// MarkAltScreen marks fb, a copy made to be drawn, as shown on the
// alternate screen without changing its rows: a client draws the primary
// screen there while the lines that left it are still on their way
// (section 12.3), and a display with CapAltScreen switches screens for it.
func (fb *Framebuffer) MarkAltScreen() { fb.modes.AltScreen = true }

// MarkPrimaryScreen marks fb, a copy of what a terminal shows, as shown
// on the primary screen without changing its rows: a terminal that
// ignores mode 1049 draws the alternate screen on its primary one
// (section 12.3).
func (fb *Framebuffer) MarkPrimaryScreen() { fb.modes.AltScreen = false }

// Title returns the window title (OSC 0 or 2).
func (fb *Framebuffer) Title() string { return fb.title }

// IconName returns the icon name (OSC 0 or 1).
func (fb *Framebuffer) IconName() string { return fb.icon }

// TitleSet reports whether the host ever set a title or icon name.
func (fb *Framebuffer) TitleSet() bool { return fb.titleSet }

// Clipboard returns the last clipboard set by OSC 52.
func (fb *Framebuffer) Clipboard() Clipboard { return fb.clip }

// Bell returns the number of bells rung so far; only changes matter.
func (fb *Framebuffer) Bell() uint64 { return fb.bell }

// Link returns the hyperlink (OSC 8 "params;URI") with the given id, as
// found in [Rendition.Link], or "" for 0 or an unknown id.
func (fb *Framebuffer) Link(id uint16) string {
	if id == 0 || int(id) > len(fb.links) {
		return ""
	}
	return fb.links[id-1]
}

// SetCell writes c at column x, row y (for overlays on a clone). A wide
// cell also claims column x+1; it is not written in the last column.
func (fb *Framebuffer) SetCell(x, y int, c Cell) {
	if x < 0 || y < 0 || x >= fb.w || y >= fb.h || c.flags&cellCont != 0 {
		return
	}
	wide := c.flags&cellWide != 0
	if wide && x == fb.w-1 {
		return
	}
	r := fb.mrow(y)
	end := x + 1
	if wide {
		end++
	}
	r.fixWide(x, end)
	r.cells[x] = c
	if wide {
		r.cells[x+1] = Cell{flags: cellCont, Rend: c.Rend}
	}
}

// SetCursor moves the cursor (clamped to the screen), for overlays.
func (fb *Framebuffer) SetCursor(x, y int) {
	fb.x, fb.y = min(max(x, 0), fb.w-1), min(max(y, 0), fb.h-1)
	fb.wrapNext = false
}

// SetCursorVisible shows or hides the cursor, for overlays.
func (fb *Framebuffer) SetCursorVisible(v bool) { fb.cursorHidden = !v }

// SetTitle sets the icon name and window title, for overlays (such as a
// title prefix); it marks the title as set.
func (fb *Framebuffer) SetTitle(icon, title string) {
	fb.icon, fb.title, fb.titleSet = icon, title, true
}

// Equal reports whether fb and o display the same thing: size, rows (cells
// and wrap flags), cursor position, visibility and style, drawing
// rendition, reverse video, the mirrored modes, titles, clipboard data
// (the selection name is not shown), bell counter and hyperlink targets. Emulator-internal state (scroll region,
// tabs, saved cursor, DECCKM, insert/origin/autowrap modes) is ignored.
func (fb *Framebuffer) Equal(o *Framebuffer) bool { return fb.equalMasked(o, fullMask, true) }

func (fb *Framebuffer) equalMasked(o *Framebuffer, m renditionMask, style bool) bool {
	if fb == o {
		return true
	}
	if fb.w != o.w || fb.h != o.h || fb.x != o.x || fb.y != o.y ||
		fb.cursorHidden != o.cursorHidden || m.apply(fb.rend) != m.apply(o.rend) ||
		fb.bell != o.bell || fb.titleSet != o.titleSet || fb.title != o.title ||
		fb.icon != o.icon || fb.clip.Data != o.clip.Data || !shownModesEqual(fb.modes, o.modes) ||
		(style && fb.cursorStyle != o.cursorStyle) {
		return false
	}
	for y := range fb.rows {
		if !fb.rows[y].equalMasked(o.rows[y], m) {
			return false
		}
	}
	return !m.link || fb.linksEqual(o)
}

func shownModesEqual(a, b Modes) bool {
	return a.ReverseVideo == b.ReverseVideo && a.BracketedPaste == b.BracketedPaste &&
		a.Mouse == b.Mouse && a.MouseEncoding == b.MouseEncoding &&
		a.FocusEvents == b.FocusEvents
}

// linksEqual compares the targets of the hyperlinks in use.
func (fb *Framebuffer) linksEqual(o *Framebuffer) bool {
	if fb.Link(fb.rend.Link) != o.Link(o.rend.Link) {
		return false
	}
	for y, r := range fb.rows {
		or := o.rows[y]
		if r == or {
			continue // a shared row: same ids, same targets
		}
		for x := range r.cells {
			a, b := r.cells[x].Rend.Link, or.cells[x].Rend.Link
			if (a|b) != 0 && fb.Link(a) != o.Link(b) {
				return false
			}
		}
	}
	return true
}

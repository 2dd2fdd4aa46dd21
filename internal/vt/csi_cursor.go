package vt

// cursorUp moves up n rows, stopping at the top margin if the cursor is
// inside the scroll region (xterm, tmux), else at the top of the screen.
func (fb *Framebuffer) cursorUp(n int) {
	limit := 0
	if fb.y >= fb.top {
		limit = fb.top
	}
	fb.moveTo(fb.x, max(fb.y-n, limit))
}

// cursorDown moves down n rows, stopping at the bottom margin if the cursor
// is inside the scroll region, else at the bottom of the screen.
func (fb *Framebuffer) cursorDown(n int) {
	limit := fb.h - 1
	if fb.y <= fb.bottom {
		limit = fb.bottom
	}
	fb.moveTo(fb.x, min(fb.y+n, limit))
}

// cursorPosition moves to 1-based row and column, relative to (and
// confined to) the scroll region in origin mode.
func (fb *Framebuffer) cursorPosition(row, col int) {
	y := row - 1
	if fb.origin {
		y = min(y+fb.top, fb.bottom)
	}
	fb.moveTo(col-1, y)
}

// setMargins implements DECSTBM; an invalid region is ignored. The cursor
// goes home.
func (fb *Framebuffer) setMargins(top, bottom int) {
	bottom = min(bottom, fb.h)
	if bottom <= top || top > fb.h {
		return
	}
	fb.top, fb.bottom = top-1, bottom-1
	fb.home()
}

// home moves the cursor to the top left (of the region in origin mode).
func (fb *Framebuffer) home() {
	if fb.origin {
		fb.moveTo(0, fb.top)
	} else {
		fb.moveTo(0, 0)
	}
}

// clearTabs implements TBC: 0 clears the stop at the cursor, 3 all stops
// (and stops default stops from being added on resize).
func (fb *Framebuffer) clearTabs(mode int) {
	switch mode {
	case 0:
		fb.mtabs()[fb.x] = false
	case 3:
		clear(fb.mtabs())
		fb.noDefaultTab = true
	}
}

// saveCursor implements DECSC (and SCOSC).
func (fb *Framebuffer) saveCursor() {
	fb.saved = savedCursor{
		valid: true, x: fb.x, y: fb.y, rend: fb.rend, wrapNext: fb.wrapNext,
		autowrap: !fb.noAutowrap, origin: fb.origin, cs: fb.cs,
	}
}

// restoreCursor implements DECRC (and SCORC); without a saved state it
// homes the cursor and resets the rendition, like xterm.
func (fb *Framebuffer) restoreCursor() {
	s := fb.saved
	if !s.valid {
		s = savedCursor{autowrap: true}
	}
	fb.moveTo(s.x, s.y)
	fb.wrapNext = s.wrapNext && fb.x == fb.w-1
	fb.rend, fb.noAutowrap, fb.origin, fb.cs = s.rend, !s.autowrap, s.origin, s.cs
}

// softReset implements DECSTR.
func (fb *Framebuffer) softReset() {
	fb.insert, fb.origin, fb.noAutowrap = false, false, false
	fb.cursorHidden = false
	fb.modes.AppCursorKeys, fb.modes.AppKeypad = false, false
	fb.top, fb.bottom = 0, fb.h-1
	fb.rend = Rendition{}
	fb.cs = charsetState{}
	fb.saved = savedCursor{}
}

package vt

// Screen primitives used by the control functions: line feeds and
// scrolling, tab stops, resizing. Erased and inserted cells take the
// current background colour (background colour erase).

// erase returns the rendition of erased cells.
func (fb *Framebuffer) erase() Rendition { return fb.rend.eraseRendition() }

// scrollUp moves rows top..bottom up by n, blank rows entering at bottom.
func (fb *Framebuffer) scrollUp(top, bottom, n int) {
	if n <= 0 || top > bottom {
		return
	}
	n = min(n, bottom-top+1)
	gone := append(fb.scratch[:0], fb.rows[top:top+n]...)
	copy(fb.rows[top:], fb.rows[top+n:bottom+1])
	er := fb.erase()
	for i, r := range gone {
		fb.rows[bottom-n+1+i] = fb.recycle(r, er)
	}
	fb.scratch = gone[:0]
	fb.combY -= n
}

// scrollDown moves rows top..bottom down by n, blank rows entering at top.
func (fb *Framebuffer) scrollDown(top, bottom, n int) {
	if n <= 0 || top > bottom {
		return
	}
	n = min(n, bottom-top+1)
	gone := append(fb.scratch[:0], fb.rows[bottom-n+1:bottom+1]...)
	copy(fb.rows[top+n:bottom+1], fb.rows[top:bottom-n+1])
	er := fb.erase()
	for i, r := range gone {
		fb.rows[top+i] = fb.recycle(r, er)
	}
	fb.scratch = gone[:0]
	fb.combY += n
	fb.unwrapBottom()
}

// unwrapBottom keeps the invariant that the last row is never marked
// wrapped (there is no next row for it to continue on), so that any screen
// can be reproduced by the display differ.
func (fb *Framebuffer) unwrapBottom() {
	if fb.rows[fb.h-1].wrap {
		fb.mrow(fb.h - 1).wrap = false
	}
}

// lineFeed moves the cursor down, scrolling at the bottom of the region.
// It reports whether the cursor moved to another row or the text scrolled.
func (fb *Framebuffer) lineFeed() bool {
	fb.wrapNext = false
	switch {
	case fb.y == fb.bottom:
		fb.recordScroll(1)
		fb.scrollUp(fb.top, fb.bottom, 1)
		return true
	case fb.y < fb.h-1:
		fb.y++
		return true
	}
	return false
}

// reverseIndex moves the cursor up, scrolling at the top of the region.
func (fb *Framebuffer) reverseIndex() {
	fb.wrapNext = false
	switch {
	case fb.y == fb.top:
		fb.scrollDown(fb.top, fb.bottom, 1)
	case fb.y > 0:
		fb.y--
	}
}

// wrap performs the automatic new line before printing past the last
// column, marking the row as continued when the cursor reaches a new row.
func (fb *Framebuffer) wrap() {
	y := fb.y
	if y != fb.bottom && y == fb.h-1 {
		fb.x, fb.wrapNext = 0, false // nowhere to go: stay on this row
		return
	}
	fb.mrow(y).wrap = true
	fb.x = 0
	fb.lineFeed()
	fb.unwrapBottom()
}

// moveTo places the cursor, clamped to the screen, and forgets the
// pending wrap and the combining cell.
func (fb *Framebuffer) moveTo(x, y int) {
	fb.x, fb.y = min(max(x, 0), fb.w-1), min(max(y, 0), fb.h-1)
	fb.wrapNext = false
	fb.combX, fb.combY = fb.x, fb.y
}

// resetTabs sets a tab stop every 8 columns.
func (fb *Framebuffer) resetTabs() {
	fb.tabs = make([]bool, fb.w)
	fb.tabsShared = false
	for x := 0; x < fb.w; x += 8 {
		fb.tabs[x] = true
	}
}

// mtabs returns the tab stops, copied first if shared with a clone.
func (fb *Framebuffer) mtabs() []bool {
	if fb.tabsShared {
		fb.tabs = append([]bool(nil), fb.tabs...)
		fb.tabsShared = false
	}
	return fb.tabs
}

// nextTab returns the column of the n-th tab stop right of x, or the last
// column.
func (fb *Framebuffer) nextTab(x, n int) int {
	for x < fb.w-1 && n > 0 {
		x++
		if fb.tabs[x] {
			n--
		}
	}
	return x
}

// prevTab returns the column of the n-th tab stop left of x, or 0.
func (fb *Framebuffer) prevTab(x, n int) int {
	for x > 0 && n > 0 {
		x--
		if fb.tabs[x] {
			n--
		}
	}
	return x
}

// Resize changes the size as Mosh does: rows are added or removed at the
// bottom, rows are cut or extended on the right and lose their wrap flag,
// the cursor is clamped, the scroll region is reset, and default tab stops
// are extended. A screen with a history shrinks its primary screen, shown
// or behind the alternate one, as terminals do instead (keepCursorRow).
func (fb *Framebuffer) Resize(w, h int) {
	w, h = clampSize(w, h)
	if w == fb.w && h == fb.h {
		return
	}
	if h < fb.h && fb.hist != nil {
		if !fb.modes.AltScreen {
			fb.keepCursorRow(h)
		} else if fb.mainRows != nil {
			fb.keepMainCursorRow(h)
		}
	}
	fb.rows = fb.resizeRows(fb.rows, w, h)
	if fb.mainRows != nil {
		fb.mainRows = fb.resizeRows(fb.mainRows, w, h)
	}
	oldW := fb.w
	fb.w, fb.h = w, h
	fb.resizeTabs(oldW)
	fb.top, fb.bottom = 0, h-1
	fb.x, fb.y = min(fb.x, w-1), min(fb.y, h-1)
	fb.wrapNext = false
	if fb.combX >= w || fb.combY >= h {
		fb.combX, fb.combY = -1, -1
	}
	fb.saved.x, fb.saved.y = min(fb.saved.x, w-1), min(fb.saved.y, h-1)
	fb.altSaved.x, fb.altSaved.y = min(fb.altSaved.x, w-1), min(fb.altSaved.y, h-1)
}

// ResizeKeepingCursor is [Framebuffer.Resize], except that a primary
// screen shrinks as one with a history does (and as terminals do): rows
// below the cursor go first, then rows leave the top, so that the
// cursor's row stays. Nothing is recorded. A client shows with it a
// server screen that has not shrunk yet as it will be once it has.
func (fb *Framebuffer) ResizeKeepingCursor(w, h int) {
	if _, h = clampSize(w, h); h < fb.h && !fb.modes.AltScreen {
		fb.keepCursorRow(h)
	}
	fb.Resize(w, h)
}

// DropTop removes the top n rows: the rows below move up, blank rows enter
// at the bottom, and the cursor moves up with its text (to the top row at
// most). Nothing is recorded. A client shows with it a server screen
// whose top rows the user's terminal already moved into its scrollback.
func (fb *Framebuffer) DropTop(n int) {
	if n = min(n, fb.h); n <= 0 {
		return
	}
	fb.scrollUp(0, fb.h-1, n)
	fb.y = max(0, fb.y-n)
	fb.saved.y = max(0, fb.saved.y-n)
	fb.wrapNext = false
}

// InsertTop puts lines on the top rows, oldest first: the rows below move
// down, the bottom ones leave, and the cursor moves down with its text (to
// the bottom row at most). Nothing is recorded. A client models with it a
// terminal that grew and took lines back from its scrollback.
func (fb *Framebuffer) InsertTop(lines []ScrollLine) {
	n := min(len(lines), fb.h)
	if n == 0 {
		return
	}
	fb.scrollDown(0, fb.h-1, n)
	for i, l := range lines[len(lines)-n:] {
		r := l.Row(fb.w)
		r.owner = fb.owner
		fb.rows[i] = r
	}
	fb.y = min(fb.h-1, fb.y+n)
	fb.saved.y = min(fb.h-1, fb.saved.y+n)
	fb.wrapNext = false
}

// keepCursorRow prepares a shrink to h rows of a screen that keeps a
// history (a gosh server's, for native scrollback) as xterm and tmux do:
// the rows below the cursor go first, then rows leave the top for the
// history, so that the cursor's row stays on the screen. The terminal
// showing the screen does the same with its own rows when it shrinks, and
// the client skips the lines it already has (section 12.3).
func (fb *Framebuffer) keepCursorRow(h int) {
	r := (fb.h - h) - (fb.h - 1 - fb.y) // rows that must leave the top
	if r <= 0 {
		return
	}
	fb.top, fb.bottom = 0, fb.h-1 // Resize resets the region anyway
	fb.recordScroll(r)
	fb.scrollUp(0, fb.h-1, r)
	fb.y -= r
	fb.saved.y = max(0, fb.saved.y-r)
}

// keepMainCursorRow is keepCursorRow for the primary screen while the
// alternate one is shown, whose cursor is the one 1049 saved: xterm and
// tmux shrink the primary screen behind it the same way, so the shell's
// last rows are still there when a full-screen program exits.
func (fb *Framebuffer) keepMainCursorRow(h int) {
	r := (fb.h - h) - (fb.h - 1 - fb.altSaved.y)
	if r <= 0 {
		return
	}
	for _, row := range fb.mainRows[:r] {
		fb.hist.record(row, fb.w)
	}
	fb.mainRows = fb.mainRows[r:] // resizeRows keeps the first h
	fb.altSaved.y -= r
}

func (fb *Framebuffer) resizeRows(rows []*Row, w, h int) []*Row {
	out := make([]*Row, h)
	for y := range out {
		if y >= len(rows) {
			fb.lastGen++
			out[y] = &Row{cells: make([]Cell, w), gen: fb.lastGen, owner: fb.owner}
			continue
		}
		old := rows[y]
		r := &Row{cells: make([]Cell, w), gen: old.gen, owner: fb.owner}
		copy(r.cells, old.cells)
		if n := min(w, len(old.cells)); n > 0 && r.cells[n-1].flags&cellWide != 0 && n == w && len(old.cells) > w {
			r.cells[n-1] = Cell{Rend: r.cells[n-1].Rend}
		}
		out[y] = r
	}
	return out
}

func (fb *Framebuffer) resizeTabs(oldW int) {
	tabs := make([]bool, fb.w)
	copy(tabs, fb.tabs)
	if !fb.noDefaultTab {
		for x := (oldW + 7) / 8 * 8; x < fb.w; x += 8 {
			tabs[x] = true
		}
	}
	fb.tabs, fb.tabsShared = tabs, false
}

// assumeDiffModes puts the modes that frames never change but rely on
// back to their defaults: full-screen scroll region, origin and insert
// mode off, autowrap on, ASCII character set, no pending wrap.
func (fb *Framebuffer) assumeDiffModes() {
	fb.top, fb.bottom = 0, fb.h-1
	fb.origin, fb.insert, fb.noAutowrap = false, false, false
	fb.cs = charsetState{}
	fb.wrapNext = false
}

package vt

// eraseDisplay implements ED: 0 cursor to end, 1 start to cursor, 2 all
// (3, the scrollback, has nothing to erase).
func (fb *Framebuffer) eraseDisplay(mode int) {
	switch mode {
	case 0:
		fb.eraseLine(0)
		fb.eraseRows(fb.y+1, fb.h)
	case 1:
		fb.eraseRows(0, fb.y)
		fb.eraseLine(1)
	case 2:
		fb.eraseRows(0, fb.h)
	}
}

// eraseRows blanks rows [y0, y1) and clears their wrap flags.
func (fb *Framebuffer) eraseRows(y0, y1 int) {
	er := fb.erase()
	for y := y0; y < y1; y++ {
		r := fb.mrow(y)
		r.fill(0, fb.w, er)
		r.wrap = false
	}
}

// eraseLine implements EL: 0 cursor to end, 1 start to cursor, 2 all. An
// erase reaching the end of the row clears its wrap flag.
func (fb *Framebuffer) eraseLine(mode int) {
	r := fb.mrow(fb.y)
	x0, x1 := fb.x, fb.w
	switch mode {
	case 1:
		x0, x1 = 0, fb.x+1
	case 2:
		x0 = 0
	case 0:
	default:
		return
	}
	r.fixWide(x0, x1)
	r.fill(x0, x1, fb.erase())
	if x1 == fb.w {
		r.wrap = false
	}
}

// eraseCells implements ECH.
func (fb *Framebuffer) eraseCells(n int) {
	r := fb.mrow(fb.y)
	x1 := min(fb.x+n, fb.w)
	r.fixWide(fb.x, x1)
	r.fill(fb.x, x1, fb.erase())
}

// insertCells implements ICH (and insert mode): n blanks at the cursor,
// the rest of the row shifted right and cut at the margin.
func (fb *Framebuffer) insertCells(n int) {
	r := fb.mrow(fb.y)
	x := fb.x
	n = min(n, fb.w-x)
	r.fixWide(x, x)
	copy(r.cells[x+n:], r.cells[x:fb.w-n])
	r.fill(x, x+n, fb.erase())
	if last := &r.cells[fb.w-1]; last.flags&cellWide != 0 {
		*last = Cell{Rend: last.Rend}
	}
}

// deleteCells implements DCH: n cells at the cursor removed, the rest of
// the row shifted left, blanks entering at the margin.
func (fb *Framebuffer) deleteCells(n int) {
	r := fb.mrow(fb.y)
	x := fb.x
	n = min(n, fb.w-x)
	r.fixWide(x, x+n)
	copy(r.cells[x:], r.cells[x+n:])
	r.fill(fb.w-n, fb.w, fb.erase())
}

// insertLines implements IL inside the scroll region; the cursor goes to
// column 0.
func (fb *Framebuffer) insertLines(n int) {
	if fb.y < fb.top || fb.y > fb.bottom {
		return
	}
	fb.scrollDown(fb.y, fb.bottom, n)
	fb.moveTo(0, fb.y)
}

// deleteLines implements DL inside the scroll region; the cursor goes to
// column 0.
func (fb *Framebuffer) deleteLines(n int) {
	if fb.y < fb.top || fb.y > fb.bottom {
		return
	}
	fb.scrollUp(fb.y, fb.bottom, n)
	fb.moveTo(0, fb.y)
}

// alignmentTest implements DECALN: the screen filled with 'E'.
func (fb *Framebuffer) alignmentTest() {
	for y := range fb.rows {
		r := fb.mrow(y)
		for x := range r.cells {
			r.cells[x] = Cell{r: 'E'}
		}
		r.wrap = false
	}
	fb.top, fb.bottom = 0, fb.h-1
	fb.moveTo(0, 0)
}

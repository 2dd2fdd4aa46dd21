package vt

// scroll detects that the screen scrolled (new row 0 is old row k, and a
// run of following rows matches) and scrolls the receiver the same way
// with line feeds, so those rows need not be redrawn (step 7). A new row
// 0 the receiver's row 0 already shows is no scroll, as in Mosh.
func (f *frame) scroll() {
	old, next, m := f.d.old, f.next.rows, f.d.mask
	if old[0].sameAs(next[0], m) {
		return
	}
	k := 1
	for k < f.h && !old[k].sameAs(next[0], m) {
		k++
	}
	if k >= f.h {
		return
	}
	n := 1
	for k+n < f.h && old[k+n].sameAs(next[n], m) {
		n++
	}
	if f.rend != (Rendition{}) {
		f.out = append(f.out, "\x1b[0m"...)
		f.rend, f.raw = Rendition{}, Rendition{}
	}
	bottom := k + n // rows [0, bottom) scroll up by k
	switch {
	case f.d.caps.KeepHistory:
		if bottom < f.h {
			f.out = append(f.out, "\x1b[1;"...)
			f.out = appendUint(f.out, bottom)
			f.out = append(f.out, 'r')
		}
		f.out = append(f.out, "\x1b[H\x1b["...)
		f.out = appendUint(f.out, k)
		f.out = append(f.out, 'M')
		if bottom < f.h {
			f.out = append(f.out, "\x1b[r"...)
		}
		f.colKnown, f.rowKnown = false, false
	case bottom == f.h && f.rowKnown && f.y == f.h-1:
		f.out = append(f.out, '\r')
		f.x, f.colKnown = 0, true
		for range k {
			f.out = append(f.out, '\n')
		}
	default:
		f.out = append(f.out, "\x1b[1;"...)
		f.out = appendUint(f.out, bottom)
		f.out = append(f.out, 'r')
		f.cup(0, bottom-1)
		for range k {
			f.out = append(f.out, '\n')
		}
		f.out = append(f.out, "\x1b[r"...)
		f.colKnown, f.rowKnown = false, false
	}
	copy(old[:bottom-k], old[k:bottom])
	for y := bottom - k; y < bottom; y++ {
		old[y] = f.d.blank
	}
}

// same reports whether the receiver's cell o already shows n.
func (f *frame) same(o, n *Cell) bool {
	if *o == *n && n.Rend.Link == 0 {
		return true
	}
	if !o.equalMasked(*n, f.d.mask) {
		return false
	}
	if f.d.mask.link && (o.Rend.Link|n.Rend.Link) != 0 {
		return f.linkOf(f.last, o.Rend.Link) == f.linkOf(f.next, n.Rend.Link)
	}
	return true
}

// blankRun is a run of blank cells to erase or overwrite with spaces.
type blankRun struct {
	start, end int // [start, end) of changed-or-extended cells
	changed    int // one past the last cell that actually differs
	rend       Rendition
}

// putRow redraws what changed in row y (step 8). Cells from forceFrom on
// are written even if unchanged, to set or clear the row's wrap flag.
func (f *frame) putRow(y int) {
	nr, or := f.next.rows[y], f.d.old[y]
	cont := f.contRow == y
	if f.init && !cont && (nr == or || (nr.wrap == or.wrap && f.rowSame(or, nr))) {
		return
	}
	forceFrom := f.w
	if nr.wrap && y < f.h-1 && !(f.init && or.wrap) {
		forceFrom = lastStart(nr)
	}
	x := 0
	if cont { // first the character that completes the previous row's wrap
		f.putCell(0, y, &nr.cells[0], nr)
		x = max(nr.cells[0].Width(), 1)
	}
	if f.init && or.wrap && !nr.wrap {
		forceFrom = lastStart(nr)
		f.silentMove(forceFrom, y)
		f.out = append(f.out, "\x1b[K"...) // clears the wrap flag
		x = min(x, forceFrom)
	}
	run := blankRun{start: -1}
	for x < f.w {
		c := &nr.cells[x]
		if c.flags&cellCont != 0 {
			x++
			continue
		}
		forced := x >= forceFrom
		unchanged := f.init && !forced && f.same(&or.cells[x], c)
		if !forced && f.blankable(c) {
			if run.start >= 0 && c.Rend == run.rend {
				run.end = x + 1
				if !unchanged {
					run.changed = x + 1
				}
				x++
				continue
			}
			if !unchanged {
				f.flush(&run, y, nr, false)
				run = blankRun{start: x, end: x + 1, changed: x + 1, rend: c.Rend}
				x++
				continue
			}
		}
		f.flush(&run, y, nr, false)
		if !unchanged {
			f.putCell(x, y, c, nr)
		}
		x += max(c.Width(), 1)
	}
	f.flush(&run, y, nr, true)
}

// rowSame compares two rows cell by cell under the display's mask.
func (f *frame) rowSame(o, n *Row) bool {
	for x := range n.cells {
		if !f.same(&o.cells[x], &n.cells[x]) {
			return false
		}
	}
	return true
}

// lastStart returns the column where the last character of r starts.
func lastStart(r *Row) int {
	x := len(r.cells) - 1
	if x > 0 && r.cells[x].flags&cellCont != 0 {
		x--
	}
	return x
}

// blankable reports whether c can be produced by an erase: no character,
// no attributes but a background colour, no hyperlink.
func (f *frame) blankable(c *Cell) bool {
	if c.r != 0 || c.comb != nil || c.flags != 0 {
		return false
	}
	r := f.d.mask.apply(c.Rend)
	return r == Rendition{BG: r.BG} && f.linkOf(f.next, c.Rend.Link) == ""
}

// flush emits a pending blank run: EL if it reaches the end of the row
// (and the row does not wrap), else ECH for more than 4 cells, else spaces.
func (f *frame) flush(run *blankRun, y int, nr *Row, rowEnd bool) {
	if run.start < 0 {
		return
	}
	r := *run
	*run = blankRun{start: -1}
	canErase := f.d.caps.BCE || f.d.mask.apply(r.rend) == Rendition{}
	if rowEnd && r.end == f.w && canErase && !nr.wrap {
		f.silentMove(r.start, y)
		f.setRend(r.rend, "")
		f.out = append(f.out, "\x1b[K"...)
		return
	}
	n := r.changed - r.start
	if n > 4 && canErase && f.d.caps.ECH {
		f.silentMove(r.start, y)
		f.setRend(r.rend, "")
		f.out = append(f.out, "\x1b["...)
		f.out = appendUint(f.out, n)
		f.out = append(f.out, 'X')
		return
	}
	for x := r.start; x < r.changed; x++ {
		f.putCell(x, y, &Cell{Rend: r.rend}, nr)
	}
}

// putCell writes cell c at (x, y), moving there first.
func (f *frame) putCell(x, y int, c *Cell, nr *Row) {
	if !f.colKnown || f.x != x || f.y != y || !f.rowKnown {
		f.silentMove(x, y)
	}
	f.setRend(c.Rend, f.linkOf(f.next, c.Rend.Link))
	if r := c.r; r > ' ' && r < 0x80 && c.comb == nil {
		f.out = append(f.out, byte(r)) // ASCII fast path
	} else {
		f.out = c.AppendText(f.out)
	}
	f.x += c.Width()
	f.contRow = -1
	if f.x >= f.w {
		f.x, f.colKnown = f.w-1, false // pending wrap
		if nr.wrap && y < f.h-1 {
			f.contRow = y + 1
		}
	}
}

// silentMove moves the cursor to (x, y), hiding it first if visible.
func (f *frame) silentMove(x, y int) {
	if f.contRow == y && x == 0 && !f.colKnown {
		// The next character wraps to (0, y) by itself.
		f.x, f.y, f.colKnown, f.rowKnown = 0, y, true, true
		return
	}
	if f.colKnown && f.rowKnown && f.x == x && f.y == y {
		return
	}
	if f.visible {
		f.out = append(f.out, "\x1b[?25l"...)
		f.visible = false
	}
	f.move(x, y)
}

// move positions the cursor with the cheapest of CR/LF, BS and CUP. A
// display that keeps the terminal's scrollback moves down without line
// feeds: should the terminal be smaller than the frame (resized as it is
// painted), a line feed on its last row would scroll a row into its
// scrollback.
func (f *frame) move(x, y int) {
	f.contRow = -1
	switch {
	case f.colKnown && f.rowKnown && f.x == x && f.y == y:
		return
	case f.rowKnown && x == 0 && y >= f.y && y-f.y < 5 && !f.d.caps.KeepHistory:
		if !f.colKnown || f.x != 0 {
			f.out = append(f.out, '\r')
		}
		for range y - f.y {
			f.out = append(f.out, '\n')
		}
	case f.colKnown && f.rowKnown && y == f.y && x < f.x && f.x-x <= 4:
		for range f.x - x {
			f.out = append(f.out, '\b')
		}
	case f.colKnown && f.rowKnown && y == f.y && x > f.x && x-f.x <= 4 && f.reprint(x):
		// the cells in between were re-sent as they are
	default:
		f.cup(x, y)
		return
	}
	f.x, f.y, f.colKnown, f.rowKnown = x, y, true, true
}

// cup emits an absolute move.
func (f *frame) cup(x, y int) {
	f.out = append(f.out, "\x1b["...)
	f.out = appendUint(f.out, y+1)
	f.out = append(f.out, ';')
	f.out = appendUint(f.out, x+1)
	f.out = append(f.out, 'H')
	f.x, f.y, f.colKnown, f.rowKnown = x, y, true, true
	f.contRow = -1
}

// setRend makes r (masked) and link the receiver's current rendition.
func (f *frame) setRend(r Rendition, link string) {
	if r != f.raw {
		if m := f.d.mask.apply(r); m != f.rend {
			f.out = f.d.appendSGR(f.out, m)
			f.rend = m
		}
		f.raw = r
	}
	if link != f.link {
		f.setLink(link)
	}
}

// setLink starts or ends a hyperlink (OSC 8) if the profile allows them.
func (f *frame) setLink(link string) {
	if !f.d.mask.link || link == f.link {
		return
	}
	f.out = append(f.out, "\x1b]8;"...)
	if link == "" {
		f.out = append(f.out, ';')
	}
	f.out = append(f.out, link...)
	f.out = append(f.out, "\x1b\\"...)
	f.link = link
}

// reprint moves right on the current row to column x by sending the
// cells in between again, if that is possible without changing the
// rendition (plain single-width characters drawn as the current one).
func (f *frame) reprint(x int) bool {
	cells := f.next.rows[f.y].cells[f.x:x]
	for i := range cells {
		c := &cells[i]
		if c.flags != 0 || c.comb != nil || c.r >= 0x80 || f.d.mask.apply(c.Rend) != f.rend ||
			f.linkOf(f.next, c.Rend.Link) != f.link {
			return false
		}
	}
	for _, c := range cells {
		if c.r == 0 {
			f.out = append(f.out, ' ')
		} else {
			f.out = append(f.out, byte(c.r))
		}
	}
	return true
}

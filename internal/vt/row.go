package vt

// rowOwner tags the rows a [Framebuffer] may modify in place. Rows are
// shared between a framebuffer and its clones; a row whose owner is not the
// framebuffer's current tag is copied before it is written (copy-on-write).
// The field gives each allocation its own address.
type rowOwner struct{ _ byte }

// Row is one line of a [Framebuffer]. Rows are shared between clones and
// must be treated as read-only; modify a framebuffer through its methods.
type Row struct {
	cells []Cell
	wrap  bool   // the text continues on the next row (autowrap)
	gen   uint64 // generation: rows physically moved by scrolling keep theirs
	owner *rowOwner
}

// Len returns the number of cells in r.
func (r *Row) Len() int { return len(r.cells) }

// Cell returns the cell in column x.
func (r *Row) Cell(x int) Cell { return r.cells[x] }

// Cells returns the cells of r. The slice must not be modified.
func (r *Row) Cells() []Cell { return r.cells }

// Wrapped reports whether the text of r continues on the next row because
// the cursor wrapped there.
func (r *Row) Wrapped() bool { return r.wrap }

// Text returns the characters of r, with trailing blanks removed.
func (r *Row) Text() string {
	var b []byte
	for _, c := range r.cells {
		b = c.AppendText(b)
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// sameAs reports whether r and o are the same row object, or the same
// generation with equal contents under mask m.
func (r *Row) sameAs(o *Row, m renditionMask) bool {
	if r == o {
		return true
	}
	return r.gen == o.gen && r.equalMasked(o, m)
}

// equalMasked compares wrap flags and cells (renditions under m).
func (r *Row) equalMasked(o *Row, m renditionMask) bool {
	if r == o {
		return true
	}
	if r.wrap != o.wrap || len(r.cells) != len(o.cells) {
		return false
	}
	for i := range r.cells {
		if !r.cells[i].equalMasked(o.cells[i], m) {
			return false
		}
	}
	return true
}

// clone returns a copy of r owned by owner.
func (r *Row) clone(owner *rowOwner) *Row {
	n := &Row{cells: make([]Cell, len(r.cells)), wrap: r.wrap, gen: r.gen, owner: owner}
	copy(n.cells, r.cells)
	return n
}

// fill sets cells [x0, x1) to blanks drawn in rend.
func (r *Row) fill(x0, x1 int, rend Rendition) {
	if x0 >= x1 {
		return
	}
	cs := r.cells[x0:x1]
	if rend == (Rendition{}) {
		clear(cs)
		return
	}
	for i := range cs {
		cs[i].set(0, 0, rend)
	}
}

// fixWide blanks the orphaned half of a wide character cut by a write to
// the columns [x0, x1), so that no half-character remains.
func (r *Row) fixWide(x0, x1 int) {
	n := len(r.cells)
	if x0 > 0 && x0 < n && r.cells[x0].flags&cellCont != 0 {
		r.cells[x0-1] = Cell{Rend: r.cells[x0-1].Rend}
	}
	if x1 > 0 && x1 < n && r.cells[x1].flags&cellCont != 0 {
		r.cells[x1] = Cell{Rend: r.cells[x1].Rend}
	}
}

package predict

import (
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// validity is the verdict on one prediction against the server's screen.
type validity uint8

const (
	inactive  validity = iota
	pending            // its keystrokes may not have been echoed yet
	correct            // the server shows it: confirms its epoch
	noCredit           // nothing to learn from it (blank, unknown, or already there)
	incorrect          // the server shows something else (or it fell off the screen)
)

// never is the epoch and frame of an inactive prediction.
const never = ^uint64(0)

// overlay is what cell and cursor predictions share: when their
// keystrokes count as echoed (frame), in which epoch they were made, and
// when (for the glitch timers).
type overlay struct {
	frame uint64    // expiration frame: judged once the echo ack reaches it
	epoch uint64    // shown only once confirmedEpoch ≥ epoch
	when  time.Time // when the keystroke was typed
	seq   uint64    // the keystroke's number (key.seq)
}

func (o *overlay) tentative(confirmed uint64) bool { return o.epoch > confirmed }

// expire makes the prediction stand for keystroke k.
func (o *overlay) expire(k *key) { o.frame, o.when, o.seq = k.frame, k.when, k.seq }

// cellPred is the prediction for one cell of a row.
type cellPred struct {
	overlay
	active  bool
	unknown bool    // the cell will change, but to what is not known
	cont    bool    // the second half of a wide character predicted to its left
	repl    vt.Cell // what the cell is predicted to show
	// orig holds earlier contents of the cell (what the server showed and
	// earlier predictions); a prediction matching one of them earns no
	// credit, since the server may simply not have changed the cell.
	orig []vt.Cell
	// held is a shown, still pending prediction that a later one, not
	// shown yet (a new epoch), replaced: it stays on the screen until
	// the new one is confirmed or its own keystroke has been echoed.
	held    heldPred
	hasHeld bool
	// pager: a row of a screen predicted after a scroll of less
	// (pager.go), judged only once less shows its prompt again.
	pager bool
}

// heldPred is the part of a cellPred kept while it is held.
type heldPred struct {
	overlay
	unknown, cont bool
	repl          vt.Cell
}

func (c *cellPred) reset() {
	c.active, c.unknown, c.cont, c.hasHeld = false, false, false, false
	c.orig = c.orig[:0]
	c.frame, c.epoch = never, never
}

// resetWithOrig starts a new prediction for the cell, remembering the
// previous one's replacement among the originals.
func (c *cellPred) resetWithOrig() {
	if !c.active || c.unknown || c.cont {
		c.reset()
		return
	}
	c.addOrig(c.repl)
	c.active, c.frame, c.epoch = false, never, never
}

func (c *cellPred) addOrig(cell vt.Cell) {
	if len(c.orig) == maxOriginals {
		copy(c.orig, c.orig[1:])
		c.orig = c.orig[:maxOriginals-1]
	}
	c.orig = append(c.orig, cell)
}

// start makes c an active prediction of the given epoch and frame,
// remembering what the server shows there now.
func (c *cellPred) start(epoch uint64, k *key, actual vt.Cell) {
	c.resetWithOrig()
	c.active, c.epoch, c.pager = true, epoch, false
	c.expire(k)
	c.addOrig(actual)
}

// copyContent makes c predict what src predicts, or what the server shows
// (actual) if src predicts nothing.
func (c *cellPred) copyContent(src *cellPred, actual vt.Cell) {
	if src != nil && src.active {
		c.unknown, c.cont, c.repl = src.unknown, src.cont, src.repl
		return
	}
	c.unknown, c.cont, c.repl = false, actual.IsContinuation(), actual
}

// validity judges the prediction for (col, row) against fb, given the
// echo ack. inconclusive says the server may have acted on keystrokes
// whose effect was not predicted (Enter, control keys) after this
// prediction's frame, so a mismatch proves nothing.
func (c *cellPred) validity(fb *vt.Framebuffer, col, row int, lateAck uint64, inconclusive bool) validity {
	if !c.active {
		return inactive
	}
	w, h := fb.Size()
	if row >= h || col >= w {
		return incorrect
	}
	if lateAck < c.frame {
		return pending
	}
	if c.unknown || c.cont || c.repl.IsBlank() {
		return noCredit
	}
	cur := fb.Cell(col, row)
	if !sameContents(cur, c.repl) {
		if inconclusive {
			return noCredit
		}
		return incorrect
	}
	for _, o := range c.orig {
		if sameContents(o, c.repl) {
			return noCredit
		}
	}
	return correct
}

// sameContents reports whether two cells show the same character,
// whatever their renditions; blank cells all match.
func sameContents(a, b vt.Cell) bool {
	if a.IsBlank() || b.IsBlank() {
		return a.IsBlank() && b.IsBlank()
	}
	if a.IsContinuation() || b.IsContinuation() {
		return a.IsContinuation() && b.IsContinuation()
	}
	return a.Rune() == b.Rune() && a.Width() == b.Width() && a.Combining() == b.Combining()
}

// apply paints the prediction onto fb if its epoch is confirmed,
// underlined when flag is set.
func (c *cellPred) apply(fb *vt.Framebuffer, col, row int, confirmed uint64, flag bool) {
	w, h := fb.Size()
	if !c.active || row >= h || col >= w {
		return
	}
	p := heldPred{overlay: c.overlay, unknown: c.unknown, cont: c.cont, repl: c.repl}
	if c.tentative(confirmed) {
		if !c.hasHeld || c.held.tentative(confirmed) {
			return
		}
		p = c.held
	}
	p.apply(fb, col, row, flag)
}

func (p *heldPred) apply(fb *vt.Framebuffer, col, row int, flag bool) {
	if p.cont {
		return // drawn with the first half
	}
	w := fb.Width()
	cur := fb.Cell(col, row)
	if p.repl.IsBlank() && cur.IsBlank() {
		flag = false
	}
	if p.unknown {
		if flag && col != w-1 && !cur.IsContinuation() {
			cur.Rend.Attrs = cur.Rend.Attrs.WithUnderline(vt.UnderlineSingle)
			fb.SetCell(col, row, cur)
		}
		return
	}
	if cur.Equal(p.repl) {
		return
	}
	cell := p.repl
	if flag {
		cell.Rend.Attrs = cell.Rend.Attrs.WithUnderline(vt.UnderlineSingle)
	}
	fb.SetCell(col, row, cell)
}

// cursorPred is a predicted cursor position.
type cursorPred struct {
	overlay
	col, row int
	// altCol, altRow is a second acceptable position (hasAlt): after a
	// character in the last column, a terminal may keep the cursor there
	// (pending wrap) instead of moving it to the next row.
	altCol, altRow int
	hasAlt         bool
	// waitCol, waitRow is where the cursor was before an Escape that
	// vi may not have acted on yet (waits): see Engine.cursorValidity.
	waitCol, waitRow int
	waits            bool
	// pager: after a scroll of less, judged only once less shows its
	// prompt again (see cellPred.pager).
	pager bool
}

func (c *cursorPred) validity(fb *vt.Framebuffer, lateAck uint64, inconclusive bool) validity {
	w, h := fb.Size()
	if c.row >= h || c.col >= w {
		return incorrect
	}
	if lateAck < c.frame {
		return pending
	}
	x, y := fb.Cursor()
	if (x == c.col && y == c.row) || (c.hasAlt && x == c.altCol && y == c.altRow) {
		return correct
	}
	if inconclusive {
		return noCredit
	}
	return incorrect
}

func (c *cursorPred) apply(fb *vt.Framebuffer, confirmed uint64) {
	w, h := fb.Size()
	if c.tentative(confirmed) || c.row >= h || c.col >= w {
		return
	}
	fb.SetCursor(c.col, c.row)
}

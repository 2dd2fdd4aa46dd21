package predict

// The vi effects of the editor-mode model (editor.go): what a key of vi's
// normal mode, or one that enters insert mode or a prompt, does to the
// screen, read from the text on it.

import (
	"strings"

	"github.com/gosh-term/gosh/internal/vt"
)

// Screen geometry for the vi effects. A row holds a whole line of text
// (lineRow) if it is above the bottom row, not a "~" row past the end of
// the file, and neither it nor the row above is filled to the margin
// (which may continue on the next row).

func (e *Engine) blankAt(fb *vt.Framebuffer, x, y int) bool {
	c, cont := e.cellAt(fb, x, y)
	return !cont && c.IsBlank()
}

func (e *Engine) rowFull(fb *vt.Framebuffer, y int) bool {
	return !e.blankAt(fb, e.w-1, y) || e.rowWraps(fb, y)
}

func (e *Engine) fillerRow(fb *vt.Framebuffer, y int) bool {
	c, _ := e.cellAt(fb, 0, y)
	return c.Rune() == '~' && e.textEnd(fb, y) == 1
}

func (e *Engine) lineRow(fb *vt.Framebuffer, y int) bool {
	return y >= 0 && y < e.h-1 && !e.rowFull(fb, y) && (y == 0 || !e.rowFull(fb, y-1)) && !e.fillerRow(fb, y)
}

// textEnd returns the column after the last character of row y.
func (e *Engine) textEnd(fb *vt.Framebuffer, y int) int {
	for x := e.w - 1; x >= 0; x-- {
		if !e.blankAt(fb, x, y) {
			return x + 1
		}
	}
	return 0
}

// lastChar returns the column of the last character of row y, 0 if it
// is blank.
func (e *Engine) lastChar(fb *vt.Framebuffer, y int) int {
	x := e.textEnd(fb, y) - 1
	if x > 0 && e.contAt(fb, x, y) {
		x--
	}
	return max(x, 0)
}

// wordClass is vi's character class for w and b: 0 blank, 1
// punctuation, 2 a word character; -1 for a character not modelled
// (beyond ASCII, or a wide character's second half).
func (e *Engine) wordClass(fb *vt.Framebuffer, x, y int) int {
	c, cont := e.cellAt(fb, x, y)
	switch r := c.Rune(); {
	case cont || r > 0x7e:
		return -1
	case c.IsBlank():
		return 0
	case r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		return 2
	}
	return 1
}

// The vi effects. Each moves c (and may predict cells) and reports
// whether it could predict the key.

func (e *Engine) viEscape(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if c.row >= e.h-1 {
		return false
	}
	if fb.Row(e.h-1).Text() == insertMark {
		e.blankRow(k, fb, e.h-1, 0)
	}
	c.waits, c.waitCol, c.waitRow = true, c.col, c.row
	if c.col > 0 {
		c.col -= e.widthLeft(fb, c.col, c.row)
	}
	e.app.want = c.col
	return true
}

func (e *Engine) viInsert(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if c.row >= e.h-1 {
		return false
	}
	e.beginInsert(k, fb, c)
	return true
}

func (e *Engine) viAppend(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	if e.textEnd(fb, c.row) > 0 {
		c.col += e.widthAt(fb, c.col, c.row)
	}
	e.beginInsert(k, fb, c)
	return true
}

func (e *Engine) viAppendEnd(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	c.col = e.textEnd(fb, c.row)
	e.beginInsert(k, fb, c)
	return true
}

func (e *Engine) viInsertStart(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	c.col = 0
	for c.col < e.textEnd(fb, c.row) && e.blankAt(fb, c.col, c.row) {
		c.col++
	}
	if c.col == e.textEnd(fb, c.row) {
		c.col = 0
	}
	e.beginInsert(k, fb, c)
	return true
}

// viOpen predicts o: an empty line opens below the cursor's, the rows
// below moving down, when the end of the file shows ("~" on the last row
// of text) so that nothing scrolls.
func (e *Engine) viOpen(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	y := c.row
	if !e.lineRow(fb, y) || y+1 > e.h-2 || !e.fillerRow(fb, e.h-2) {
		return false
	}
	for r := e.h - 2; r > y+1; r-- {
		src, dst := e.rows[r-1], e.row(r)
		for x := range dst {
			e.startCell(&dst[x], k, fb.Cell(x, r))
			var s *cellPred
			if src != nil {
				s = &src[x]
			}
			dst[x].copyContent(s, fb.Cell(x, r-1))
		}
	}
	e.blankRow(k, fb, y+1, 0)
	c.col, c.row = 0, y+1
	e.beginInsert(k, fb, c)
	return true
}

// blankRow predicts row y blank from column x.
func (e *Engine) blankRow(k *key, fb *vt.Framebuffer, y, x int) {
	row := e.row(y)
	for ; x < e.w; x++ {
		e.startCell(&row[x], k, fb.Cell(x, y))
		row[x].unknown, row[x].cont, row[x].repl = false, false, vt.Cell{}
	}
}

// beginInsert starts the line typed in insert mode (or at a prompt) at
// the cursor: a line editor's bounds (backspace stops there, as in vi
// by default). Entering insert mode, vi shows it on the bottom row
// ("-- INSERT --", its 'showmode', which is how the engine learned the
// mode).
func (e *Engine) beginInsert(k *key, fb *vt.Framebuffer, c *cursorPred) {
	e.line.begin(c.col, c.row, e.predEpoch, false)
	e.line.verified = true
	e.line.cells = e.line.cells[:0]
	if k.mode.mode != modeNormal || strings.ContainsRune(viPromptKeys, k.r) {
		return
	}
	row, y := e.row(e.h-1), e.h-1
	for x, r := range insertMark {
		if x >= e.w {
			break
		}
		e.startCell(&row[x], k, fb.Cell(x, y))
		row[x].unknown, row[x].cont, row[x].repl = false, false, vt.NewCell(r, vt.Rendition{Attrs: vt.AttrBold})
	}
}

// insertMark is what vi shows on the bottom row in insert mode.
const insertMark = "-- INSERT --"

// openPrompt predicts : / or ? opening a prompt on the bottom row: the
// key alone there, the cursor after it.
func (e *Engine) openPrompt(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	y := e.h - 1
	if k.mode.mode == modeNormal && c.row >= y || k.mode.mode == modePager && (c.row != y || c.col != 1) {
		return false
	}
	e.blankRow(k, fb, y, 0)
	p := &e.row(y)[0]
	p.repl = vt.NewCell(k.r, vt.Rendition{})
	e.stats.Predictions++
	c.col, c.row = 1, y
	e.beginInsert(k, fb, c)
	return true
}

// onChar reports whether (x, y) is a character of the line vi's cursor
// can sit on where the screen shows it: one that is not blank, or a
// single blank between two that are not (a space, or a tab one column
// wide). Wider blanks may be a tab, on whose last column vi puts the
// cursor.
func (e *Engine) onChar(fb *vt.Framebuffer, x, y int) bool {
	if x < 0 || x >= e.w {
		return false
	}
	if !e.blankAt(fb, x, y) {
		return true
	}
	return x > 0 && x+1 < e.w && !e.blankAt(fb, x-1, y) && !e.blankAt(fb, x+1, y)
}

func (e *Engine) viLeft(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if c.col == 0 || c.row >= e.h-1 || !e.onChar(fb, c.col, c.row) {
		return false
	}
	c.col -= e.widthLeft(fb, c.col, c.row)
	if !e.onChar(fb, c.col, c.row) {
		return false
	}
	e.app.want = c.col
	return true
}

func (e *Engine) viRight(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if c.row >= e.h-1 || !e.onChar(fb, c.col, c.row) {
		return false
	}
	next := c.col + e.widthAt(fb, c.col, c.row)
	if !e.onChar(fb, next, c.row) {
		return false
	}
	c.col = next
	e.app.want = c.col
	return true
}

func (e *Engine) viHome(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	c.col = 0
	e.app.want = 0
	return true
}

func (e *Engine) viEnd(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	c.col = e.lastChar(fb, c.row)
	e.app.want = wantEnd
	return true
}

// viDelete predicts x: the character under the cursor is deleted, the
// rest of the line moving left; deleting the last one moves the cursor
// left.
func (e *Engine) viDelete(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) || e.blankAt(fb, c.col, c.row) || !e.features.BlankEnd {
		return false
	}
	wd := e.widthAt(fb, c.col, c.row)
	last := e.textEnd(fb, c.row) <= c.col+wd
	e.shiftLeft(k, fb, c.row, c.col, wd)
	if last && c.col > 0 {
		c.col -= e.widthLeft(fb, c.col, c.row)
	}
	e.app.want = c.col
	return true
}

// viWord predicts w within the line: to the start of the next word.
func (e *Engine) viWord(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	end := e.textEnd(fb, c.row)
	x := c.col
	cls := e.wordClass(fb, x, c.row)
	for x < end && cls > 0 && e.wordClass(fb, x, c.row) == cls {
		x++
	}
	for x < end && e.wordClass(fb, x, c.row) == 0 {
		x++
	}
	if cls < 0 {
		return false
	}
	if x >= end { // the first word of the next line, or an empty line
		if !e.lineRow(fb, c.row+1) {
			return false
		}
		c.row++
		x = e.firstChar(fb, c.row)
	}
	if e.wordClass(fb, x, c.row) < 0 {
		return false
	}
	c.col = x
	e.app.want = x
	return true
}

// firstChar returns the column of the first character of row y that is
// not blank, 0 if there is none.
func (e *Engine) firstChar(fb *vt.Framebuffer, y int) int {
	end := e.textEnd(fb, y)
	for x := range end {
		if !e.blankAt(fb, x, y) {
			return x
		}
	}
	return 0
}

// viBack predicts b within the line: to the start of this or the
// previous word.
func (e *Engine) viBack(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) || e.wordClass(fb, c.col, c.row) < 0 {
		return false
	}
	x := c.col - 1
	for x >= 0 && e.wordClass(fb, x, c.row) == 0 {
		x--
	}
	if x < 0 { // the last word of the previous line, or an empty line
		if !e.lineRow(fb, c.row-1) {
			return false
		}
		c.row--
		x = e.textEnd(fb, c.row) - 1
		if x < 0 {
			c.col = 0
			e.app.want = 0
			return true
		}
	}
	cls := e.wordClass(fb, x, c.row)
	for x > 0 && cls > 0 && e.wordClass(fb, x-1, c.row) == cls {
		x--
	}
	if cls < 0 {
		return false
	}
	c.col = x
	e.app.want = x
	return true
}

// viLast predicts G where the end of the file shows ("~" rows below
// it): to the first character of its last line.
func (e *Engine) viLast(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	y := e.h - 2
	for y >= 0 && e.fillerRow(fb, y) {
		y--
	}
	if y == e.h-2 || !e.lineRow(fb, y) {
		return false
	}
	c.col, c.row = e.firstChar(fb, y), y
	e.app.want = c.col
	return true
}

// viDown predicts j and k: to the desired column of the line below or
// above, or its last character if it is shorter.
func (e *Engine) viDown(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	t := c.row + 1
	if k.r == 'k' {
		t = c.row - 1
	}
	want := e.app.want
	if !e.lineRow(fb, c.row) || !e.lineRow(fb, t) || want == wantUnknown || want == wantServer {
		return false
	}
	end := e.textEnd(fb, t)
	switch {
	case end == 0:
		c.col = 0
	case want == wantEnd || want >= end:
		c.col = e.lastChar(fb, t)
	case !e.onChar(fb, want, t):
		return false // part of a tab, perhaps: vi puts the cursor at a tab's end
	case e.contAt(fb, want, t):
		c.col = want - 1
	default:
		c.col = want
	}
	c.row = t
	return true
}

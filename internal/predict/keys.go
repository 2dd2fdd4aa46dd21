package predict

import "github.com/gosh-term/gosh/internal/vt"

// predictKey predicts the effect of one key at the current cursor
// prediction and records on k what was predicted. It is used both for
// freshly typed keys and when re-predicting keys still in flight.
func (e *Engine) predictKey(k *key, fb *vt.Framebuffer) {
	k.opaque, k.pgSeg, k.pgFrom, k.pgLink = false, nil, nil, false
	if !e.features.EditorModes || !e.predictModal(k, fb) {
		e.predictText(k, fb)
	}
	k.hasCursor = len(e.cursors) > 0
	if k.hasCursor {
		c := e.cursor()
		k.cx, k.cy = c.col, c.row
	}
}

// predictText predicts k as a line editor's key: printable characters
// are text.
func (e *Engine) predictText(k *key, fb *vt.Framebuffer) {
	switch k.kind {
	case keyPrint:
		e.printRune(k, fb)
	case keyBackspace:
		e.backspace(k, fb)
	case keyLeft:
		e.moveLeft(k, fb)
	case keyRight:
		e.moveRight(k, fb)
	case keyReturn:
		e.becomeTentative()
		e.newline(k, fb, true)
		k.opaque = true
	default:
		e.becomeTentative()
		k.opaque = true
	}
}

// initCursor makes sure there is a cursor prediction of the current
// epoch, starting from the previous prediction or the server's cursor.
func (e *Engine) initCursor(fb *vt.Framebuffer, k *key) {
	if len(e.cursors) == 0 {
		x, y := fb.Cursor()
		e.cursors = append(e.cursors, cursorPred{overlay: overlay{frame: k.frame, epoch: e.predEpoch, when: k.when, seq: k.seq}, col: x, row: y})
		if e.line.epoch == 0 || e.line.pending {
			e.line.begin(x, y, e.predEpoch, true)
		}
		return
	}
	if c := *e.cursor(); c.epoch != e.predEpoch {
		c.epoch, c.hasAlt, c.pager = e.predEpoch, false, false
		c.expire(k)
		e.cursors = append(e.cursors, c)
	}
}

// printRune predicts a printable character: drawn at the cursor (shifting
// the rest of the row right unless in overwrite mode), with the cursor
// moving past it and wrapping at the right margin.
func (e *Engine) printRune(k *key, fb *vt.Framebuffer) {
	wd := vt.Width(k.r)
	if k.r < 0x20 || wd < 1 || wd > e.w || (wd != 1 && !e.features.WideChars) {
		e.becomeTentative() // combining, unprintable, or wide without WideChars: unknown effect
		k.opaque = true
		return
	}
	e.initCursor(fb, k)
	if e.cursor().col+wd > e.w { // a wide character does not fit: the terminal wraps first
		e.becomeTentative()
		k.opaque = true
		e.newline(k, fb, false)
	}
	c := e.cursor()
	col, y := c.col, c.row
	margin := col+wd >= e.w
	trusted := margin && e.trustWrap(fb, y)
	if margin && !trusted {
		e.becomeTentative() // emacs draws a continuation mark, a shell just wraps
		k.opaque = true
	}
	switch gap, start, ok := e.rightPrompt(fb, y, col); {
	case ok && (col >= gap && col+wd >= start-1 || col < gap && start-gap-wd < 1):
		// Typed up to a right prompt: zsh takes it away, bash's
		// PROMPT_COMMAND kind is overwritten. Not known which.
		e.becomeTentative()
		k.opaque = true
	case ok && col >= gap:
		// A line editor draws at the end of its line and leaves the
		// right prompt where it is.
	case ok && !e.overwrite:
		e.shiftRightUpTo(k, fb, y, col, wd, start) // the line's text, not the prompt
	case !e.overwrite:
		e.shiftRight(k, fb, y, col, wd)
	}
	e.putRune(k, fb, y, col, wd)
	c = e.cursor()
	c.expire(k)
	if !margin {
		c.col += wd
		return
	}
	if !trusted {
		e.becomeTentative()
	}
	e.wrapped[y] = true
	e.newline(k, fb, false)
	if trusted {
		c = e.cursor()
		c.altCol, c.altRow, c.hasAlt = e.w-1, y, true
	}
}

// rightPrompt finds a right prompt on row y beyond col: text ending in
// the row's last three columns after two or more blanks (zsh's RPROMPT,
// or one drawn by bash's PROMPT_COMMAND), which is not part of the line
// being edited. A line editor leaves it in place as a line is typed:
// shifting it right with the line, as text after the cursor is, predicted
// a wrong screen for every key of such a line. It returns where the blanks
// before it start (gap) and its first column (start). Not on the
// alternate screen or in vi's modes, where a row is text being edited,
// and not where the row holds predictions whose content is unknown.
func (e *Engine) rightPrompt(fb *vt.Framebuffer, y, col int) (gap, start int, ok bool) {
	if fb.Modes().AltScreen || e.inVi() {
		return 0, 0, false
	}
	row := e.rows[y]
	blank := func(i int) bool {
		c, cont := e.cellAt(fb, i, y)
		return !cont && c.IsBlank()
	}
	for i := col; i < e.w; i++ {
		if row != nil && row[i].active && row[i].unknown {
			return 0, 0, false
		}
	}
	last := e.w - 1
	for last >= col && blank(last) {
		last--
	}
	if last < e.w-3 || last < col {
		return 0, 0, false
	}
	// The prompt runs left from its end to the first two blanks.
	start = last
	for start-1 > col && !(blank(start-1) && blank(start-2)) {
		start--
	}
	gap = start
	for gap > col && blank(gap-1) {
		gap--
	}
	if start-gap < 2 {
		return 0, 0, false
	}
	return gap, start, true
}

// shiftRightUpTo predicts the cells of row y from col up to end moving n
// columns right, the n cells before end (blanks) dropped.
func (e *Engine) shiftRightUpTo(k *key, fb *vt.Framebuffer, y, col, n, end int) {
	row := e.row(y)
	for i := end - 1; i >= col+n; i-- {
		c := &row[i]
		e.startCell(c, k, fb.Cell(i, y))
		c.copyContent(&row[i-n], fb.Cell(i-n, y))
	}
}

// trustWrap reports whether a character typed in the last column of row y
// can be predicted to wrap plainly to the next row, as line editors on the
// primary screen do (readline, zle, a tty in canonical mode). Full-screen
// programs (alternate screen) may draw a continuation mark, and at the
// bottom the screen would scroll, which is not predicted.
func (e *Engine) trustWrap(fb *vt.Framebuffer, y int) bool {
	return e.features.ShellWrap && !fb.Modes().AltScreen && y < e.h-1
}

// shiftRight predicts the cells of row y from col on moving n columns
// right, the last n becoming unknown.
func (e *Engine) shiftRight(k *key, fb *vt.Framebuffer, y, col, n int) {
	row := e.row(y)
	for i := e.w - 1; i >= col+n; i-- {
		c := &row[i]
		e.startCell(c, k, fb.Cell(i, y))
		if i >= e.w-n {
			c.unknown = true
			continue
		}
		c.copyContent(&row[i-n], fb.Cell(i-n, y))
	}
}

// shiftLeft predicts the cells of row y from col on moving n columns
// left. The last n+1 become unknown if the row continues on the next one
// (its text may flow back), and blank otherwise; without
// [Features.BlankEnd] they are always unknown, as in Mosh, which leaves
// deleted text on the screen, underlined.
func (e *Engine) shiftLeft(k *key, fb *vt.Framebuffer, y, col, n int) {
	row := e.row(y)
	edgeBlank := e.features.BlankEnd && !e.rowWraps(fb, y)
	for i := col; i < e.w; i++ {
		c := &row[i]
		e.startCell(c, k, fb.Cell(i, y))
		switch {
		case i+n+1 < e.w:
			c.copyContent(&row[i+n], fb.Cell(i+n, y))
		case edgeBlank:
			c.unknown, c.cont, c.repl = false, false, vt.Cell{Rend: c.repl.Rend}
		default:
			c.unknown = true
		}
	}
}

// putRune predicts k.r (wd columns wide) at (col, y).
func (e *Engine) putRune(k *key, fb *vt.Framebuffer, y, col, wd int) {
	row := e.row(y)
	rend := fb.Rendition()
	if col > 0 {
		prev, _ := e.cellAt(fb, col-1, y)
		rend = prev.Rend
	}
	c := &row[col]
	e.startCell(c, k, fb.Cell(col, y))
	c.unknown, c.cont, c.repl = false, false, vt.NewCell(k.r, rend)
	e.stats.Predictions++
	switch {
	case wd == 2:
		n := &row[col+1]
		e.startCell(n, k, fb.Cell(col+1, y))
		n.unknown, n.cont, n.repl = false, true, vt.Cell{Rend: rend}
	case e.overwrite && e.features.WideChars && col+1 < e.w && e.contAt(fb, col+1, y):
		// Overwriting the first half of a wide character erases both.
		n := &row[col+1]
		e.startCell(n, k, fb.Cell(col+1, y))
		n.unknown, n.cont, n.repl = false, false, vt.Cell{Rend: n.orig[len(n.orig)-1].Rend}
	}
}

// cellAt returns what (x, y) is predicted to show (the prediction if one
// is active and known, else the server's cell) and whether that is the
// second half of a wide character.
func (e *Engine) cellAt(fb *vt.Framebuffer, x, y int) (vt.Cell, bool) {
	if r := e.rows[y]; r != nil && r[x].active && !r[x].unknown {
		return r[x].repl, r[x].cont
	}
	c := fb.Cell(x, y)
	return c, c.IsContinuation()
}

// widthLeft returns how many columns the character left of (x, y) takes:
// 2 if it is a wide character predicted or shown there, else 1.
func (e *Engine) widthLeft(fb *vt.Framebuffer, x, y int) int {
	if x >= 2 && e.contAt(fb, x-1, y) {
		return 2
	}
	return 1
}

// widthAt returns how many columns the character at (x, y) takes.
func (e *Engine) widthAt(fb *vt.Framebuffer, x, y int) int {
	if c, cont := e.cellAt(fb, x, y); !cont && c.IsWide() && x+1 < e.w {
		return 2
	}
	return 1
}

// contAt reports whether (x, y) is predicted or shown to be the second
// half of a wide character.
func (e *Engine) contAt(fb *vt.Framebuffer, x, y int) bool {
	_, cont := e.cellAt(fb, x, y)
	return cont
}

// startCell starts a new prediction for cell c for key k, actual being
// what the server shows there. A shown prediction still pending is held
// (kept on the screen) if the new one is not shown yet: otherwise typing
// a key of unknown effect (Escape in vi) and then one that is predicted
// in the middle of a line would hide text already shown there.
func (e *Engine) startCell(c *cellPred, k *key, actual vt.Cell) {
	switch {
	case !e.features.HoldShown || e.predEpoch <= e.confEpoch:
		c.hasHeld = false
	case c.active && !c.tentative(e.confEpoch) && c.frame > e.link.EchoAck:
		c.held = heldPred{overlay: c.overlay, unknown: c.unknown, cont: c.cont, repl: c.repl}
		c.hasHeld = true
	}
	c.start(e.predEpoch, k, actual)
}

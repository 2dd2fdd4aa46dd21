package predict

import "github.com/gosh-term/gosh/internal/vt"

// lineState follows the line being typed, to learn where lines start
// after Enter (the width of the prompt, or the indentation an editor
// keeps), what the prompt looks like, and where a line editor will
// refuse to move or delete.
type lineState struct {
	// start is the column where the cursor was confirmed to land after
	// the last Enter whose line the server confirmed, or -1; prompt is
	// what that line showed left of it.
	start  int
	prompt []vt.Cell
	// col, row is where the current line starts: the cursor predicted
	// after the Enter that began it (or after a re-base, the column the
	// server's echo shows it began at).
	col, row int
	// epoch is the prediction epoch that began with the line.
	epoch uint64
	// fromReturn says the line began with Enter (or the session's first
	// keystroke), so its start says where lines start.
	fromReturn bool
	// verified says the server confirmed a prediction of the line's
	// epoch, so col, row is right; cells is then the server's row left
	// of col (the prompt).
	verified bool
	cells    []vt.Cell
	// pending says a line began with an Enter whose predicted start the
	// server's screen contradicted (a program with a prompt of its own):
	// it starts where the server's cursor is when the next key is
	// predicted (Engine.initCursor), so that the server's confirmation of
	// that key teaches the new prompt.
	pending bool
}

// begin starts tracking a line at (col, row) predicted in epoch.
func (l *lineState) begin(col, row int, epoch uint64, fromReturn bool) {
	l.col, l.row, l.epoch, l.fromReturn, l.verified, l.pending = col, row, epoch, fromReturn, false, false
}

// learn ends the current line at Enter, learning where lines start and
// the prompt if the server confirmed it.
func (l *lineState) learn() {
	if l.verified && l.fromReturn {
		l.start = l.col
		l.prompt = append(l.prompt[:0], l.cells...)
	}
}

// confirmed records that the server confirmed a prediction of epoch,
// fb being its screen.
func (l *lineState) confirmed(epoch uint64, fb *vt.Framebuffer) {
	if epoch == l.epoch && !l.verified {
		l.verify(fb)
	}
}

// verify records that the line starts at col, row as fb shows it.
func (l *lineState) verify(fb *vt.Framebuffer) {
	l.verified = true
	l.cells = l.cells[:0]
	if w, h := fb.Size(); l.row < h && l.col <= w {
		for x := range l.col {
			l.cells = append(l.cells, fb.Cell(x, l.row))
		}
	}
}

// showsPrompt reports whether row y of fb is the learned prompt and
// nothing else, with the cursor right after it.
func (l *lineState) showsPrompt(fb *vt.Framebuffer) bool {
	x, y := fb.Cursor()
	if l.start < 1 || x != l.start || len(l.prompt) != l.start {
		return false
	}
	for i := range fb.Width() {
		c := fb.Cell(i, y)
		if (i < l.start && !sameContents(c, l.prompt[i])) || (i >= l.start && !c.IsBlank()) {
			return false
		}
	}
	return true
}

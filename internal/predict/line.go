package predict

// lineState follows the line being typed, to learn where lines start
// after Enter (the width of the prompt, or the indentation an editor
// keeps) and where a line editor will refuse to move or delete.
type lineState struct {
	// start is the column where the cursor was confirmed to land after
	// the last Enter whose line the server confirmed, or -1.
	start int
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
	// epoch, so col, row is right.
	verified bool
}

// begin starts tracking a line at (col, row) predicted in epoch.
func (l *lineState) begin(col, row int, epoch uint64, fromReturn bool) {
	l.col, l.row, l.epoch, l.fromReturn, l.verified = col, row, epoch, fromReturn, false
}

// learn ends the current line at Enter, learning where lines start if
// the server confirmed it.
func (l *lineState) learn() {
	if l.verified && l.fromReturn {
		l.start = l.col
	}
}

// confirmed records that a prediction of epoch was confirmed.
func (l *lineState) confirmed(epoch uint64) {
	if epoch == l.epoch {
		l.verified = true
	}
}

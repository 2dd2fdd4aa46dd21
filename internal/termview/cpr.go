package termview

// Cursor position reports (DSR 6 and its CPR answer) from the user's
// terminal. After the terminal's height changes, a client that keeps the
// terminal's scrollback asks where its cursor is: terminals keep their
// text at the bottom when they resize, so how far the cursor's row moved
// is how many rows went from the top of the screen into the scrollback,
// or came back from it (see paintFence).

// cprQuery asks the terminal where its cursor is (DSR 6), then how large
// its screen is: the cursor is saved (DECSC), sent to the bottom right
// corner by clamping, where a second report gives the screen's size in the
// same instant as the first (the size the kernel has may lag: tmux sets it
// after it resized its screen), and restored (DECRC). Every terminal of
// the last forty years answers both.
const cprQuery = "\x1b[6n\x1b7\x1b[9999;9999H\x1b[6n\x1b8"

// cprMaxDigits bounds each number of a report; longer digit runs are
// typed keys, not a report.
const cprMaxDigits = 5

// cprFilter takes the terminal's cursor position reports (ESC [ row ; col
// R) out of the bytes the user types while the client waits for them. A
// report split across reads is held until its end arrives; anything that
// turns out not to be a report goes on as typed bytes, in order.
type cprFilter struct {
	held []byte // the start of a possible report, from the previous read
}

// cprReport is one cursor position report, 0-based.
type cprReport struct{ row, col int }

// take returns b without the reports in it, and the reports, in order. b
// is not modified.
func (f *cprFilter) take(b []byte) (keys []byte, reps []cprReport) {
	if len(f.held) > 0 {
		b = append(f.held, b...)
		f.held = nil
	}
	for i := 0; i < len(b); {
		if b[i] != 0x1b {
			keys = append(keys, b[i])
			i++
			continue
		}
		rep, n, ok := parseCPR(b[i:])
		switch {
		case ok:
			reps = append(reps, rep)
			i += n
		case n == len(b)-i: // a report may yet follow: hold it
			f.held = append([]byte(nil), b[i:]...)
			return keys, reps
		default:
			keys = append(keys, b[i])
			i++
		}
	}
	return keys, reps
}

// flush returns the bytes held and forgets them: no report is awaited
// any more.
func (f *cprFilter) flush() []byte {
	b := f.held
	f.held = nil
	return b
}

// parseCPR parses a report at the start of b. ok says it is one, of n
// bytes; otherwise n is how many bytes of b could start one (len(b) if
// all of them: the report may be incomplete).
func parseCPR(b []byte) (rep cprReport, n int, ok bool) {
	if len(b) < 2 || b[1] != '[' {
		return rep, min(len(b), 1), false
	}
	i := 2
	var nums [2]int
	for k := range nums {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < cprMaxDigits {
			nums[k] = nums[k]*10 + int(b[i]-'0')
			i++
		}
		if i == len(b) {
			return rep, i, false
		}
		want := byte(';')
		if k == 1 {
			want = 'R'
		}
		if i == start || b[i] != want || nums[k] == 0 {
			return rep, i, false
		}
		i++
	}
	return cprReport{nums[0] - 1, nums[1] - 1}, i, true
}

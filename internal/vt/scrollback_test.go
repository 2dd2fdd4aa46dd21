package vt_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
)

func historyTexts(h *vt.History) []string { return h.Texts() }

// TestHistoryRecords: line feeds and SU at the bottom of a region whose
// top is the screen's top record the rows leaving it, in order, with
// their renditions; the alternate screen, DL and a region below the top
// record nothing; the oldest lines go first when the bound is reached.
func TestHistoryRecords(t *testing.T) {
	c := vt.NewEmulator(10, 3)
	h := c.EnableHistory(4)
	c.Feed([]byte("a\r\nb\r\nc\r\nd\r\n"), nil) // a and b scroll off
	c.Feed([]byte("\x1b[31mred\x1b[0m\r\n"), nil)
	c.Feed([]byte("\x1b[?1049h1\r\n2\r\n3\r\n4\r\n\x1b[?1049l"), nil) // alternate screen
	c.Feed([]byte("\x1b[H\x1b[M"), nil)                               // DL at the top
	c.Feed([]byte("\x1b[2;3r\x1b[3Hx\r\ny\r\n\x1b[r"), nil)           // region below the top
	if got, want := strings.Join(historyTexts(h), ","), "a,b,c"; got != want {
		t.Fatalf("history %q, want %q", got, want)
	}
	c.Feed([]byte("\x1b[H\x1b[2S"), nil) // SU 2 from a region at the top
	c.Feed([]byte("\x1b[3H\r\n\r\n\r\n"), nil)
	if got := h.Total(); got != 8 {
		t.Fatalf("total %d, want 8", got)
	}
	if h.First() != 4 {
		t.Fatalf("first %d, want 4 (bounded to 4 lines)", h.First())
	}
	l, _ := h.Line(3 + 1)
	_ = l
	// The red line kept its colour.
	c2 := vt.NewEmulator(10, 2)
	h2 := c2.EnableHistory(10)
	c2.Feed([]byte("\x1b[31mred\x1b[0m\r\n\r\n"), nil)
	rl, ok := h2.Line(0)
	if !ok || !strings.Contains(string(rl.Text), "31") || rl.Row(10).Text() != "red" {
		t.Fatalf("line %q %v", rl.Text, ok)
	}
	if fg := rl.Row(10).Cell(0).Rend.FG; fg != vt.PaletteColor(1) {
		t.Fatalf("colour %v, want red", fg)
	}
	// Clones do not record.
	cl := c2.Clone()
	cl.Feed([]byte("\r\n\r\n\r\n"), nil)
	if h2.Total() != 1 {
		t.Fatal("a clone recorded into the history")
	}
}

// TestPushLines drives an emulator with a history as the user's terminal:
// the lines PushLines moves end up in its history in order, the screen
// it reports is what the terminal shows, and frames drawn with
// KeepHistory never add to the history, even when they scroll or clear.
func TestPushLines(t *testing.T) {
	const w, h = 12, 4
	caps := vt.XtermDisplayCaps()
	caps.KeepHistory = true
	d := vt.NewDisplay(caps)
	term := vt.NewEmulator(w, h)
	hist := term.EnableHistory(1000)

	// A first screen, drawn from nothing.
	screen := vt.NewEmulator(w, h)
	screen.Feed([]byte("s1\r\ns2\r\ns3\r\ns4"), nil)
	out := d.NewFrame(nil, false, nil, screen.Framebuffer())
	term.Feed(out, nil)
	shown := screen.Framebuffer().Clone()

	var lines []vt.ScrollLine
	for i := range 7 { // more than a screenful
		lines = append(lines, vt.ScrollLine{Line: uint64(i), Text: fmt.Appendf(nil, "\x1b[1mL%d", i), Width: 20})
	}
	lines[3].Text = []byte("0123456789ab") // fills the row: it wraps onto L4
	lines[3].Wrapped = true
	out, after := d.PushLines(nil, shown, w, h, lines)
	term.Feed(out, nil)
	got := historyTexts(hist)
	want := []string{"L0", "L1", "L2", "0123456789ab", "L4", "L5", "L6"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("history %q, want %q", got, want)
	}
	if l, _ := hist.Line(3); !l.Wrapped {
		t.Error("the wrapped line lost its flag")
	}
	if !after.Equal(term.Framebuffer()) {
		t.Fatalf("PushLines says the terminal shows\n%s\nit shows\n%s", dump(after), dump(term.Framebuffer()))
	}

	// The next frames scroll by three rows and clear the screen (a
	// resize): nothing more enters the history.
	screen.Feed([]byte("\r\nn1\r\nn2\r\nn3"), nil)
	term.Feed(d.NewFrame(nil, true, after, screen.Framebuffer()), nil)
	next := screen.Clone()
	next.Feed([]byte("\r\nn4"), nil)
	term.Feed(d.NewFrame(nil, true, screen.Framebuffer(), next.Framebuffer()), nil)
	next.Resize(w-2, h)
	term.Feed(d.NewFrame(nil, false, nil, next.Framebuffer()), nil)
	if n := hist.Total(); n != 7 {
		t.Fatalf("frames added %d lines to the history", n-7)
	}
	for y := range h {
		if g, e := term.Framebuffer().Row(y).Text(), next.Framebuffer().Row(y).Text(); g != e {
			t.Fatalf("row %d shows %q, want %q", y, g, e)
		}
	}
}

// TestPushLinesShownAlready: lines the terminal already shows at the top
// cost no redrawing, only the line feeds.
func TestPushLinesShownAlready(t *testing.T) {
	caps := vt.XtermDisplayCaps()
	caps.KeepHistory = true
	d := vt.NewDisplay(caps)
	screen := vt.NewEmulator(10, 3)
	screen.Feed([]byte("one\r\ntwo\r\nthree"), nil)
	shown := screen.Framebuffer().Clone()
	out, _ := d.PushLines(nil, shown, 10, 3, []vt.ScrollLine{{Text: []byte("one"), Width: 10}, {Line: 1, Text: []byte("two"), Width: 10}})
	if strings.Contains(string(out), "one") || strings.Contains(string(out), "two") {
		t.Fatalf("redrew rows the terminal shows: %q", out)
	}
}

func dump(fb *vt.Framebuffer) string {
	var b strings.Builder
	for y := range fb.Height() {
		fmt.Fprintf(&b, "%q\n", fb.Row(y).Text())
	}
	x, y := fb.Cursor()
	fmt.Fprintf(&b, "cursor %d,%d", x, y)
	return b.String()
}

// TestHistoryShrinkKeepsCursorRow: a screen with a history shrinks as
// xterm and tmux do (rows below the cursor first, then rows leave the
// top for the history, keeping the cursor's row); without a history it
// keeps Mosh's rule (rows go from the bottom).
func TestHistoryShrinkKeepsCursorRow(t *testing.T) {
	c := vt.NewEmulator(10, 6)
	hist := c.EnableHistory(100)
	c.Feed([]byte("1\r\n2\r\n3\r\n4\r\n5\r\n$ "), nil) // cursor on row 5
	c.Resize(10, 3)
	if got := strings.Join(hist.Texts(), ","); got != "1,2,3" {
		t.Errorf("history %q, want 1,2,3", got)
	}
	if got := strings.Join(rowTexts(c.Framebuffer()), ","); got != "4,5,$" {
		t.Errorf("screen %q, want 4,5,$", got)
	}
	if x, y := c.Framebuffer().Cursor(); x != 2 || y != 2 {
		t.Errorf("cursor %d,%d, want 2,2", x, y)
	}
	// Rows below the cursor go first.
	c2 := vt.NewEmulator(10, 6)
	hist2 := c2.EnableHistory(100)
	c2.Feed([]byte("a\r\nb\r\n$ "), nil) // cursor on row 2
	c2.Resize(10, 4)
	if n := hist2.Total(); n != 0 {
		t.Errorf("%d lines left the top, want none", n)
	}
	// No history (a client's copy): Mosh's rule.
	c3 := vt.NewEmulator(10, 6)
	c3.Feed([]byte("1\r\n2\r\n3\r\n4\r\n5\r\n$ "), nil)
	c3.Resize(10, 3)
	if got := strings.Join(rowTexts(c3.Framebuffer()), ","); got != "1,2,3" {
		t.Errorf("screen without history %q, want 1,2,3", got)
	}
}

// TestHistoryShrinkBehindAltScreen: a shrink while the alternate screen
// shows shrinks the primary screen behind it the same way, around the
// cursor 1049 saved, so the shell's last rows are there when the
// full-screen program exits, and the rows that left are in the history.
func TestHistoryShrinkBehindAltScreen(t *testing.T) {
	c := vt.NewEmulator(10, 6)
	hist := c.EnableHistory(100)
	c.Feed([]byte("1\r\n2\r\n3\r\n4\r\n5\r\n$ \x1b[?1049hvim\r\n~\r\n~"), nil) // saved cursor on row 5
	c.Resize(10, 3)
	c.Resize(10, 5) // growth adds rows at the bottom
	if got := strings.Join(hist.Texts(), ","); got != "1,2,3" {
		t.Errorf("history %q, want 1,2,3: none of the alternate screen's rows", got)
	}
	c.Feed([]byte("\x1b[?1049l"), nil)
	if got := strings.Join(rowTexts(c.Framebuffer()), ","); got != "4,5,$,," {
		t.Errorf("screen %q, want 4,5,$", got)
	}
	if x, y := c.Framebuffer().Cursor(); x != 2 || y != 2 {
		t.Errorf("cursor %d,%d, want 2,2", x, y)
	}
}

func rowTexts(fb *vt.Framebuffer) []string {
	var out []string
	for y := range fb.Height() {
		out = append(out, strings.TrimRight(fb.Row(y).Text(), " "))
	}
	return out
}

// TestClientModelMoves: the moves a client makes on its copies of a
// screen to model what the user's terminal did when it resized.
func TestClientModelMoves(t *testing.T) {
	screen := func() *vt.Framebuffer {
		c := vt.NewEmulator(10, 6)
		c.Feed([]byte("1\r\n2\r\n3\r\n4\r\n5\r\n$ "), nil) // cursor on row 5
		return c.Framebuffer().Clone()
	}
	fb := screen()
	fb.ResizeKeepingCursor(10, 3) // as a terminal shrinks: the cursor's row stays
	if got := strings.Join(rowTexts(fb), ","); got != "4,5,$" {
		t.Errorf("ResizeKeepingCursor: %q, want 4,5,$", got)
	}
	fb = screen()
	fb.DropTop(2)
	if got, _ := strings.CutSuffix(strings.Join(rowTexts(fb), ","), ",,"); got != "3,4,5,$" {
		t.Errorf("DropTop: %q, want 3,4,5,$ and blank rows", strings.Join(rowTexts(fb), ","))
	}
	if _, y := fb.Cursor(); y != 3 {
		t.Errorf("DropTop: cursor on row %d, want 3", y)
	}
	fb = screen()
	fb.Resize(10, 8)
	fb.InsertTop([]vt.ScrollLine{vt.LineOf(screen().Row(0), 0), vt.LineOf(screen().Row(1), 0)})
	if got := strings.Join(rowTexts(fb), ","); got != "1,2,1,2,3,4,5,$" {
		t.Errorf("InsertTop: %q, want 1,2,1,2,3,4,5,$", got)
	}
	if _, y := fb.Cursor(); y != 7 {
		t.Errorf("InsertTop: cursor on row %d, want 7", y)
	}
}

// TestWithRowsBelow: the rows from y on come from below (or are blank),
// the rest and the cursor from the frame, and the copy does not change
// when below's emulator writes on.
func TestWithRowsBelow(t *testing.T) {
	e := vt.NewEmulator(10, 4)
	e.Feed([]byte("a\r\nb\r\nc\r\nd"), nil)
	o := vt.NewEmulator(10, 4)
	o.Feed([]byte("1\r\n2\r\n3\r\n4"), nil)
	part := e.Framebuffer().WithRowsBelow(2, o.Framebuffer())
	if got := strings.Join(rowTexts(part), ","); got != "a,b,3,4" {
		t.Errorf("rows %q, want a,b,3,4", got)
	}
	if x, y := part.Cursor(); x != 1 || y != 3 {
		t.Errorf("cursor %d,%d, want the frame's 1,3", x, y)
	}
	o.Feed([]byte("\x1b[3;1HZ"), nil) // below's emulator writes on
	if got := strings.Join(rowTexts(part), ","); got != "a,b,3,4" {
		t.Errorf("the copy changed with below: %q", got)
	}
	if got := strings.Join(rowTexts(e.Framebuffer().WithRowsBelow(1, nil)), ","); got != "a,,," {
		t.Errorf("rows %q, want a and blanks", got)
	}
}

// TestReplay: a write replayed on a screen shows what a terminal shows
// after it, and says how many rows it scrolled off the top; the screen
// given is left alone.
func TestReplay(t *testing.T) {
	e := vt.NewEmulator(10, 3)
	e.Feed([]byte("a\r\nb\r\nc"), nil)
	fb := e.Framebuffer()
	got, pushed := vt.Replay(fb, []byte("\x1b[1;1HA\x1b[3;2H"))
	if s := strings.Join(rowTexts(got), ","); s != "A,b,c" || pushed != 0 {
		t.Errorf("rows %q, %d pushed; want A,b,c and none", s, pushed)
	}
	if x, y := got.Cursor(); x != 1 || y != 2 {
		t.Errorf("cursor %d,%d, want 1,2", x, y)
	}
	got, pushed = vt.Replay(fb, []byte("\x1b[3;1H\n\nz"))
	if s := strings.Join(rowTexts(got), ","); s != "c,,z" || pushed != 2 {
		t.Errorf("rows %q, %d pushed; want c,,z and 2", s, pushed)
	}
	if s := strings.Join(rowTexts(fb), ","); s != "a,b,c" {
		t.Errorf("the screen given changed to %q", s)
	}
}

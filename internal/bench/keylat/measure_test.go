package keylat

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// screen returns the screen of a w×h terminal after input.
func screen(w, h int, input string) *vt.Framebuffer {
	e := vt.NewEmulator(w, h)
	e.Feed([]byte(input), nil)
	return e.Framebuffer().Clone()
}

// prompt is a 20×3 screen showing the shell prompt and line.
func prompt(line string) *vt.Framebuffer { return screen(20, 3, "$ "+line) }

var t0 = time.Unix(1_700_000_000, 0)

// ms is t0 plus n milliseconds.
func ms(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }

// ul and plain are SGR 4 (underline) and SGR 0 (plain text).
const ul, plain = "\x1b[4m", "\x1b[m"

// measureCases are typed as "abc" at 0, 100 and 200 ms after a prompt.
var measureCases = []struct {
	name    string
	snaps   []Snapshot
	latency []time.Duration
	wrong   []bool
}{
	{
		name:    "each shown in turn",
		snaps:   []Snapshot{{ms(3), prompt("a")}, {ms(150), prompt("ab")}, {ms(204), prompt("abc")}},
		latency: []time.Duration{3 * time.Millisecond, 50 * time.Millisecond, 4 * time.Millisecond},
		wrong:   []bool{false, false, false},
	},
	{
		name:    "a later screen shows the earlier keystrokes",
		snaps:   []Snapshot{{ms(250), prompt("abc")}},
		latency: []time.Duration{250 * time.Millisecond, 150 * time.Millisecond, 50 * time.Millisecond},
		wrong:   []bool{false, false, false},
	},
	{
		name:    "never shown",
		snaps:   []Snapshot{{ms(10), prompt("a")}, {ms(300), prompt("abX")}},
		latency: []time.Duration{10 * time.Millisecond, -1, -1},
		wrong:   []bool{false, false, false},
	},
	{
		name:    "screens before the first keystroke do not count",
		snaps:   []Snapshot{{ms(-5), prompt("a")}, {ms(20), prompt("a")}},
		latency: []time.Duration{20 * time.Millisecond, -1, -1},
		wrong:   []bool{false, false, false},
	},
	{
		name:    "a keystroke at the very time of a screen counts",
		snaps:   []Snapshot{{ms(0), prompt("a")}},
		latency: []time.Duration{0, -1, -1},
		wrong:   []bool{false, false, false},
	},
	{
		name:    "a wrong prediction",
		snaps:   []Snapshot{{ms(101), prompt("a" + ul + "x" + plain)}, {ms(160), prompt("ab")}, {ms(210), prompt("abc")}},
		latency: []time.Duration{160 * time.Millisecond, 60 * time.Millisecond, 10 * time.Millisecond},
		wrong:   []bool{false, true, false},
	},
	{
		name:    "a right prediction",
		snaps:   []Snapshot{{ms(101), prompt("a" + ul + "b" + plain)}, {ms(201), prompt("a" + ul + "bc" + plain)}},
		latency: []time.Duration{101 * time.Millisecond, 1 * time.Millisecond, 1 * time.Millisecond},
		wrong:   []bool{false, false, false},
	},
	{
		name: "a wrong screen read in pieces is not seen",
		snaps: []Snapshot{
			{ms(101), prompt("a" + ul + "x" + plain)},
			{ms(101.5), prompt("ab")},
		},
		latency: []time.Duration{101500 * time.Microsecond, 1500 * time.Microsecond, -1},
		wrong:   []bool{false, false, false},
	},
}

func TestMeasure(t *testing.T) {
	refs := []*vt.Framebuffer{prompt("a"), prompt("ab"), prompt("abc")}
	at := []time.Time{ms(0), ms(100), ms(200)}

	for _, tc := range measureCases {
		t.Run(tc.name, func(t *testing.T) {
			r := Measure(at, refs, tc.snaps, nil)
			if r.Keys != len(at) {
				t.Errorf("Keys = %d, want %d", r.Keys, len(at))
			}
			if !slices.Equal(r.Latency, tc.latency) {
				t.Errorf("Latency = %v, want %v", r.Latency, tc.latency)
			}
			if !slices.Equal(r.Wrong, tc.wrong) {
				t.Errorf("Wrong = %v, want %v", r.Wrong, tc.wrong)
			}
		})
	}
}

// TestMeasureWrongWindow checks that a prediction may lag what has been
// typed by up to WrongWindow, and no more.
func TestMeasureWrongWindow(t *testing.T) {
	refs := []*vt.Framebuffer{prompt("q"), prompt("r"), prompt("s"), prompt("t")}
	at := []time.Time{ms(0), ms(3000), ms(4000), ms(4500)}
	stale := prompt(ul + "q" + plain) // right only for the first keystroke
	for _, tc := range []struct {
		name  string
		when  time.Time
		wrong []bool
	}{
		{"within the window of a keystroke", ms(1900), []bool{false, false, false, false}},
		{"the keystroke before the window counts too", ms(4600), []bool{false, false, false, false}},
		{"older than that", ms(6000), []bool{false, false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Measure(at, refs, []Snapshot{{tc.when, stale}}, nil)
			if !slices.Equal(r.Wrong, tc.wrong) {
				t.Errorf("Wrong = %v, want %v", r.Wrong, tc.wrong)
			}
		})
	}
}

func TestMeasureLogsWrongOnce(t *testing.T) {
	refs := []*vt.Framebuffer{prompt("a")}
	bad := prompt("\x1b[4mz\x1b[m") // SGR 4: an underlined z where the reference has a
	var logs []string
	logf := func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }
	r := Measure([]time.Time{ms(0)}, refs, []Snapshot{{ms(10), bad}, {ms(20), bad}}, logf)
	if !r.Wrong[0] {
		t.Fatalf("Wrong = %v, want [true]", r.Wrong)
	}
	if len(logs) != 1 {
		t.Fatalf("logged %d times, want once: %q", len(logs), logs)
	}
	if !strings.Contains(logs[0], "wrong cell (2,0) after key 0") || !strings.Contains(logs[0], " 0|$ z") {
		t.Errorf("log = %q, want the cell, the key and the screen", logs[0])
	}
}

func TestMeasurePanicsOnMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("Measure with 2 keystrokes and 1 reference did not panic")
		}
	}()
	Measure([]time.Time{ms(0), ms(1)}, []*vt.Framebuffer{prompt("")}, nil, nil)
}

func TestSameLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b *vt.Framebuffer
		want bool
	}{
		{"same", prompt("ls"), prompt("ls"), true},
		{"other text on the row", prompt("ls"), prompt("lx"), false},
		{"cursor elsewhere", prompt("ls"), screen(20, 3, "$ ls\x1b[D"), false}, // CUB 1
		{"other rows differ", screen(20, 3, "old\r\n$ ls"), screen(20, 3, "new\r\n$ ls"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SameLine(tc.a, tc.b); got != tc.want {
				t.Errorf("SameLine = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWrongCell(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fb    *vt.Framebuffer
		refs  []*vt.Framebuffer
		found bool
		x, y  int
	}{
		{"no underline", prompt("xyz"), []*vt.Framebuffer{prompt("abc")}, false, 0, 0},
		{"underlined and right", prompt("a\x1b[4mbc"), []*vt.Framebuffer{prompt("abc")}, false, 0, 0},
		{"underlined and right in an older reference", prompt("\x1b[4mab"), []*vt.Framebuffer{prompt("a"), prompt("ab")}, false, 0, 0},
		{"underlined and wrong", prompt("a\x1b[4mbX"), []*vt.Framebuffer{prompt("abc")}, true, 4, 0},
		{"underlined blanks are not characters", prompt("ab\x1b[4m\x1b[K"), []*vt.Framebuffer{prompt("ab")}, false, 0, 0}, // EL: erase in the underlined rendition
		{"reference smaller than the screen", screen(20, 3, "\r\n\r\n\x1b[4mz"), []*vt.Framebuffer{screen(5, 1, "")}, true, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y, found := WrongCell(tc.fb, tc.refs)
			if found != tc.found || found && (x != tc.x || y != tc.y) {
				t.Errorf("WrongCell = (%d, %d, %v), want (%d, %d, %v)", x, y, found, tc.x, tc.y, tc.found)
			}
		})
	}
}

// TestShownNotByTheScreenBefore: vim's ":w" Enter puts the cursor back
// where it was before the ":", so the reference after the Enter has the
// line of the screen from before the ":". A screen still waiting for the
// ":" is no sign of any of the three keys: they are shown when the
// screen shows ":w", and the Enter when the cursor is back after it.
func TestShownNotByTheScreenBefore(t *testing.T) {
	start := screen(20, 3, "text\x1b[1;2H")                   // the cursor on the "e"
	text := screen(20, 3, "text\x1b[1;3H")                    // "l" moved it to the "x"
	colon := screen(20, 3, "text\x1b[3;1H:")                  // the prompt on the bottom row
	colonW := screen(20, 3, "text\x1b[3;1H:w")                // and its "w"
	written := screen(20, 3, "text\x1b[3;1Hwritten\x1b[1;3H") // the cursor back
	at := []time.Time{ms(0), ms(100), ms(200), ms(300)}
	refs := []*vt.Framebuffer{text, colon, colonW, written}
	snaps := []Snapshot{{ms(5), text}, {ms(345), text}, {ms(700), colon}, {ms(800), colonW}, {ms(1000), written}}
	want := []time.Duration{5 * time.Millisecond, 600 * time.Millisecond, 600 * time.Millisecond, 700 * time.Millisecond}
	for _, name := range []string{"Measure", "Session.Measure"} {
		var r Result
		if name == "Measure" {
			r = Measure(at, refs, snaps, nil)
		} else {
			s := Session{At: at, Refs: refs, Screen: snaps, Initial: start}
			r = s.Measure()
		}
		if !slices.Equal(r.Latency, want) {
			t.Errorf("%s: latencies %v, want %v", name, r.Latency, want)
		}
	}
}

// TestShownScroll: a pager's scroll leaves the cursor after its prompt
// and moves the rows above. It is shown when the screen shows the rows
// it brings, not only when a later keystroke with another cursor line is
// shown (before, every scroll of less counted as late as the next
// search prompt).
func TestShownScroll(t *testing.T) {
	page := func(top int) *vt.Framebuffer {
		return screen(20, 3, fmt.Sprintf("line %d\r\nline %d\r\n:", top, top+1))
	}
	at := []time.Time{ms(0), ms(100), ms(200)}
	refs := []*vt.Framebuffer{page(2), page(3), screen(20, 3, "line 3\r\nline 4\r\n/")}
	snaps := []Snapshot{{ms(2), page(2)}, {ms(104), page(3)}, {ms(900), refs[2]}}
	want := []time.Duration{2 * time.Millisecond, 4 * time.Millisecond, 700 * time.Millisecond}
	for _, name := range []string{"Measure", "Session.Measure"} {
		var r Result
		if name == "Measure" {
			r = Measure(at, refs, snaps, nil)
		} else {
			s := Session{At: at, Refs: refs, Screen: snaps, Initial: page(1)}
			r = s.Measure()
		}
		if !slices.Equal(r.Latency, want) {
			t.Errorf("%s: latencies %v, want %v", name, r.Latency, want)
		}
	}
}

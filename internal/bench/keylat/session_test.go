package keylat

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// pw is a 20×3 screen with a password prompt and what follows it, the
// cursor after it.
func pw(after string) *vt.Framebuffer { return screen(20, 3, "Password: "+after) }

// out is output the server's program wrote at n milliseconds.
func out(n float64, data string) Output { return Output{At: ms(n), Data: []byte(data)} }

// TestSessionMeasure: the full check sees what the underline check
// cannot. Two keystrokes are typed at 0 and 100 ms into a password prompt
// that echoes nothing, unless the case says otherwise; the server drew
// the prompt before they were typed. Its length is the table of cases.
func TestSessionMeasure(t *testing.T) {
	prompt := []Output{out(-50, "Password: ")}
	for _, tc := range []struct {
		name      string
		refs      []*vt.Framebuffer
		server    []Output
		screen    []Snapshot
		wrong     []bool
		predicted []bool
	}{
		{
			name:      "a wrong character drawn plain",
			refs:      []*vt.Framebuffer{pw(""), pw("")},
			server:    prompt,
			screen:    []Snapshot{{ms(1), pw("s")}, {ms(500), pw("")}},
			wrong:     []bool{true, false},
			predicted: []bool{true, false},
		},
		{
			name:      "a wrong cursor alone",
			refs:      []*vt.Framebuffer{pw(""), pw("")},
			server:    prompt,
			screen:    []Snapshot{{ms(1), screen(20, 3, "Password: \x1b[C")}, {ms(500), pw("")}}, // CUF 1
			wrong:     []bool{true, false},
			predicted: []bool{true, false},
		},
		{
			name:      "a wrong blank",
			refs:      []*vt.Framebuffer{pw("x"), pw("xy")},
			server:    []Output{out(-50, "Password: "), out(60, "x"), out(160, "y")},
			screen:    []Snapshot{{ms(1), pw("x")}, {ms(101), pw("x\x1b[C")}, {ms(170), pw("xy")}}, // the y predicted as a blank
			wrong:     []bool{false, true},
			predicted: []bool{true, true},
		},
		{
			name: "a wrong prediction that matches an older screen",
			// x, then backspace, then y: the x shown again, underlined,
			// after the backspace showed.
			refs:      []*vt.Framebuffer{pw("x"), pw(""), pw("y")},
			server:    []Output{out(-50, "Password: "), out(60, "x"), out(160, "\b \b"), out(260, "y")},
			screen:    []Snapshot{{ms(1), pw("x")}, {ms(101), pw("")}, {ms(201), pw(ul + "x" + plain)}, {ms(270), pw("y")}},
			wrong:     []bool{false, false, true},
			predicted: []bool{true, true, true},
		},
		{
			name:      "a right prediction drawn plain",
			refs:      []*vt.Framebuffer{pw("a"), pw("ab")},
			server:    []Output{out(-50, "Password: "), out(60, "a"), out(160, "b")},
			screen:    []Snapshot{{ms(1), pw("a")}, {ms(101), pw("ab")}},
			wrong:     []bool{false, false},
			predicted: []bool{true, true},
		},
		{
			name:   "the server's screen half drawn is not wrong",
			refs:   []*vt.Framebuffer{pw("a"), screen(20, 3, "Password: a\r\nok\r\ndone")},
			server: []Output{out(-50, "Password: "), out(60, "a"), out(160, "\r\no"), out(161, "k\r\ndone")},
			screen: []Snapshot{{ms(70), pw("a")}, {ms(170), screen(20, 3, "Password: a\r\no")},
				{ms(200), screen(20, 3, "Password: a\r\nok\r\ndone")}},
			wrong:     []bool{false, false},
			predicted: []bool{false, false},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := []time.Time{ms(0), ms(100), ms(200)}[:len(tc.refs)]
			var logs []string
			s := Session{At: at, Refs: tc.refs, Initial: pw(""), Screen: tc.screen, Server: tc.server,
				Up: 50 * time.Millisecond, Down: 50 * time.Millisecond,
				Logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }}
			r := s.Measure()
			if !slices.Equal(r.Wrong, tc.wrong) {
				t.Errorf("Wrong = %v, want %v; logs:\n%s", r.Wrong, tc.wrong, strings.Join(logs, "\n"))
			}
			if !slices.Equal(r.Predicted, tc.predicted) {
				t.Errorf("Predicted = %v, want %v", r.Predicted, tc.predicted)
			}
			old := Measure(at, tc.refs, tc.screen, nil)
			t.Logf("the underline check says %v", old.Wrong)
		})
	}
}

// TestSessionMeasureServerPieces: a transport may read the server's
// output in other pieces than the record has them, and show a state in
// between: half a line of output, the cursor after it. That is not wrong.
func TestSessionMeasureServerPieces(t *testing.T) {
	s := Session{
		At:     []time.Time{ms(0)},
		Refs:   []*vt.Framebuffer{screen(20, 3, "$ seq 3\r\n1\r\n2\r\n3\r\n$ ")},
		Server: []Output{out(-50, "$ seq 3"), out(60, "\r\n1\r\n2\r\n3\r\n$ ")},
		Screen: []Snapshot{{ms(70), screen(20, 3, "$ seq 3\r\n1\r\n2")}, {ms(80), screen(20, 3, "$ seq 3\r\n1\r\n2\r")},
			{ms(90), screen(20, 3, "$ seq 3\r\n1\r\n2\r\n3\r\n$ ")}},
		Up: 50 * time.Millisecond, Down: 50 * time.Millisecond,
	}
	if r := s.Measure(); r.Wrong[0] || r.Predicted[0] {
		t.Errorf("Wrong = %v, Predicted = %v for states of the server's screen read in other pieces", r.Wrong, r.Predicted)
	}
}

// TestSessionMeasureNoPrediction: a client that only ever shows what the
// server drew has no wrong figure ("n/a").
func TestSessionMeasureNoPrediction(t *testing.T) {
	s := Session{
		At:     []time.Time{ms(0), ms(100)},
		Refs:   []*vt.Framebuffer{prompt("a"), prompt("ab")},
		Server: []Output{out(-50, "$ "), out(60, "a"), out(160, "b")},
		Screen: []Snapshot{{ms(110), prompt("a")}, {ms(210), prompt("ab")}},
		Up:     50 * time.Millisecond, Down: 50 * time.Millisecond,
	}
	st := s.Measure().Stats()
	if !st.NoPrediction || st.Wrong != 0 || st.Predicted != 0 {
		t.Errorf("Stats = %+v, want no prediction", st)
	}
	if !strings.Contains(st.String(), "no prediction shown") {
		t.Errorf("String() = %q, want it to say no prediction was shown", st.String())
	}
	s.Screen = []Snapshot{{ms(1), prompt("a")}, {ms(210), prompt("ab")}}
	if st := s.Measure().Stats(); st.NoPrediction || st.Predicted != 0.5 {
		t.Errorf("with the first key predicted: Stats = %+v, want half the keys predicted", st)
	}
}

// TestSessionMeasureWithoutServer: with no record of the server, a key
// shown sooner than the round trip was predicted, and the cells are
// judged against the references of the keys in flight.
func TestSessionMeasureWithoutServer(t *testing.T) {
	s := Session{
		At:     []time.Time{ms(0), ms(100)},
		Refs:   []*vt.Framebuffer{pw(""), pw("")},
		Screen: []Snapshot{{ms(1), pw("s")}, {ms(2), pw("")}, {ms(150), pw("")}},
		Up:     50 * time.Millisecond, Down: 50 * time.Millisecond,
	}
	r := s.Measure()
	if !slices.Equal(r.Wrong, []bool{true, false}) || !slices.Equal(r.Predicted, []bool{true, false}) {
		t.Errorf("Wrong = %v, Predicted = %v; want the first key wrong and predicted (shown in 2 ms of a 100 ms round trip)", r.Wrong, r.Predicted)
	}
}

func TestSessionMeasurePanicsOnMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("Measure with 2 keystrokes and 1 reference did not panic")
		}
	}()
	s := Session{At: []time.Time{ms(0), ms(1)}, Refs: []*vt.Framebuffer{prompt("")}}
	s.Measure()
}

// TestSessionMeasureSilent: a keystroke that changes nothing on the
// screen (a password's character) has no response time: the figures
// leave it out instead of counting it never shown, and still count it in
// Keys and Wrong.
func TestSessionMeasureSilent(t *testing.T) {
	s := Session{
		At:      []time.Time{ms(0), ms(100), ms(200)},
		Refs:    []*vt.Framebuffer{pw(""), pw(""), screen(20, 3, "Password: \r\nok")},
		Initial: pw(""),
		Server:  []Output{out(-50, "Password: "), out(260, "\r\nok")},
		Screen:  []Snapshot{{ms(-40), pw("")}, {ms(101), pw("s")}, {ms(150), pw("")}, {ms(300), screen(20, 3, "Password: \r\nok")}},
		Up:      50 * time.Millisecond, Down: 50 * time.Millisecond,
	}
	r := s.Measure()
	if !slices.Equal(r.Silent, []bool{true, true, false}) {
		t.Fatalf("Silent = %v, want the two characters of the password", r.Silent)
	}
	st := r.Stats()
	if st.Keys != 3 || st.Silent != 2 || st.NeverShown != 0 || st.Median != 100*time.Millisecond || st.Wrong != 1.0/3 {
		t.Errorf("Stats = %+v, want 3 keys, 2 silent, none never shown, the Enter's 100 ms, the s shown wrongly", st)
	}
	if !strings.Contains(st.String(), "(2 with nothing to show)") {
		t.Errorf("String() = %q, want the silent keys", st.String())
	}
}

// TestSessionMeasureLate: the client shows the server's screen a one-way
// delay after the server drew it. Commands typed to a pager (each
// scrolls; the prompt row, where the cursor is, stays) count as shown as
// soon as any screen comes after them, so the window starts at the last
// one typed, after which the server has drawn a newer screen that has
// not reached the client yet: what the client shows, the server drew
// before, and it is not wrong.
func TestSessionMeasureLate(t *testing.T) {
	page := func(a, b string) string { return "\x1b[H\x1b[2J" + a + "\r\n" + b + "\r\n:" }
	s := Session{
		At:      []time.Time{ms(0), ms(50), ms(100)},
		Refs:    []*vt.Framebuffer{screen(20, 3, page("2", "3")), screen(20, 3, page("3", "4")), screen(20, 3, page("4", "5"))},
		Initial: screen(20, 3, page("1", "2")),
		Server:  []Output{out(-50, page("1", "2")), out(60, page("2", "3")), out(90, page("3", "4")), out(160, page("4", "5"))},
		Screen: []Snapshot{{ms(110), screen(20, 3, page("2", "3"))}, {ms(140), screen(20, 3, page("3", "4"))},
			{ms(210), screen(20, 3, page("4", "5"))}},
		Up: 50 * time.Millisecond, Down: 50 * time.Millisecond,
	}
	if r := s.Measure(); slices.Contains(r.Wrong, true) {
		t.Errorf("Wrong = %v for the server's screens shown a one-way delay late", r.Wrong)
	}
}

package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

func TestParseEscapeKey(t *testing.T) {
	tests := []struct {
		value string
		set   bool
		want  escapeKey
	}{
		{"", false, defaultEscape},
		{"", true, escapeKey{}},
		{"\x02", true, escapeKey{enabled: true, key: 0x02, pass: 'B', passAlt: 'b'}},
		{"~", true, escapeKey{enabled: true, key: '~', pass: '~'}},
		{"ab", true, defaultEscape},
		{"\x03", true, defaultEscape},
		{"\r", true, defaultEscape},
		{"é", true, defaultEscape},
	}
	for _, tc := range tests {
		if got := parseEscapeKey(tc.value, tc.set); got != tc.want {
			t.Errorf("parseEscapeKey(%q, %v) = %+v, want %+v", tc.value, tc.set, got, tc.want)
		}
	}
}

func TestEscapeFilter(t *testing.T) {
	tests := []struct {
		name     string
		key      escapeKey
		in       string
		wantOut  string
		wantAct  escapeAction
		wantRest string
	}{
		{"plain", defaultEscape, "ls\r", "ls\r", escNone, ""},
		{"quit", defaultEscape, "ab\x1e.cd", "ab", escQuit, "cd"},
		{"suspend", defaultEscape, "\x1e\x1a", "", escSuspend, ""},
		{"literal", defaultEscape, "\x1e^x", "\x1ex", escResume, ""},
		{"other key", defaultEscape, "\x1eq", "\x1eq", escResume, ""},
		{"waiting", defaultEscape, "x\x1e", "x", escWaiting, ""},
		{"printable escape mid-line is typed", parseEscapeKey("~", true), "a~.", "a~.", escNone, ""},
		{"printable escape after CR", parseEscapeKey("~", true), "a\r~.", "a\r", escQuit, ""},
		{"disabled", escapeKey{}, "\x1e.", "\x1e.", escNone, ""},
		{"lowercase pass", parseEscapeKey("\x02", true), "\x02b", "\x02", escResume, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := escapeFilter{key: tc.key}
			out, act, rest := f.Filter(nil, []byte(tc.in))
			if string(out) != tc.wantOut || act != tc.wantAct || string(rest) != tc.wantRest {
				t.Errorf("Filter(%q) = %q, %v, %q; want %q, %v, %q", tc.in, out, act, rest, tc.wantOut, tc.wantAct, tc.wantRest)
			}
		})
	}
	// The escape key split across reads.
	f := escapeFilter{key: defaultEscape}
	if _, act, _ := f.Filter(nil, []byte("\x1e")); act != escWaiting {
		t.Fatalf("first half: act = %v", act)
	}
	if _, act, _ := f.Filter(nil, []byte(".")); act != escQuit {
		t.Errorf("second half: act = %v, want quit", act)
	}
}

func TestNotifierText(t *testing.T) {
	t0 := time.Unix(5000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	hint := defaultEscape.quitHint()
	n := newNotifier(t0, hint)
	if got := n.Text(at(time.Second)); got != "" {
		t.Errorf("fresh bar = %q, want none", got)
	}
	n.Set("Nothing received from server on UDP port 60001.", false, messageLife, at(300*time.Millisecond))
	if got, want := n.Text(at(500*time.Millisecond)), "gosh: Nothing received from server on UDP port 60001. [To quit: Ctrl-^ .]"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	if got := n.Text(at(1400 * time.Millisecond)); got != "" {
		t.Errorf("expired message still shown: %q", got)
	}
	if got, want := n.Text(at(9*time.Second)), "gosh: Last contact 9 seconds ago. [To quit: Ctrl-^ .]"; got != want {
		t.Errorf("late = %q, want %q", got, want)
	}
	n.Set("Exiting on user request...", true, 0, at(17*time.Second))
	if got, want := n.Text(at(17*time.Second)), "gosh: Exiting on user request... (17 s without contact.) [To quit: Ctrl-^ .]"; got != want {
		t.Errorf("late message = %q, want %q", got, want)
	}
	n.ServerHeard(at(20*time.Second), at(19*time.Second))
	if got, want := n.Text(at(21*time.Second)), "gosh: Exiting on user request... [To quit: Ctrl-^ .]"; got != want {
		t.Errorf("permanent message = %q, want %q", got, want)
	}
	n.SetBare(defaultEscape.commandsHint())
	if got, want := n.Text(at(21*time.Second)), `gosh: Commands: Ctrl-Z suspends, "." quits, "^" gives literal Ctrl-^`; got != want {
		t.Errorf("commands = %q, want %q", got, want)
	}
	// Only the reply is late: the server's states arrive, our acks do not.
	n = newNotifier(t0, "")
	n.ServerHeard(at(11*time.Second), t0)
	if got, want := n.Text(at(12*time.Second)), "gosh: Last reply 12 seconds ago."; got != want {
		t.Errorf("reply late = %q, want %q", got, want)
	}
	for d, want := range map[time.Duration]string{
		time.Second: "1 second", 59 * time.Second: "59 seconds", 61 * time.Second: "1:01",
		3601 * time.Second: "1:00:01",
	} {
		if got := humanDuration(d, false); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestNotifierApply(t *testing.T) {
	t0 := time.Unix(5000, 0)
	n := newNotifier(t0, "")
	n.Set("hello", false, messageLife, t0)
	fb := vt.NewFramebuffer(20, 3)
	n.Apply(fb, t0)
	if got, want := fb.Row(0).Text(), "gosh: hello"; got != want {
		t.Errorf("bar text = %q, want %q", got, want)
	}
	if c := fb.Cell(0, 0); c.Rend != barText {
		t.Errorf("text rendition = %+v, want bold white on blue", c.Rend)
	}
	if c := fb.Cell(19, 0); c.Rend != barBack {
		t.Errorf("background rendition = %+v, want white on blue", c.Rend)
	}
	if fb.CursorVisible() {
		t.Error("cursor on the bar's row is still visible")
	}
	// A bar narrower than its text is cut at the screen width.
	narrow := vt.NewFramebuffer(8, 2)
	n.Apply(narrow, t0)
	if got := narrow.Row(0).Text(); got != "gosh: he" {
		t.Errorf("narrow bar = %q", got)
	}
}

func TestNotifierNextDeadline(t *testing.T) {
	t0 := time.Unix(5000, 0)
	n := newNotifier(t0, "")
	if d := n.NextDeadline(t0); d.Sub(t0) < serverLateAfter || d.Sub(t0) > serverLateAfter+time.Second {
		t.Errorf("idle deadline = %v after start, want just after %v", d.Sub(t0), serverLateAfter)
	}
	late := t0.Add(8 * time.Second)
	if d := n.NextDeadline(late); d.Sub(late) != barRefresh {
		t.Errorf("counting deadline = %v, want %v", d.Sub(late), barRefresh)
	}
}

// TestNotifierQueue: messages that come at once through Queue (a
// forward's notices) are each shown for their time, in turn, rather than
// the last replacing the others; a repeat of one shown or waiting is not
// shown again; a permanent message holds them back until it is cleared,
// and Set still replaces what is shown.
func TestNotifierQueue(t *testing.T) {
	t0 := time.Unix(5000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	n := newNotifier(t0, "")
	n.ServerHeard(at(time.Hour), at(time.Hour)) // never late
	bar := func(d time.Duration) string { return n.Text(at(d)) }
	n.Queue("-R 8080: the server listens on 127.0.0.1:8080 only", at(0))
	n.Queue("-L 5432: refused", at(0))
	n.Queue("-L 5432: refused", at(time.Millisecond)) // a second connection refused
	n.Queue("-R 8080: the server listens on 127.0.0.1:8080 only", at(time.Millisecond))
	for _, step := range []struct {
		at   time.Duration
		want string
	}{
		{0, "gosh: -R 8080: the server listens on 127.0.0.1:8080 only"},
		{queueLife - time.Millisecond, "gosh: -R 8080: the server listens on 127.0.0.1:8080 only"},
		{queueLife, "gosh: -L 5432: refused"},
		{2*queueLife - time.Millisecond, "gosh: -L 5432: refused"},
		{2 * queueLife, ""},
	} {
		if got := bar(step.at); got != step.want {
			t.Errorf("at %v: bar = %q, want %q", step.at, got, step.want)
		}
	}
	if d := n.NextDeadline(at(10 * time.Second)); !d.After(at(10 * time.Second)) {
		t.Errorf("deadline %v is not ahead", d)
	}

	n.SetBare("Commands: ...")
	n.Queue("-L 5432: refused", at(20*time.Second))
	if got, want := bar(30*time.Second), "gosh: Commands: ..."; got != want {
		t.Errorf("behind a permanent message: bar = %q, want %q", got, want)
	}
	n.permanent = false
	n.Clear()
	if got, want := bar(31*time.Second), "gosh: -L 5432: refused"; got != want {
		t.Errorf("after the permanent message: bar = %q, want %q", got, want)
	}
	if d := n.NextDeadline(at(31 * time.Second)); !d.After(at(31*time.Second)) || d.After(at(31*time.Second+queueLife)) {
		t.Errorf("deadline = %v, want by the time the message expires", d.Sub(t0))
	}
	n.Set("The relay over SSH ended: EOF", false, errorMessageLife, at(32*time.Second))
	if got, want := bar(32*time.Second), "gosh: The relay over SSH ended: EOF"; got != want {
		t.Errorf("Set: bar = %q, want %q", got, want)
	}
	for i := range 2 * maxWaiting {
		n.Queue(fmt.Sprint("notice ", i), at(40*time.Second))
	}
	if got, want := bar(40*time.Second), "gosh: notice 0"; got != want {
		t.Errorf("bar = %q, want %q", got, want)
	}
	if len(n.waiting) != maxWaiting {
		t.Errorf("%d waiting, want at most %d", len(n.waiting), maxWaiting)
	}
}

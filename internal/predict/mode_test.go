package predict

import (
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
		err  bool
	}{
		{in: "adaptive", want: Adaptive},
		{in: "always", want: Always},
		{in: "never", want: Never},
		{in: "experimental", want: Experimental},
		{in: "", err: true},
		{in: "Always", err: true}, // mosh compares exactly
		{in: "sometimes", err: true},
	} {
		got, err := ParseMode(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseMode(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if !tc.err && got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}

// TestResolveMode follows mosh: --predict wins over MOSH_PREDICTION_DISPLAY,
// which is used (and must be valid, even empty) when set.
func TestResolveMode(t *testing.T) {
	for _, tc := range []struct {
		name          string
		flag          string
		flagSet       bool
		env           string
		envSet        bool
		want          Mode
		err           bool
		overwriteFlag bool
		overwriteEnv  string
		overwrite     bool
	}{
		{name: "default", want: Adaptive},
		{name: "flag", flag: "never", flagSet: true, env: "always", envSet: true, want: Never},
		{name: "env", env: "experimental", envSet: true, want: Experimental},
		{name: "bad env", env: "fast", envSet: true, err: true},
		{name: "empty env", env: "", envSet: true, err: true},
		{name: "bad flag", flag: "x", flagSet: true, err: true},
		{name: "flag ignores bad env", flag: "always", flagSet: true, env: "x", envSet: true, want: Always},
		{name: "overwrite env", overwriteEnv: "yes", overwrite: true},
		{name: "overwrite env not yes", overwriteEnv: "1"},
		{name: "overwrite flag", overwriteFlag: true, overwrite: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveMode(tc.flag, tc.flagSet, tc.env, tc.envSet)
			if (err != nil) != tc.err || (!tc.err && got != tc.want) {
				t.Errorf("ResolveMode = %v, %v; want %v, error %v", got, err, tc.want, tc.err)
			}
			if o := ResolveOverwrite(tc.overwriteFlag, tc.overwriteEnv); o != tc.overwrite {
				t.Errorf("ResolveOverwrite = %v, want %v", o, tc.overwrite)
			}
		})
	}
}

// TestNever checks that mode never predicts, paints or wakes anything.
func TestNever(t *testing.T) {
	s := newSim(t, 20, 2, Never, false)
	s.run([]step{
		{at: 0, host: "$ ", show: []string{"$"}, cur: [2]int{2, 0}},
		{at: 1000, keys: "a", show: []string{"$"}, cur: [2]int{2, 0}},
		{at: 1500, host: "a", acked: 1, echo: 1, show: []string{"$ a"}, cur: [2]int{3, 0}},
		{at: 1600, keys: "bc", show: []string{"$ a"}, cur: [2]int{3, 0}},
	})
	if d := s.e.NextDeadline(); !d.IsZero() {
		t.Errorf("NextDeadline = %v, want none", d)
	}
}

// TestNextDeadline wakes the loop every 50 ms while predictions are
// outstanding and a timer could still change what is shown.
func TestNextDeadline(t *testing.T) {
	e := NewEngine(Adaptive, false)
	fb := vt.NewFramebuffer(10, 2)
	if d := e.NextDeadline(); !d.IsZero() {
		t.Fatalf("NextDeadline = %v before anything, want none", d)
	}
	e.NewUserInput(t0, []byte("a"), fb)
	if d, want := e.NextDeadline(), t0.Add(50*time.Millisecond); !d.Equal(want) {
		t.Fatalf("NextDeadline = %v, want %v", d, want)
	}
	e.SetLateAcked(1)
	e.SetLocalFrameAcked(1)
	fb2 := vt.NewFramebuffer(10, 2)
	fb2.SetCell(0, 0, vt.NewCell('a', vt.Rendition{}))
	fb2.SetCursor(1, 0)
	e.Cull(t0.Add(time.Second), fb2)
	if d := e.NextDeadline(); !d.IsZero() {
		t.Fatalf("NextDeadline = %v with nothing outstanding, want none", d)
	}
	// Glitch trigger and underline both on: no timer left to fire.
	e.SetLocalFrameSent(1)
	e.NewUserInput(t0.Add(2*time.Second), []byte("b"), fb2)
	e.Cull(t0.Add(8*time.Second), fb2)
	e.Cull(t0.Add(8*time.Second), fb2)
	if e.glitch == 0 || !e.flagging {
		t.Fatalf("glitch %d, flagging %v after 6 s pending", e.glitch, e.flagging)
	}
	if d := e.NextDeadline(); !d.IsZero() {
		t.Errorf("NextDeadline = %v with every trigger fired, want none", d)
	}
}

// TestResetAndResize forgets predictions on Reset (a paste) and when the
// screen size changes.
func TestResetAndResize(t *testing.T) {
	s := newSim(t, 20, 3, Adaptive, false)
	s.run(start("$ ", "a"))
	s.run([]step{{at: 1600, keys: "bc", show: []string{"$ abc"}, ul: []string{"   __"}, cur: [2]int{5, 0}}})
	s.e.Reset()
	s.run([]step{
		{at: 1700, host: "", acked: 1, echo: 1, show: []string{"$ a"}, cur: [2]int{3, 0}},
		{at: 1800, keys: "d", show: []string{"$ a"}, cur: [2]int{3, 0}},
	})
	s.em.Resize(30, 4)
	s.run([]step{{at: 1900, host: "", acked: 1, echo: 1, show: []string{"$ a"}, cur: [2]int{3, 0}}})
	if s.e.active() {
		t.Errorf("predictions outstanding after a resize")
	}
}

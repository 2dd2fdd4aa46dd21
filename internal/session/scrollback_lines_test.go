package session_test

import (
	"strconv"
	"testing"

	"github.com/gosh-term/gosh/internal/session"
)

// TestScrollbackZeroIsDefault: a configuration that leaves Scrollback out
// keeps DefaultScrollback lines; only NoScrollback keeps none.
func TestScrollbackZeroIsDefault(t *testing.T) {
	tests := []struct {
		s    session.Scrollback
		want int
	}{
		{0, session.DefaultScrollback},
		{session.NoScrollback, 0},
		{-7, 0},
		{500, 500},
		{session.MaxScrollback + 1, session.MaxScrollback},
	}
	for _, tc := range tests {
		if got := tc.s.Lines(); got != tc.want {
			t.Errorf("Scrollback(%d).Lines() = %d, want %d", int(tc.s), got, tc.want)
		}
	}
	var cfg session.ServerConfig
	if got := cfg.Scrollback.Lines(); got != session.DefaultScrollback {
		t.Errorf("an empty ServerConfig keeps %d lines, want %d", got, session.DefaultScrollback)
	}
}

// TestScrollbackSet: --scrollback takes a line count, 0 meaning none, and
// refuses anything else with the range it wants.
func TestScrollbackSet(t *testing.T) {
	good := map[string]session.Scrollback{"0": session.NoScrollback, "1": 1, "200": 200, "1000000": session.MaxScrollback}
	for text, want := range good {
		var s session.Scrollback
		if err := s.Set(text); err != nil || s != want {
			t.Errorf("Set(%q) = %d, %v; want %d", text, int(s), err, int(want))
		}
		if s.String() != text {
			t.Errorf("Set(%q).String() = %q", text, s.String())
		}
	}
	for _, text := range []string{"", "-1", "x", "1e3", "1000001", " 5", "99999999999999999999"} {
		var s session.Scrollback
		if err := s.Set(text); err == nil {
			t.Errorf("Set(%q) = %d, want an error", text, int(s))
		}
		if s != 0 {
			t.Errorf("a refused Set(%q) changed the value to %d", text, int(s))
		}
	}
	var s session.Scrollback
	if s.String() != strconv.Itoa(session.DefaultScrollback) {
		t.Errorf("the zero value's String() = %q, want the default", s.String())
	}
}

// FuzzScrollbackSet: any text is taken or refused without a panic; a
// value taken keeps 0..MaxScrollback lines and prints back as a count
// that parses to the same.
func FuzzScrollbackSet(f *testing.F) {
	for _, s := range []string{"0", "10000", "-1", "1000001", "abc", "+5", "007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s session.Scrollback
		if err := s.Set(text); err != nil {
			return
		}
		n := s.Lines()
		if n < 0 || n > session.MaxScrollback {
			t.Fatalf("Set(%q) keeps %d lines", text, n)
		}
		var again session.Scrollback
		if err := again.Set(s.String()); err != nil || again.Lines() != n {
			t.Fatalf("Set(%q): String %q parses to %d, %v; want %d", text, s.String(), again.Lines(), err, n)
		}
	})
}

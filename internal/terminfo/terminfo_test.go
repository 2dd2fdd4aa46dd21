package terminfo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The entries in testdata are Debian 12's compiled ncurses entries.
func TestParse(t *testing.T) {
	tests := []struct {
		file string
		want Terminal
	}{
		{"xterm", Terminal{
			Names: []string{"xterm", "xterm-debian", "xterm terminal emulator (X Window System)"},
			BCE:   true, Colors: 8, ECH: true,
			EnterCA: "\x1b[?1049h\x1b[22;0;0t", // smcup=\E[?1049h\E[22;0;0t
			ExitCA:  "\x1b[?1049l\x1b[23;0;0t", // rmcup=\E[?1049l\E[23;0;0t
		}},
		{"xterm-256color", Terminal{
			Names: []string{"xterm-256color", "xterm with 256 colors"},
			BCE:   true, Colors: 256, ECH: true,
			EnterCA: "\x1b[?1049h\x1b[22;0;0t",
			ExitCA:  "\x1b[?1049l\x1b[23;0;0t",
		}},
		{"vt100", Terminal{
			Names:  []string{"vt100", "vt100-am", "DEC VT100 (w/advanced video)"},
			Colors: -1,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(b)
			if err != nil {
				t.Fatalf("Parse(%s): %v", tc.file, err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("Parse(%s) = %#v, want %#v", tc.file, *got, tc.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "xterm"))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{
		"empty":      nil,
		"short":      good[:5],
		"bad magic":  append([]byte{0x12, 0x34}, good[2:]...),
		"truncated":  good[:len(good)/2],
		"negative":   append(append([]byte{}, good[:2]...), append([]byte{0xfe, 0xff}, good[4:]...)...),
		"giant size": append(append([]byte{}, good[:10]...), append([]byte{0xff, 0x7f}, good[12:]...)...),
	}
	for name, b := range bad {
		if _, err := Parse(b); err == nil {
			t.Errorf("Parse(%s) succeeded, want an error", name)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "78"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "xterm-256color"))
	if err != nil {
		t.Fatal(err)
	}
	// macOS lays entries out by the hexadecimal code of the first letter.
	if err := os.WriteFile(filepath.Join(dir, "78", "xterm-256color"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TERMINFO", dir)
	got, err := Load("xterm-256color")
	if err != nil {
		t.Fatal(err)
	}
	if got.Colors != 256 {
		t.Errorf("Load(xterm-256color).Colors = %d, want 256", got.Colors)
	}
	for _, name := range []string{"", "../x", "a/b", "no-such-terminal-gosh"} {
		if _, err := Load(name); err == nil {
			t.Errorf("Load(%q) succeeded, want an error", name)
		}
	}
}

func TestFallback(t *testing.T) {
	if got := Fallback("xterm-256color"); got.Colors != 256 || got.EnterCA == "" || !got.BCE {
		t.Errorf("Fallback(xterm-256color) = %+v", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"xterm", "xterm-256color", "vt100"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tm, err := Parse(b)
		if err == nil && tm == nil {
			t.Fatal("Parse returned nil, nil")
		}
	})
}

// TestColors: the terminal's colours from the environment terminals set,
// then from its terminfo entry.
func TestColors(t *testing.T) {
	e256 := &Terminal{Colors: 256}
	e8 := &Terminal{Colors: 8}
	tests := []struct {
		name  string
		env   map[string]string
		goos  string
		entry *Terminal
		want  int
	}{
		{"Windows Terminal: no TERM, no COLORTERM", map[string]string{"WT_SESSION": "0f6e9d7a-1c2b-4e55-9a1f-3b2c8d7e6f10"}, "windows", nil, TrueColor},
		{"Windows Terminal in WSL", map[string]string{"TERM": "xterm-256color", "WT_SESSION": "x"}, "linux", e256, TrueColor},
		{"the Windows console", map[string]string{}, "windows", nil, TrueColor},
		{"no TERM elsewhere", map[string]string{}, "linux", nil, 8},
		{"COLORTERM truecolor", map[string]string{"TERM": "xterm", "COLORTERM": "truecolor"}, "linux", e8, TrueColor},
		{"COLORTERM 24bit", map[string]string{"TERM": "xterm-256color", "COLORTERM": "24bit"}, "darwin", e256, TrueColor},
		{"COLORTERM of another kind", map[string]string{"TERM": "xterm", "COLORTERM": "rxvt-xpm"}, "linux", e8, 8},
		{"ghostty without its entry", map[string]string{"TERM": "xterm-ghostty"}, "linux", nil, TrueColor},
		{"kitty without its entry", map[string]string{"TERM": "xterm-kitty"}, "linux", nil, TrueColor},
		{"kitty with its entry", map[string]string{"TERM": "xterm-kitty"}, "linux", e256, TrueColor},
		{"alacritty", map[string]string{"TERM": "alacritty"}, "linux", nil, TrueColor},
		{"wezterm", map[string]string{"TERM": "wezterm"}, "linux", nil, TrueColor},
		{"foot", map[string]string{"TERM": "foot"}, "linux", nil, TrueColor},
		{"foot-extra", map[string]string{"TERM": "foot-extra"}, "linux", nil, TrueColor},
		{"a direct-colour entry", map[string]string{"TERM": "xterm-direct"}, "linux", &Terminal{Colors: TrueColor}, TrueColor},
		{"WezTerm by TERM_PROGRAM", map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}, "darwin", e256, TrueColor},
		{"iTerm2", map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, "darwin", e256, TrueColor},
		{"ghostty by TERM_PROGRAM", map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "ghostty"}, "darwin", e256, TrueColor},
		{"Apple's Terminal", map[string]string{"TERM": "xterm", "TERM_PROGRAM": "Apple_Terminal"}, "darwin", e8, 256},
		{"tmux inside", map[string]string{"TERM": "tmux-256color", "TERM_PROGRAM": "tmux"}, "linux", e256, 256},
		{"256color without an entry", map[string]string{"TERM": "screen-256color"}, "linux", nil, 256},
		{"plain xterm", map[string]string{"TERM": "xterm"}, "linux", e8, 8},
		{"the Linux console", map[string]string{"TERM": "linux"}, "linux", e8, 8},
		{"an entry without colours", map[string]string{"TERM": "vt100"}, "linux", &Terminal{Colors: -1}, 8},
		{"a prefix is not a name", map[string]string{"TERM": "footprint"}, "linux", nil, 8},
	}
	for _, tc := range tests {
		got := Colors(func(k string) string { return tc.env[k] }, tc.goos, tc.entry)
		if got != tc.want {
			t.Errorf("%s: Colors = %d, want %d", tc.name, got, tc.want)
		}
	}
}

package daemon

import (
	"runtime"
	"slices"
	"testing"
)

func TestIsUTF8Locale(t *testing.T) {
	for in, want := range map[string]bool{
		"en_US.UTF-8": true, "C.utf8": true, "C.UTF-8": true, "UTF-8": true,
		"de_DE.utf-8@euro": true, "": false, "C": false, "POSIX": false,
		"en_US": false, "en_US.ISO-8859-1": false, "ja_JP.eucJP": false,
	} {
		if got := isUTF8Locale(in); got != want {
			t.Errorf("isUTF8Locale(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestServerEnv(t *testing.T) {
	fallback := "LC_CTYPE=C.UTF-8"
	if runtime.GOOS == "darwin" {
		fallback = "LC_CTYPE=UTF-8"
	}
	tests := []struct {
		name      string
		own       []string
		client    []string
		colors    int
		want      []string // must be present
		forbidden []string // must be absent
	}{
		{"utf8 server keeps its locale",
			[]string{"LANG=C.UTF-8", "TERM=screen", "STY=1.x", "HOME=/h"}, []string{"LANG=fr_FR.UTF-8"}, 256,
			[]string{"LANG=C.UTF-8", "TERM=xterm-256color", "NCURSES_NO_UTF8_ACS=1", "PWD=/h"},
			[]string{"LANG=fr_FR.UTF-8", "TERM=screen", "STY=1.x"}},
		{"posix server takes the client's locale",
			[]string{"LANG=C", "LC_MESSAGES=C", "HOME=/h"}, []string{"LANG=fr_FR.UTF-8"}, 8,
			[]string{"LANG=fr_FR.UTF-8", "TERM=xterm"},
			[]string{"LANG=C", "LC_MESSAGES=C"}},
		{"nothing utf8 falls back",
			[]string{"HOME=/h"}, []string{"LANG=C"}, 0,
			[]string{"LANG=C", fallback, "TERM=xterm"}, nil},
		{"24-bit colour",
			[]string{"LANG=C.UTF-8", "COLORTERM=rxvt"}, nil, 1 << 24,
			[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}, []string{"COLORTERM=rxvt"}},
		{"256 colours claim no 24-bit colour",
			[]string{"LANG=C.UTF-8", "COLORTERM=truecolor"}, nil, 256,
			[]string{"TERM=xterm-256color"}, []string{"COLORTERM=truecolor"}},
		{"88 colours",
			[]string{"LANG=C.UTF-8"}, nil, 88,
			[]string{"TERM=xterm"}, []string{"COLORTERM=truecolor"}},
		{"the key never reaches the shell",
			[]string{"LANG=C.UTF-8", "MOSH_KEY=secret"}, nil, 0,
			[]string{"LANG=C.UTF-8"}, []string{"MOSH_KEY=secret"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := serverEnv(tc.own, tc.client, tc.colors, "/h")
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("serverEnv = %q, missing %q", got, w)
				}
			}
			for _, f := range tc.forbidden {
				if slices.Contains(got, f) {
					t.Errorf("serverEnv = %q, contains %q", got, f)
				}
			}
		})
	}
}

package connectline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/sspcrypto"
)

func TestParse(t *testing.T) {
	const key = "4NeCCgvZFe2RnPgrcU1PQw" // 22 chars, last one carries no extra bits
	tests := []struct {
		name     string
		line     string
		wantPort uint16
		ok       bool
	}{
		{"plain", "MOSH CONNECT 60001 " + key, 60001, true},
		{"trailing CR LF", "MOSH CONNECT 60001 " + key + "\r\n", 60001, true},
		{"trailing blanks", "MOSH CONNECT 1 " + key + " \t ", 1, true},
		{"max port", "MOSH CONNECT 65535 " + key, 65535, true},
		{"leading zeros", "MOSH CONNECT 060001 " + key, 60001, true},
		{"port zero", "MOSH CONNECT 0 " + key, 0, false},
		{"port too big", "MOSH CONNECT 65536 " + key, 0, false},
		{"no port", "MOSH CONNECT  " + key, 0, false},
		{"signed port", "MOSH CONNECT +1 " + key, 0, false},
		{"two spaces", "MOSH CONNECT 60001  " + key, 0, false},
		{"short key", "MOSH CONNECT 60001 " + key[:21], 0, false},
		{"long key", "MOSH CONNECT 60001 " + key + "A", 0, false},
		{"padded key", "MOSH CONNECT 60001 " + key[:20] + "==", 0, false},
		{"bad last char", "MOSH CONNECT 60001 " + key[:21] + "x", 0, false}, // low bits set: not a 128-bit key
		{"junk after key", "MOSH CONNECT 60001 " + key + " x", 0, false},
		{"leading space", " MOSH CONNECT 60001 " + key, 0, false},
		{"lower case", "mosh connect 60001 " + key, 0, false},
		{"empty", "", 0, false},
		{"prefix only", "MOSH CONNECT ", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			port, k, ok := Parse(tc.line)
			if ok != tc.ok || port != tc.wantPort {
				t.Fatalf("Parse(%q) = %d, %v, want %d, %v", tc.line, port, ok, tc.wantPort, tc.ok)
			}
			if ok && k.Base64() != key {
				t.Errorf("Parse(%q) key = %s, want %s", tc.line, k.Base64(), key)
			}
		})
	}
}

func TestParseDetached(t *testing.T) {
	tests := []struct {
		line string
		want Detached
		ok   bool
	}{
		{"[mosh-server detached, pid = 1234]", Detached{PID: 1234}, true},
		{"[gosh server detached, pid = 4321]", Detached{PID: 4321}, true},
		{"[gosh server detached, pid = 4321, session = 78fedffa]", Detached{PID: 4321, Session: "78fedffa"}, true},
		{"[mosh-server detached, pid = 1234]\r", Detached{PID: 1234}, true},
		{"[mosh-server detached, pid = ]", Detached{}, false},
		{"[mosh-server detached, pid = 0]", Detached{}, false},
		{"[mosh-server detached, pid = 12a]", Detached{}, false},
		{"[mosh-server detached, pid = 12, session = 78fedffa]", Detached{}, false}, // mosh-server has no session
		{"[gosh server detached, pid = 12, session = 78FEDFFA]", Detached{}, false},
		{"[gosh server detached, pid = 12, session = 78fedff]", Detached{}, false},
		{"[gosh server detached, pid = 12, session = 78fedffa/..]", Detached{}, false},
		{"[gosh server detached, pid = , session = 78fedffa]", Detached{}, false},
		{"[gosh server detached, pid = 12, session = ]", Detached{}, false},
		{"mosh-server (mosh 1.4.0)", Detached{}, false},
	}
	for _, tc := range tests {
		if d, ok := ParseDetached(tc.line); d != tc.want || ok != tc.ok {
			t.Errorf("ParseDetached(%q) = %+v, %v, want %+v, %v", tc.line, d, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseDetached: whatever is accepted has a positive pid and an
// empty or well-formed session ID, and gosh's banner for it parses back
// the same.
func FuzzParseDetached(f *testing.F) {
	for _, s := range []string{"[mosh-server detached, pid = 1234]", "[gosh server detached, pid = 4321, session = 78fedffa]",
		"[gosh server detached, pid = 99999999999999999999]", "[gosh server detached, pid = 1, session = , session = ]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		d, ok := ParseDetached(line)
		if !ok {
			return
		}
		if d.PID <= 0 || d.Session != "" && !ValidSessionID(d.Session) {
			t.Fatalf("ParseDetached(%q) = %+v", line, d)
		}
		banner := strings.Split(strings.TrimSuffix(string(AppendDetached(nil, d)), "\n"), "\n")
		if again, ok := ParseDetached(banner[len(banner)-1]); !ok || again != d {
			t.Fatalf("ParseDetached(%q) = %+v; its banner %q parses to %+v, %v", line, d, banner[len(banner)-1], again, ok)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"MOSH CONNECT 60001 4NeCCgvZFe2RnPgrcU1PQw", "MOSH CONNECT 60001 4NeCCgvZFe2RnPgrcU1PQw\r\n",
		"MOSH CONNECT 0 AAAAAAAAAAAAAAAAAAAAAA", "MOSH CONNECT 99999999999999999999 AAAAAAAAAAAAAAAAAAAAAA", "MOSH CONNECT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		port, key, ok := Parse(line)
		if !ok {
			return
		}
		// Whatever is accepted re-encodes to a line that parses the same.
		again := fmt.Sprintf("MOSH CONNECT %d %s", port, key.Base64())
		p2, k2, ok2 := Parse(again)
		if !ok2 || p2 != port || !k2.Equal(key) || port == 0 {
			t.Fatalf("Parse(%q) = %d %v; re-encoded %q = %d %v", line, port, ok, again, p2, ok2)
		}
	})
}

func TestIsBanner(t *testing.T) {
	for line, want := range map[string]bool{
		"": true,
		"mosh-server (mosh 1.4.0) [build mosh 1.4.0]":                  true,
		"Copyright 2012 Keith Winstein <mosh-devel@mit.edu>":           true,
		"[mosh-server detached, pid = 12]":                             true,
		"gosh server (gosh v1, mosh protocol 2)":                       true,
		"[gosh server detached, pid = 7]":                              true,
		"mosh-server: command not found":                               false,
		"Warning: SSH_CONNECTION not found; binding to any interface.": false,
	} {
		if got := IsBanner(line); got != want {
			t.Errorf("IsBanner(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestAppend(t *testing.T) {
	const text = "4NeCCgvZFe2RnPgrcU1PQw"
	key, err := sspcrypto.ParseKey(text)
	if err != nil {
		t.Fatal(err)
	}
	line := Append(nil, 60001, key)
	if got, want := string(line), "MOSH CONNECT 60001 "+text+"\n"; got != want {
		t.Errorf("Append = %q, want %q", got, want)
	}
	if port, k, ok := Parse(string(line)); !ok || port != 60001 || !k.Equal(key) {
		t.Errorf("Parse(Append(...)) = %d, %v, %v", port, k, ok)
	}
	for _, d := range []Detached{{PID: 4321}, {PID: 4321, Session: "78fedffa"}} {
		banner := strings.Split(strings.TrimSuffix(string(AppendDetached(nil, d)), "\n"), "\n")
		for _, l := range banner {
			if !IsBanner(l) {
				t.Errorf("AppendDetached line %q is not a banner line", l)
			}
		}
		if got, ok := ParseDetached(banner[len(banner)-1]); !ok || got != d {
			t.Errorf("ParseDetached(%q) = %+v, %v, want %+v", banner[len(banner)-1], got, ok, d)
		}
	}
	if got := string(AppendDetached(nil, Detached{PID: 7, Session: "78fedffa"})); !strings.HasSuffix(got, "\n[gosh server detached, pid = 7, session = 78fedffa]\n") {
		t.Errorf("AppendDetached = %q", got)
	}
	if got := string(AppendDetached(nil, Detached{PID: 7, Session: "../x"})); !strings.HasSuffix(got, "\n[gosh server detached, pid = 7]\n") {
		t.Errorf("AppendDetached with a bad session = %q", got)
	}
}

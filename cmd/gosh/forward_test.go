package main

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"testing"
)

func TestParseForwards(t *testing.T) {
	for _, tc := range []struct {
		local        bool
		in           string
		listen, dest string
		bad          bool
	}{
		{true, "8080:db:5432", "127.0.0.1:8080", "db:5432", false},
		{true, "*:8080:db:5432", ":8080", "db:5432", false},
		{true, "0.0.0.0:8080:[::1]:22", "0.0.0.0:8080", "[::1]:22", false},
		{true, "[::1]:8080:localhost:22", "[::1]:8080", "localhost:22", false},
		{true, "8080:db", "", "", true},
		{true, "0:db:22", "", "", true},
		{true, "8080:db:70000", "", "", true},
		{true, "8080::22", "", "", true},
		{false, "1080", "127.0.0.1:1080", "", false},
		{false, "*:1080", ":1080", "", false},
		{false, "x", "", "", true},
		{false, "a:b:c", "", "", true},
	} {
		parse := parseDynamicForward
		if tc.local {
			parse = parseLocalForward
		}
		sp, err := parse(tc.in)
		if (err != nil) != tc.bad || err == nil && (sp.listen != tc.listen || sp.dest != tc.dest) {
			t.Errorf("parse(%q) = %+v, %v; want listen %q dest %q bad %v", tc.in, sp, err, tc.listen, tc.dest, tc.bad)
		}
	}
}

// TestListenForwardsPortInUse: as with ssh, a -L port already in use is a
// warning, and the other forwards still listen.
func TestListenForwardsPortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	inUse, _ := parseLocalForward(fmt.Sprintf("%d:db:5432", port))
	free, err := parseDynamicForward("1080")
	if err != nil {
		t.Fatal(err)
	}
	free.listen = "127.0.0.1:0" // any free port
	var stderr bytes.Buffer
	fwd := listenForwards([]forwardSpec{inUse, free}, &stderr)
	defer func() {
		for _, f := range fwd {
			f.Listener.Close()
		}
	}()
	if len(fwd) != 1 || fwd[0].Name != "-D 1080" {
		t.Errorf("listening for %+v, want the -D alone", fwd)
	}
	if !strings.Contains(stderr.String(), "gosh: -L "+inUse.arg+": ") || !strings.Contains(stderr.String(), "not forwarding it") {
		t.Errorf("stderr %q, want a warning naming the -L", stderr.String())
	}
}

// FuzzParseForward: the -L, -R and -D parsers never panic, and what they
// accept listens on a host:port and forwards to one.
func FuzzParseForward(f *testing.F) {
	for _, s := range []string{"8080:db:5432", "*:8080:db:5432", "[::1]:8080:[::1]:22", "1080", "a:b:c:d:e", "[:]:", "]]::[["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, parse := range []func(string) (forwardSpec, error){parseLocalForward, parseRemoteForward, parseDynamicForward} {
			sp, err := parse(s)
			if err != nil {
				continue
			}
			if _, _, err := net.SplitHostPort(sp.listen); err != nil {
				t.Fatalf("%q: listen %q: %v", s, sp.listen, err)
			}
			if sp.dest != "" {
				if _, _, err := net.SplitHostPort(sp.dest); err != nil {
					t.Fatalf("%q: dest %q: %v", s, sp.dest, err)
				}
			}
		}
	})
}

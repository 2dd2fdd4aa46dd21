package main

import "testing"

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

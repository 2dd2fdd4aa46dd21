package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/resume"
	"github.com/gosh-term/gosh/internal/session"
)

// TestPickRecord: --resume ID finds a session by the ID gosh sessions
// lists (the server's), or by its record's own for a record without one,
// preferring a detached record; without an ID the newest detached one.
func TestPickRecord(t *testing.T) {
	recs := []resume.Record{ // newest first, as resume.List returns them
		{ID: "00000001", Session: "78fedffa", Host: "a"},                 // held by a live client
		{ID: "00000002", Session: "78fedffa", Host: "b", Detached: true}, // same server ID, another host
		{ID: "00000003", Host: "a", Detached: true},                      // an earlier gosh's, or a stock server's
		{ID: "00000004", Session: "0badc0de", Host: "a"},
	}
	tests := []struct {
		name, want string
	}{
		{"", "00000002"},
		{"78fedffa", "00000002"},
		{"00000003", "00000003"},
		{"0badc0de", "00000004"}, // held: claiming it says so
		{"00000001", ""},         // a record with a server ID is not known by its own
		{"12345678", ""},
	}
	for _, tc := range tests {
		got := ""
		if r := pickRecord(recs, tc.name); r != nil {
			got = r.ID
		}
		if got != tc.want {
			t.Errorf("pickRecord(%q) = record %q, want %q", tc.name, got, tc.want)
		}
	}
	if r := pickRecord(recs[:1], ""); r != nil {
		t.Errorf("pickRecord of held records only = %+v, want none", r)
	}
}

// TestForgetSession: a new record for a session (after --attach gave it a
// new key) removes this machine's detached records of the same session on
// the same host, which could no longer resume it, and nothing else.
func TestForgetSession(t *testing.T) {
	isolateState(t)
	dir, err := resume.Dir()
	if err != nil {
		t.Fatal(err)
	}
	create := func(host, session string, release bool) string {
		f, err := resume.Create(dir, resume.Record{Session: session, Host: host, Server: "192.0.2.1:60001", Key: "AAAAAAAAAAAAAAAAAAAAAA", Gosh: true})
		if err != nil {
			t.Fatal(err)
		}
		if release {
			f.Release()
		} else {
			t.Cleanup(func() { f.Release() })
		}
		return f.Record().ID
	}
	stale := create("h", "78fedffa", true)
	keep := []string{create("other", "78fedffa", true), create("h", "0badc0de", true), create("h", "78fedffa", false), create("h", "", true)}
	forgetSession(dir, "h", "78fedffa")
	recs, err := resume.List(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{}
	for _, r := range recs {
		left[r.ID] = true
	}
	if left[stale] || len(left) != len(keep) {
		t.Errorf("left %v; want all but %s of %v", left, stale, keep)
	}
	for _, id := range keep {
		if !left[id] {
			t.Errorf("record %s was removed", id)
		}
	}
}

// TestResumedGone: a resumed session whose server no longer answers ends
// with one line naming the session and what to do, not that line and the
// firewall advice meant for a server never reached; its record is gone.
func TestResumedGone(t *testing.T) {
	isolateState(t)
	dir, err := resume.Dir()
	if err != nil {
		t.Fatal(err)
	}
	f, err := resume.Create(dir, resume.Record{Session: "78fedffa", Host: "box", Server: "192.0.2.1:60001", Key: "AAAAAAAAAAAAAAAAAAAAAA", Gosh: true})
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	s := &savedSession{file: f, resumed: true}
	err = s.end(fmt.Errorf("%w at 192.0.2.1:60001 (check that UDP port 60001 is not firewalled)", session.ErrNoConnection), &stderr)
	if err == nil || strings.Contains(err.Error(), "firewalled") || !strings.Contains(err.Error(), "78fedffa") || !strings.Contains(err.Error(), "gosh sessions box") {
		t.Errorf("end = %v; want one error naming the session and gosh sessions box", err)
	}
	if stderr.Len() > 0 {
		t.Errorf("end also printed %q", stderr.String())
	}
	if recs, _ := resume.List(dir, ""); len(recs) != 0 {
		t.Errorf("records left: %+v", recs)
	}
}

// isolateState gives the test a state directory of its own for the saved
// sessions: $XDG_STATE_HOME on Unix, %LOCALAPPDATA% on Windows.
func isolateState(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	t.Setenv("LOCALAPPDATA", dir)
}

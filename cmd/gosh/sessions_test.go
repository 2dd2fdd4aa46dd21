//go:build unix

package main

import (
	"bytes"
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/daemon"
)

// runGosh runs the command line in process, with this user's control
// directory in new temporary directories.
func runGosh(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code = run(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func isolateControlDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
}

func TestServerListNoSessions(t *testing.T) {
	isolateControlDir(t)
	if code, out, errs := runGosh(t, "server", "list"); code != 0 || out != "no gosh sessions on this host\n" || errs != "" {
		t.Errorf("gosh server list = %d, %q, %q; want 0 and a line saying there are none", code, out, errs)
	}
	if code, out, errs := runGosh(t, "server", "list", "--json"); code != 0 || out != "[]\n" || errs != "" {
		t.Errorf("gosh server list --json = %d, %q, %q; want 0 and []", code, out, errs)
	}
}

func TestServerAttachKillNoSession(t *testing.T) {
	isolateControlDir(t)
	for _, args := range [][]string{{"server", "attach", "nosuch"}, {"server", "kill", "0123abcd"}, {"server", "attach", "../../etc"}} {
		code, out, errs := runGosh(t, args...)
		id := args[2]
		want := "gosh: no session " + id + " on this host (gosh sessions lists them)\n"
		if code != exitError || out != "" || errs != want {
			t.Errorf("gosh %s = %d, %q, %q; want %d and %q", strings.Join(args, " "), code, out, errs, exitError, want)
		}
	}
	if code, _, errs := runGosh(t, "server", "attach"); code != exitUsage || strings.Count(errs, "\n") != 1 {
		t.Errorf("gosh server attach without id = %d, %q; want a usage error", code, errs)
	}
}

func TestSessionsBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{"sessions"},
		{"sessions", "h", "extra"},
		{"sessions", "--kill", "nosuch", "h"},
		{"sessions", "--kill", "0123abcd", "--json", "h"},
		{"sessions", "--server=mosh-server", "h"},
	} {
		if code, out, errs := runGosh(t, args...); code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("gosh %q = %d, %q, %q; want a one-line usage error", args, code, out, errs)
		}
	}
}

func TestConnectAttachFlags(t *testing.T) {
	o, err := parseConnect(t, "--attach", "0123abcd", "alice@example.net")
	if err != nil || o.Attach != "0123abcd" || o.Destination != "alice@example.net" {
		t.Fatalf("--attach: %+v, %v", o, err)
	}
	for _, args := range [][]string{
		{"--attach", "nosuch", "h"},
		{"--attach", "0123abcd", "--server=mosh-server", "h"},
		{"--attach", "0123abcd", "--server=/usr/bin/mosh-server", "h"},
		{"--attach", "0123abcd", "--local"},
		{"--attach", "0123abcd", "--direct", "127.0.0.1", "60001"},
		{"--attach", "0123abcd", "h", "--", "top"},
	} {
		if _, err := parseConnect(t, args...); err == nil {
			t.Errorf("connect %q accepted", args)
		} else if _, ok := err.(*usageError); !ok {
			t.Errorf("connect %q: %v is not a usage error", args, err)
		}
	}
}

func TestAttachFrom(t *testing.T) {
	for in, want := range map[string]string{
		"":                                    "local",
		"192.0.2.1 5555 198.51.100.7 22":      "192.0.2.1",
		"::ffff:192.0.2.1 5555 ::1 22":        "192.0.2.1",
		"2001:db8::1 5555 2001:db8::2 22":     "2001:db8::1",
		"\x1b[2J 5555 198.51.100.7 22":        "unknown",
		"fe80::1%eth0 5555 fe80::2%eth0 22":   "fe80::1%eth0",
		"   ":                                 "local",
		"not-an-address 1 2 3":                "unknown",
		"192.0.2.1":                           "192.0.2.1",
		"999.0.0.1 5555 198.51.100.7 22 more": "unknown",
	} {
		if got := attachFrom(in); got != want {
			t.Errorf("attachFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteSessions(t *testing.T) {
	now := time.Date(2024, 5, 6, 7, 8, 9, 0, time.Local)
	list := []daemon.Session{
		{ID: "0123abcd", PID: 42, Command: "bash", Port: 60001, Started: now.Add(-time.Hour), LastContact: now.Add(-12 * time.Second),
			Client: netip.MustParseAddrPort("192.0.2.7:5555"), Cols: 80, Rows: 24, Attached: true},
		{ID: "89abcdef", PID: 43, Command: "top\x1b[2J", Port: 60002, Started: now, Cols: 100, Rows: 30},
		{ID: "deadbeef", Err: "no answer"},
	}
	var b bytes.Buffer
	if err := writeSessions(&b, list, now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID ") {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, want := range [][]string{
		{"0123abcd", "2024-05-06 06:08", "12s ago", "192.0.2.7", "80x24", "attached", "42", "bash"},
		{"89abcdef", "2024-05-06 07:08", "never", "-", "100x30", "detached", "43", "top?[2J"},
		{"deadbeef", "?", "?", "?", "?", "no answer", "?"},
	} {
		line := lines[i+1]
		for _, w := range want {
			if !strings.Contains(line, w) {
				t.Errorf("line %q lacks %q", line, w)
			}
		}
		if strings.ContainsRune(line, 0x1b) {
			t.Errorf("line %q has an escape", line)
		}
	}
}

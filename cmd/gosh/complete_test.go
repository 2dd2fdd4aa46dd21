package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// complete runs gosh __complete args (what the shells' completion scripts
// run) and returns the completions, without the directive line.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"__complete"}, args...), strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("gosh __complete %q: exit status %d, stderr %q", args, code, stderr.String())
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if line != "" && !strings.HasPrefix(line, ":") {
			out = append(out, strings.SplitN(line, "\t", 2)[0])
		}
	}
	return out
}

// TestCompleteHost: gosh connect, gosh sessions and bare gosh complete
// their destination from ssh_config's Host lines (Include followed, no
// patterns) and known_hosts (no hashed entries), after a user@ too, and
// from the file --ssh-config names; a word after the destination (the
// remote command) completes to nothing.
func TestCompleteHost(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // the home of os.UserHomeDir on Windows
	ssh := filepath.Join(home, ".ssh")
	for name, body := range map[string]string{
		"config":           "Host gosh-test-alpha gosh-test-*.wild !gosh-test-neg\nInclude more/*\n",
		"more/one":         "Host gosh-test-included\n",
		"known_hosts":      "gosh-test-known.example,192.0.2.7 ssh-ed25519 AAAA\n|1|F1E1KeoE/eEWhi10WpGv4OdiO6Y=|3988QV0VE8wmZL7suNrYQLITLCg= ssh-ed25519 AAAA\n[gosh-test-port.example]:2222 ssh-ed25519 AAAA\n",
		"other_config":     "Host gosh-test-other\n",
		"more/ignored.not": "", // matched by more/*: no hosts in it
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ssh, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ssh, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	all := []string{"gosh-test-alpha", "gosh-test-included", "gosh-test-known.example", "gosh-test-port.example:2222"}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"connect", "gosh-test-"}, all},
		{[]string{"sessions", "gosh-test-"}, all},
		{[]string{"gosh-test-"}, all},
		{[]string{"connect", "gosh-test-a"}, []string{"gosh-test-alpha"}},
		{[]string{"connect", "alice@gosh-test-k"}, []string{"alice@gosh-test-known.example"}},
		{[]string{"sessions", "--ssh-config", filepath.Join(ssh, "other_config"), "gosh-test-"},
			[]string{"gosh-test-known.example", "gosh-test-other", "gosh-test-port.example:2222"}},
		{[]string{"connect", "gosh-test-alpha", "gosh-test-"}, nil},
		{[]string{"gosh-test-alpha", ""}, nil},
	} {
		if got := complete(t, tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("gosh __complete %q = %q, want %q", tc.args, got, tc.want)
		}
	}
	// Bare gosh still completes its subcommands.
	if got := complete(t, "sess"); !slices.Equal(got, []string{"sessions"}) {
		t.Errorf("gosh __complete sess = %q, want sessions", got)
	}
}

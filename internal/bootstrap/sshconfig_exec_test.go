//go:build unix

package bootstrap

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/sshconfig"
)

// TestMatchExec: Match exec runs through the user's shell ($SHELL) with
// the %-tokens of the host being resolved, each quoted as one word; a
// command runs only while the line's earlier criteria hold.
func TestMatchExec(t *testing.T) {
	home := t.TempDir()
	marker := filepath.Join(home, "MARKER")
	shellLog := filepath.Join(home, "shell.log")
	shell := filepath.Join(home, "myshell")
	writeFile(t, shell, "#!/bin/sh\necho \"$@\" >> "+shellQuote(shellLog)+"\nexec /bin/sh \"$@\"\n")
	if err := os.Chmod(shell, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", shell)
	evil := "$(touch " + marker + ")"
	config := strings.Join([]string{
		"Host web",
		"  HostName real.example.org",
		"  User \"al ice\"",
		"  Port 2200",
		"Host evil",
		"  User " + configWord(evil),
		`Match exec "test %h = real.example.org -a %p = 2200 -a %r = 'al ice' -a %n = web -a %d = ` + shellQuote(home) + `"`,
		"  IdentityFile ~/matched",
		`Match host nomatch exec "touch ` + marker + `"`,
		"  IdentityFile ~/never",
		"Match exec false",
		"  IdentityFile ~/false",
		`Match exec "echo %r >/dev/null"`,
		"  IdentityFile ~/echoed",
		"",
	}, "\n")
	cfgFile := filepath.Join(home, "config")
	writeFile(t, cfgFile, config)
	r, err := newResolver(&Config{Home: home, ConfigFile: cfgFile})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.resolve(sshconfig.Destination{Host: "web"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(home, "matched"), filepath.Join(home, "echoed")}
	if !slices.Equal(p.IdentityFiles, want) {
		t.Errorf("identity files %q, want %q", p.IdentityFiles, want)
	}
	if _, err := r.resolve(sshconfig.Destination{Host: "evil"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a Match exec ran although an earlier criterion failed, or a token was not quoted")
	}
	if log, err := os.ReadFile(shellLog); err != nil || !strings.Contains(string(log), "-c test real.example.org") {
		t.Errorf("Match exec did not run through $SHELL: log %q, %v", log, err)
	}
}

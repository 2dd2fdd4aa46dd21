//go:build linux

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// TestE2EShortCommandMoshClient: a command that ends before any client
// comes (gosh server new -- echo hi) keeps its last screen for the
// client: a stock mosh-client that connects a second later shows "hi"
// and exits 0, and the server ends with it. (MOSH_NO_TERM_INIT keeps the
// screen on the terminal after mosh-client exits.)
func TestE2EShortCommandMoshClient(t *testing.T) {
	t.Parallel()
	e2etest.RequireCommands(t, "mosh-client")
	server := e2etest.StartServer(t, localeEnv, goshBin, "server", "new", "-i", "127.0.0.1", "-p", "0", "--", "echo", "hi")
	time.Sleep(time.Second)
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(t.TempDir(), "MOSH_NO_TERM_INIT=1 "+moshClient(server))...)
	screen := tm.WaitForText(10*time.Second, "client-exit=")
	if !strings.Contains(strings.Join(screen, "\n"), "client-exit=0") || !hasLine(screen, "hi") {
		t.Errorf("mosh-client against gosh server -- echo hi:\n%s", e2etest.Dump(screen))
	}
	if !server.WaitExit(10 * time.Second) {
		t.Error("the server is still running after its client took the shutdown")
	}
}

// TestE2EShortCommandLocal: gosh connect --local -- COMMAND shows the
// command's output and exits with its status, as ssh does.
func TestE2EShortCommandLocal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, command, show string
		status              int
	}{
		{"hi", "echo hi", "hi", 0},
		{"exit-3", "sh -c 'echo three; exit 3'", "three", 3},
		{"killed", "sh -c 'echo killed; kill -TERM $$'", "killed", 128 + 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := append(append([]string{}, localeEnv...), "XDG_STATE_HOME="+t.TempDir())
			start := time.Now()
			tm := e2etest.NewTmux(t, 80, 24, env, clientWrapper(dir, goshBin+" connect --local -- "+tc.command)...)
			screen := tm.WaitForText(10*time.Second, "client-exit=")
			t.Logf("%s: %v from tmux to the exit", tc.command, time.Since(start).Round(time.Millisecond))
			if !strings.Contains(strings.Join(screen, "\n"), fmt.Sprintf("client-exit=%d\n", tc.status)) || !hasLine(screen, tc.show) {
				t.Errorf("want %q shown and status %d:\n%s", tc.show, tc.status, e2etest.Dump(screen))
			}
			checkRestored(t, dir)
		})
	}
}

// hasLine reports whether a row of screen is exactly s.
func hasLine(screen []string, s string) bool {
	for _, l := range screen {
		if l == s {
			return true
		}
	}
	return false
}

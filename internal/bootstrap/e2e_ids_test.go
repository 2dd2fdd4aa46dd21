//go:build linux

package bootstrap

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// TestOneSessionID is issue 27's story of one ID per session through a
// real sshd, with native scrollback on every way into the session. A
// session started with gosh connect keeps seq's lines in the terminal's
// own history; its client is killed; gosh sessions lists its ID, and the
// resume offer names the same ID; accepted, it resumes. Killed again,
// gosh connect --resume ID resumes it, gosh connect --attach ID takes it
// over (both with scrollback), gosh sessions --kill ID ends it, and gosh
// sessions then says there are none.
func TestOneSessionID(t *testing.T) {
	t.Parallel() // a real sshd in real time, on ports and dirs of its own
	f, _, env, client := sessionBox(t)
	sessions := sessionsCmd(f, env)
	killClient := func(tm *e2etest.Tmux) {
		t.Helper()
		pid := e2etest.ChildPID(t, tm.PanePID(), filepath.Base(f.gosh))
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		tm.WaitForText(10*time.Second, "client-exit=137")
	}

	first := e2etest.NewTmux(t, 80, 24, env, client(t.TempDir(), "box -- env PS1='e2e$ ' HISTFILE=/dev/null bash --norc --noprofile -i")...)
	first.WaitForText(20*time.Second, "e2e$")
	first.Send("MARK=kept-$((6*7)); seq 1 3000\r")
	first.WaitForSeq(30*time.Second, 1, 3000)
	killClient(first)

	out, err := sessions("box")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") {
		t.Fatalf("gosh sessions box: %v\n%s", err, out)
	}
	id := strings.Fields(lines[1])[0]
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(id) {
		t.Fatalf("session line %q", lines[1])
	}
	out, err = sessions("box", "--json")
	var list []struct {
		ID  string `json:"id"`
		PID int    `json:"pid"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].ID != id || list[0].PID <= 0 {
		t.Fatalf("gosh sessions --json box: %v\n%s", err, out)
	}
	pid := list[0].PID

	// The offer names the same session; Enter resumes it.
	second := e2etest.NewTmux(t, 80, 24, env, client(t.TempDir(), "box")...)
	screen := strings.Join(second.WaitForText(20*time.Second, "? [Y/n]"), "\n")
	if !strings.Contains(screen, "gosh: resume session "+id+" on box ") {
		t.Fatalf("the offer does not name session %s:\n%s", id, screen)
	}
	second.Send("\r")
	second.Send("echo mark=$MARK\r")
	second.WaitForText(10*time.Second, "mark=kept-42")
	killClient(second)

	third := e2etest.NewTmux(t, 80, 24, env, client(t.TempDir(), "--resume "+id)...)
	third.WaitForText(10*time.Second, "mark=kept-42") // the whole screen
	third.Send("seq 3001 6000\r")
	third.WaitForSeq(30*time.Second, 3001, 6000)

	fourth := e2etest.NewTmux(t, 80, 24, env, client(t.TempDir(), "--attach "+id+" box")...)
	fourth.WaitForText(20*time.Second, "e2e$")
	third.WaitForText(10*time.Second, "client-exit=") // taken over
	fourth.Send("seq 6001 9000\r")
	fourth.WaitForSeq(30*time.Second, 6001, 9000)

	kill(t, sessions, fourth, id, pid)
}

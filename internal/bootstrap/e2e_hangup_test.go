//go:build linux

package bootstrap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// TestHangupDetaches is issue 27's closed terminal through a real sshd:
// the window running gosh connect is closed (tmux kill-window: the client
// gets SIGHUP and its terminal is gone). The client detaches and exits by
// itself, saying so; the session goes on, gosh sessions lists it, and
// gosh connect --resume gets the same shell back.
func TestHangupDetaches(t *testing.T) {
	f, _, env, client := sessionBox(t)
	dir1 := t.TempDir()
	first := e2etest.NewTmux(t, 80, 24, env, client(dir1, "box -- env PS1='e2e$ ' HISTFILE=/dev/null bash --norc --noprofile -i")...)
	first.WaitForText(20*time.Second, "e2e$")
	first.Send("MARK=kept-$((6*7)); echo before-$((1+1))\r")
	first.WaitForText(10*time.Second, "before-2")
	pid := e2etest.ChildPID(t, first.PanePID(), filepath.Base(f.gosh))

	closed := time.Now()
	first.KillWindow()
	for !processGone(pid) {
		if time.Since(closed) > 10*time.Second {
			t.Fatalf("the client (pid %d) still runs 10 s after its terminal closed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the client exited %v after its window closed", time.Since(closed).Round(time.Millisecond))
	if msg, _ := os.ReadFile(filepath.Join(dir1, "err")); !strings.Contains(string(msg), "gosh: detached from session ") {
		t.Errorf("the client's stderr: %q, want the detach", msg)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.gosh, "sessions", "box")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); err != nil || len(lines) != 2 || !strings.Contains(lines[1], "bash") {
		t.Fatalf("gosh sessions box after the hangup: %v\n%s", err, out)
	}

	dir2 := t.TempDir()
	second := e2etest.NewTmux(t, 80, 24, env, client(dir2, "--resume")...)
	second.WaitForText(10*time.Second, "before-2") // the whole screen
	second.Send("echo mark=$MARK\r")
	second.WaitForText(10*time.Second, "mark=kept-42")
	second.Send("exit\r")
	second.WaitForText(10*time.Second, "client-exit=0")
}

// processGone reports whether pid has exited (or is a zombie waiting for
// its new parent to reap it).
func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 {
		return s[i+2] == 'Z'
	}
	return false
}

//go:build linux

package bootstrap

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// TestResumeOffer is issue 14 part 2's user story through a real sshd:
// the client of a session dies (SIGKILL), and the next gosh connect to
// the host offers, in one line, to resume it; Enter takes the default
// (yes), and the same shell comes back with its screen. With --new no
// question is asked.
func TestResumeOffer(t *testing.T) {
	f, _, env, client := sessionBox(t)
	first := e2etest.NewTmux(t, 80, 24, env, client(t.TempDir(), "box -- env PS1='e2e$ ' HISTFILE=/dev/null bash --norc --noprofile -i")...)
	first.WaitForText(20*time.Second, "e2e$")
	first.Send("MARK=kept-$((6*7)); echo before-$((1+1))\r")
	first.WaitForText(10*time.Second, "before-2")
	pid := e2etest.ChildPID(t, first.PanePID(), filepath.Base(f.gosh))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.WaitForText(10*time.Second, "client-exit=137")

	// --new: a new session, no question.
	dirNew := t.TempDir()
	fresh := e2etest.NewTmux(t, 80, 24, env, client(dirNew, "--new box -- env PS1='new$ ' bash --norc --noprofile -i")...)
	fresh.WaitForText(20*time.Second, "new$")
	if strings.Contains(strings.Join(fresh.Screen(), "\n"), "resume session") {
		t.Errorf("--new asked to resume:\n%s", e2etest.Dump(fresh.Screen()))
	}
	fresh.Send("exit\r")
	fresh.WaitForText(10*time.Second, "client-exit=0")

	dir2 := t.TempDir()
	second := e2etest.NewTmux(t, 80, 24, env, client(dir2, "box")...)
	second.WaitForText(20*time.Second, "? [Y/n]")
	screen := strings.Join(second.Screen(), "\n")
	if !strings.Contains(screen, "gosh: resume session ") || !strings.Contains(screen, " on box ") {
		t.Fatalf("the offer:\n%s", screen)
	}
	second.Send("\r")
	second.WaitForText(10*time.Second, "before-2") // the whole screen
	second.Send("echo mark=$MARK\r")
	second.WaitForText(10*time.Second, "mark=kept-42")
	second.Send("exit\r")
	second.WaitForText(10*time.Second, "client-exit=0")
	if err, _ := os.ReadFile(filepath.Join(dir2, "err")); len(err) > 0 {
		t.Logf("stderr: %s", err)
	}
	// The session ended: nothing is left to resume.
	third := e2etest.NewTmux(t, 80, 24, env, client(t.TempDir(), "--resume box")...)
	third.WaitForText(10*time.Second, "client-exit=1")
}

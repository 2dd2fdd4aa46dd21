//go:build linux

package bootstrap

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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
	f := newUploadFixture(t)
	// The remote gosh keeps its control sockets in a directory of the
	// test's, where the cleanup finds every daemon the test started.
	tmp := t.TempDir()
	f.fake(t, "gosh", fmt.Sprintf("TMPDIR=%s XDG_RUNTIME_DIR= exec %s \"$@\"\n", shellQuote(tmp), shellQuote(f.gosh)))
	t.Cleanup(func() { killDaemons(t, f.gosh, tmp) })
	appendFile(t, f.h.config, fmt.Sprintf("Host box\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n  UserKnownHostsFile %s\n",
		f.s.port, f.h.key, f.h.knownHosts()))
	env := []string{"HOME=" + f.h.dir, "XDG_STATE_HOME=" + t.TempDir(), "LANG=C.UTF-8", "TERM=xterm-256color", "SSH_AUTH_SOCK="}
	client := func(dir, args string) []string {
		return []string{"sh", "-c", fmt.Sprintf(`%s connect %s 2>%s/err; echo "client-exit=$?"; sleep 600`, f.gosh, args, dir)}
	}
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

// killDaemons ends every gosh daemon whose control socket is under tmp
// (gosh server list there), whatever state a failed test left.
func killDaemons(t *testing.T, gosh, tmp string) {
	cmd := exec.Command(gosh, "server", "list", "--json")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "XDG_RUNTIME_DIR=")
	out, err := cmd.Output()
	if err != nil {
		t.Logf("listing the test's daemons: %v", err)
		return
	}
	var list []struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Logf("listing the test's daemons: %v", err)
		return
	}
	for _, s := range list {
		if s.PID > 0 {
			_ = syscall.Kill(s.PID, syscall.SIGKILL)
		}
	}
}

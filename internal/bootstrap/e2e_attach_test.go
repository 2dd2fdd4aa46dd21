//go:build unix

package bootstrap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// TestAttachFromAnywhere is the user story of issue 14 part 3 through a
// real sshd: a session started with gosh connect is listed by gosh
// sessions, taken over by a second client with gosh connect --attach
// (the first shows "session taken over from" and exits; the second has
// the same shell), and ended by gosh sessions --kill. It is long because
// it is one story, each step on the state the one before left.
func TestAttachFromAnywhere(t *testing.T) {
	t.Parallel() // a real sshd in real time, on ports and dirs of its own
	f, tmp, env, client := sessionBox(t)
	sessions := sessionsCmd(f, env)

	dir1 := t.TempDir()
	first := e2etest.NewTmux(t, 80, 24, env, client(dir1, "box -- env PS1='e2e$ ' HISTFILE=/dev/null bash --norc --noprofile -i")...)
	first.WaitForText(20*time.Second, "e2e$")
	first.Send("MARK=kept-$((6*7))\r")

	out, err := sessions("box")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") {
		t.Fatalf("gosh sessions box: %v\n%s", err, out)
	}
	id := strings.Fields(lines[1])[0]
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(id) || !strings.Contains(lines[1], " attached ") ||
		!strings.Contains(lines[1], " 127.0.0.1 ") || !strings.HasSuffix(lines[1], " bash --norc --noprofile -i") {
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
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // the test's own daemon
	if _, err := os.Stat(filepath.Join(tmp, "gosh-"+strconv.Itoa(os.Getuid()), id+".sock")); err != nil {
		t.Errorf("control socket: %v", err)
	}

	dir2 := t.TempDir()
	second := e2etest.NewTmux(t, 100, 30, env, client(dir2, "--attach "+id+" box")...)
	screen := second.WaitFor(20*time.Second, "the attached session", func(s []string) bool {
		text := strings.Join(s, "\n")
		return strings.Contains(text, "e2e$") || strings.Contains(text, "client-exit=")
	})
	if text := strings.Join(screen, "\n"); strings.Contains(text, "client-exit=") {
		stderr, _ := os.ReadFile(filepath.Join(dir2, "err"))
		t.Fatalf("gosh connect --attach exited:\n%s\nstderr: %s", text, stderr)
	}
	second.Send("echo mark=$MARK; stty size\r")
	second.WaitForText(10*time.Second, "mark=kept-42")
	second.WaitForText(10*time.Second, "30 100") // the new client's size reached the program
	first.WaitForText(10*time.Second, "client-exit=")
	stderr1, _ := os.ReadFile(filepath.Join(dir1, "err"))
	if !strings.Contains(strings.Join(first.Screen(), "\n")+string(stderr1), "session taken over from 127.0.0.1") {
		t.Errorf("the first client did not say who took the session over:\n%s\nstderr: %s", e2etest.Dump(first.Screen()), stderr1)
	}

	kill(t, sessions, second, id, pid)
}

// kill ends session id (daemon pid) with gosh sessions --kill and checks
// that its client exits and that it is gone.
func kill(t *testing.T, sessions func(...string) (string, error), client *e2etest.Tmux, id string, pid int) {
	t.Helper()
	if out, err := sessions("box", "--kill", id); err != nil || !strings.Contains(out, "session "+id+" ended") {
		t.Errorf("gosh sessions --kill: %v\n%s", err, out)
	}
	client.WaitForText(10*time.Second, "client-exit=")
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if out, err := sessions("box"); err != nil || out != "no gosh sessions on box\n" {
		t.Errorf("gosh sessions after the kill: %v\n%s", err, out)
	}
	if out, err := sessions("box", "--kill", id); err == nil || strings.TrimSpace(out) != "gosh: no session "+id+" on this host (gosh sessions lists them)" {
		t.Errorf("gosh sessions --kill of an ended session: %v\n%s", err, out)
	}
}

// sessionsCmd runs gosh sessions ARGS on sessionBox's client and returns
// its output (stdout and stderr) and error.
func sessionsCmd(f *uploadFixture, env []string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, f.gosh, append([]string{"sessions"}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

// TestSessionsNoRemoteGosh: a remote without gosh has no sessions, and
// gosh sessions says so in one line.
func TestSessionsNoRemoteGosh(t *testing.T) {
	f := newUploadFixture(t)
	cfg := f.cfg(&syncBuffer{}, &syncBuffer{})
	cfg.LocalBinary = filepath.Join(t.TempDir(), "none") // nothing of ours uploaded either
	if out, err := RunCommand(testContext(t), cfg, []string{"list"}); err != ErrNoRemoteGosh {
		t.Errorf("RunCommand = %q, %v; want ErrNoRemoteGosh", out, err)
	}
}

// sessionBox is the stage of the session stories through a real sshd:
// a host "box" in the client's ssh_config, a remote gosh that keeps its
// control sockets in tmp (every daemon there is killed when the test
// ends), the client's environment (its saved sessions in a directory of
// the test's), and a tmux command line that runs gosh connect ARGS with
// its stderr in dir/err and reports its exit status.
func sessionBox(t *testing.T) (f *uploadFixture, tmp string, env []string, client func(dir, args string) []string) {
	f = newUploadFixture(t)
	tmp = t.TempDir()
	f.fake(t, "gosh", fmt.Sprintf("TMPDIR=%s XDG_RUNTIME_DIR= exec %s \"$@\"\n", shellQuote(tmp), shellQuote(f.gosh)))
	t.Cleanup(func() { killDaemons(t, f.gosh, tmp) })
	appendFile(t, f.h.config, fmt.Sprintf("Host box\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n  UserKnownHostsFile %s\n",
		f.s.port, f.h.key, f.h.knownHosts()))
	env = []string{"HOME=" + f.h.dir, "XDG_STATE_HOME=" + t.TempDir(), "LANG=C.UTF-8", "TERM=xterm-256color", "SSH_AUTH_SOCK="}
	client = func(dir, args string) []string {
		return []string{"sh", "-c", fmt.Sprintf(`%s connect %s 2>%s/err; echo "client-exit=$?"; sleep 600`, f.gosh, args, dir)}
	}
	return f, tmp, env, client
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

//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/connectline"
)

// TestServerSquattedControlDir: without $XDG_RUNTIME_DIR, another local
// user has taken gosh-<uid> in the temporary directory first (as root the
// test makes it a directory of uid 65534's; otherwise a link, which any
// user can make). gosh server new says so in one line and puts the
// control socket elsewhere, and gosh server list and kill still reach
// the session.
func TestServerSquattedControlDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	fixed := filepath.Join(tmp, "gosh-"+strconv.Itoa(os.Getuid()))
	why := "is owned by uid 65534, not by this user"
	if os.Getuid() == 0 {
		if err := os.Mkdir(fixed, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(fixed, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	} else {
		why = "is not a directory"
		if err := os.Symlink(t.TempDir(), fixed); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, goshBin, append([]string{"server", "new", "-i", "127.0.0.1", "-p", "0", "--"}, shellArgv...)...)
	cmd.Env = append(os.Environ(), localeEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gosh server new: %v\n%s", err, stderr.Bytes())
	}
	pid, id := 0, ""
	for _, line := range strings.Split(stderr.String(), "\n") {
		if d, ok := connectline.ParseDetached(line); ok {
			pid, id = d.PID, d.Session
		}
	}
	if pid <= 0 {
		t.Fatalf("no daemon pid in %q", stderr.String())
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	re := regexp.MustCompile(`(?m)^gosh server: control directory ` + regexp.QuoteMeta(fixed) + ` ` + why +
		`; session control sockets are in (` + regexp.QuoteMeta(fixed) + `\.\w+) instead$`)
	m := re.FindStringSubmatch(stderr.String())
	if m == nil || strings.Count(stderr.String(), "control directory") != 1 {
		t.Fatalf("stderr %q: want one line matching %s", stderr.String(), re)
	}
	t.Logf("gosh server new said: %s", m[0])

	code, out, errs := runGosh(t, "server", "list")
	if code != 0 || errs != "" || !strings.Contains(out, strconv.Itoa(pid)) {
		t.Fatalf("gosh server list = %d, %q, %q; want the session of daemon %d", code, out, errs, pid)
	}
	if _, err := os.Stat(filepath.Join(m[1], id+".sock")); err != nil {
		t.Fatalf("the session %q has no socket in %s: %v", id, m[1], err)
	}
	if code, _, errs := runGosh(t, "server", "kill", id); code != 0 {
		t.Fatalf("gosh server kill %s = %d, %q", id, code, errs)
	}
	for end := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil && !exitedZombie(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the daemon did not end after gosh server kill")
		}
	}
}

// exitedZombie reports whether pid has exited and awaits its reaping.
func exitedZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && len(b) > i+2 && b[i+2] == 'Z'
}

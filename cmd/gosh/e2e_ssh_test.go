//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// sshRig is a real sshd on loopback that accepts one key, which is in no
// default identity file, and whose sessions find the gosh under test on
// PATH; and a client home that trusts the sshd's host key.
type sshRig struct {
	sshd    *e2etest.SSHD
	key     string // the private key the sshd accepts
	config  string // the client's ssh_config (-F)
	home    string // the client's HOME
	runtime string // the remote sessions' XDG_RUNTIME_DIR
}

func newSSHRig(t *testing.T) *sshRig {
	t.Helper()
	e2etest.RequireCommands(t, "sshd", "ssh")
	dir := t.TempDir()
	r := &sshRig{key: filepath.Join(dir, "only_key"), home: filepath.Join(dir, "home"), runtime: filepath.Join(dir, "run")}
	for _, d := range []string{r.home, r.runtime, filepath.Join(dir, "remote")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e2etest.Keygen(t, r.key)
	r.sshd = e2etest.StartSSHD(t, e2etest.SSHDOptions{Authorized: []string{r.key + ".pub"}, Env: []string{
		"HOME=" + filepath.Join(dir, "remote"), "PATH=" + filepath.Dir(goshBin) + ":/usr/bin:/bin", "LANG=C.UTF-8",
		"XDG_RUNTIME_DIR=" + r.runtime,
		"MOSH_SERVER_NETWORK_TMOUT=30", // a server a failed test leaves ends by itself
	}})
	knownHosts := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(knownHosts, []byte(r.sshd.KnownHosts+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The system ssh reads ~/.ssh of the passwd entry, not $HOME: the
	// file names known_hosts for both clients, and the jump host's key.
	r.config = filepath.Join(dir, "ssh_config")
	conf := fmt.Sprintf("Host jumphost\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n"+
		"Host *\n  UserKnownHostsFile %s\n  BatchMode yes\n", r.sshd.Port, r.key, knownHosts)
	if err := os.WriteFile(r.config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.killServers(t) })
	return r
}

// killServers ends, by pid, the gosh servers the test's sessions left.
func (r *sshRig) killServers(t *testing.T) {
	cmd := exec.Command(goshBin, "server", "list", "--json")
	// The listing looks in the temporary directory's control directory
	// too (where a daemon started without $XDG_RUNTIME_DIR puts its
	// socket): an empty one here, or the list would hold every session
	// of the user's, those of the tests running beside this one (and of
	// whoever runs the tests) included, and they would be killed.
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+r.runtime, "TMPDIR="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		return
	}
	var list []struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(out, &list) != nil {
		return
	}
	for _, s := range list {
		if s.PID > 0 {
			syscall.Kill(s.PID, syscall.SIGKILL)
		}
	}
}

// env is the client's environment: this home, and a terminal with no
// TERM in Windows Terminal (WT_SESSION set), as gosh.exe in WSL or
// Windows sees it.
func (r *sshRig) clientEnv() string {
	return fmt.Sprintf("env -u TERM -u COLORTERM -u TERM_PROGRAM WT_SESSION=0f6e9d7a HOME=%s XDG_STATE_HOME=%s/state LANG=C.UTF-8",
		r.home, r.home)
}

// TestE2ESSHHabits: gosh connect as an ssh user types it, through a real
// sshd on loopback. -p given as ssh's port explains itself when the
// connection is refused; --ssh-port, ssh:// destinations, --identity and
// --jump reach the sshd with the built-in client, and translated for a
// system ssh (--ssh); and, with no TERM and WT_SESSION set, the remote
// program sees TERM=xterm-256color and, from a gosh server,
// COLORTERM=truecolor (a stock mosh-server gets -c 256).
func TestE2ESSHHabits(t *testing.T) {
	t.Parallel()
	r := newSSHRig(t)
	port := strconv.Itoa(r.sshd.Port)

	t.Run("-p refused", func(t *testing.T) {
		// ssh_config sends the login to a port nothing listens on, as an
		// sshd on another port than 22 leaves port 22.
		conf := filepath.Join(t.TempDir(), "ssh_config")
		closed := strconv.Itoa(freeTCPPort(t))
		if err := os.WriteFile(conf, []byte("Host *\n  Port "+closed+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, goshBin, "-F", conf, "-p", port, "--upload=never", "root@127.0.0.1")
		cmd.Env = append(os.Environ(), "HOME="+r.home)
		// A terminal on standard input, as a user has: without one gosh
		// says so before it logs in.
		ptm, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer ptm.Close()
		defer tty.Close()
		cmd.Stdin = tty
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		want := fmt.Sprintf("gosh: bootstrap: cannot reach 127.0.0.1:%s: connect: connection refused (-p %s is the server's UDP port, as in mosh; "+
			"to log in over SSH on another port, use --ssh-port %s, HOST:%s or ssh://HOST:%s)\n", closed, port, port, port, port)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitError || stderr.String() != want {
			t.Fatalf("gosh -p %s: %v, stderr %q; want exit status 1 and %q", port, err, stderr.String(), want)
		}
	})

	for _, c := range []struct {
		name, args, want string
	}{
		{"--ssh-port and --identity", "--identity " + r.key + " --ssh-port " + port + " root@127.0.0.1",
			"T=xterm-256color C=truecolor"},
		{"ssh URL and --jump", "--identity " + r.key + " --jump jumphost ssh://root@127.0.0.1:" + port,
			"T=xterm-256color C=truecolor"},
		{"--ssh with the same flags, mosh-server", "--ssh=ssh --server=mosh-server --identity " + r.key + " --jump jumphost --ssh-port " + port + " root@127.0.0.1",
			"T=xterm-256color C=none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			client := fmt.Sprintf("%s %s -F %s --upload=never %s -- %s", r.clientEnv(), goshBin, r.config, c.args, strings.Join(shellArgv, " "))
			tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, client)...)
			tm.WaitForText(20*time.Second, prompt)
			tm.Send(`echo "T=$TERM C=${COLORTERM:-none}"` + "\r")
			tm.WaitForText(10*time.Second, c.want+"\n")
			tm.Send("exit\r")
			tm.WaitForText(10*time.Second, "client-exit=0")
		})
	}
}

package e2etest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// SSHD is a real OpenSSH sshd on 127.0.0.1, for the end-to-end tests of
// gosh connect's SSH bootstrap, killed (by its pid) when the test ends.
type SSHD struct {
	// Port is its TCP port on 127.0.0.1.
	Port int
	// KnownHosts is its host key as a known_hosts line.
	KnownHosts string
}

// SSHDOptions configures StartSSHD.
type SSHDOptions struct {
	// Authorized are the public key files allowed to log in (as root, or
	// whoever runs the test).
	Authorized []string
	// Env are NAME=VALUE settings of every session (sshd's SetEnv):
	// HOME, PATH and LANG for a start.
	Env []string
}

// Keygen writes a new ed25519 key pair without a passphrase at path and
// path.pub.
func Keygen(t testing.TB, path string) {
	t.Helper()
	RequireCommands(t, "ssh-keygen")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gosh-e2e", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
}

// StartSSHD starts /usr/sbin/sshd -D -e on a free port of 127.0.0.1 and
// returns once it accepts connections. Its log is shown if the test
// fails.
func StartSSHD(t testing.TB, o SSHDOptions) *SSHD {
	t.Helper()
	RequireCommands(t, "sshd", "ssh-keygen")
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatalf("sshd's privilege separation directory: %v", err)
	}
	dir := t.TempDir()
	hostKey := filepath.Join(dir, "host_ed25519")
	Keygen(t, hostKey)
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	var auth strings.Builder
	for _, f := range o.Authorized {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		auth.Write(b)
	}
	authFile := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authFile, []byte(auth.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s\nPermitRootLogin yes\nStrictModes no\n"+
		"AuthorizedKeysFile %s\nUsePAM no\nPidFile none\nPrintMotd no\nLogLevel VERBOSE\n", port, hostKey, authFile)
	if len(o.Env) > 0 {
		conf += "SetEnv " + strings.Join(o.Env, " ") + "\n"
	}
	confFile := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(confFile, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &SSHD{Port: port, KnownHosts: fmt.Sprintf("[127.0.0.1]:%d %s", port, strings.TrimSpace(string(pub)))}
	s.run(t, confFile)
	return s
}

// run starts the daemon and waits until it accepts connections.
func (s *SSHD) run(t testing.TB, confFile string) {
	t.Helper()
	cmd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", confFile)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	var mu sync.Mutex
	var log strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill() // the sshd this test started, by its pid
		cmd.Wait()
		<-done
		if t.Failed() {
			mu.Lock()
			t.Logf("sshd log:\n%s", log.String())
			mu.Unlock()
		}
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("sshd does not accept connections on %s: %v\n%s", addr, err, log.String())
		}
	}
}

//go:build unix

package bootstrap

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunCommandLineSettings: the SSH port, identity, jump host and ssh -o
// lines of the command line (Config.SSHPort, Identities, Jump,
// SSHOptions) reach a real sshd, with the built-in client and translated
// for a system ssh. The sshd accepts one key, which no default identity
// file holds, so every login proves the identity was used.
func TestRunCommandLineSettings(t *testing.T) {
	h := newTestHome(t)
	key := filepath.Join(t.TempDir(), "only_key")
	keygen(t, "ed25519", key, "")
	s := startSSHD(t, sshdOptions{authorized: []string{key + ".pub"}})
	noForward := startSSHD(t, sshdOptions{authorized: []string{key + ".pub"}, extra: []string{"AllowTcpForwarding no"}})
	h.trust(t, s)
	h.trust(t, noForward)
	port := strconv.Itoa(s.port)
	writeFile(t, h.config, fmt.Sprintf("Host jumphost\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n"+
		"Host nofwd\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n"+
		"Host *\n  UserKnownHostsFile %s\n  BatchMode yes\n", s.port, key, noForward.port, key, h.knownHosts()))

	for _, client := range []string{"built-in", "system ssh"} {
		cfg := func(dest string) Config {
			c := h.cfg(dest)
			if client == "system ssh" {
				c.SSHCommand = "ssh"
			}
			return c
		}
		t.Run(client, func(t *testing.T) {
			if client == "system ssh" {
				needTools(t, "ssh")
			}
			t.Run("without the identity", func(t *testing.T) {
				c := cfg("root@127.0.0.1")
				c.SSHPort = s.port
				if _, err := Run(testContext(t), c); err == nil {
					t.Fatal("logged in without the identity: the test proves nothing")
				}
			})
			t.Run("ssh port and identity", func(t *testing.T) {
				c := cfg("root@127.0.0.1")
				c.SSHPort, c.Identities = s.port, []string{key}
				runOK(t, c)
			})
			t.Run("ssh URL", func(t *testing.T) {
				c := cfg("ssh://root@127.0.0.1:" + port)
				c.Identities = []string{key}
				runOK(t, c)
			})
			t.Run("ssh options", func(t *testing.T) {
				c := cfg("127.0.0.1")
				c.SSHOptions = []string{"IdentityFile=" + key, "User root", "Port=" + port}
				runOK(t, c)
			})
			t.Run("jump through itself", func(t *testing.T) {
				c := cfg("ssh://root@127.0.0.1:" + port)
				c.Identities, c.Jump = []string{key}, "jumphost"
				runOK(t, c)
			})
			t.Run("jump through a host that does not forward", func(t *testing.T) {
				// Proves the jump host is used: this one refuses.
				c := cfg("ssh://root@127.0.0.1:" + port)
				c.Identities, c.Jump = []string{key}, "nofwd"
				if _, err := Run(testContext(t), c); err == nil {
					t.Fatal("Run through a jump host that refuses to forward succeeded")
				}
			})
			t.Run("StrictHostKeyChecking from the command line", func(t *testing.T) {
				c := cfg("root@127.0.0.1")
				c.SSHPort, c.Identities = s.port, []string{key}
				c.SSHOptions = []string{"UserKnownHostsFile=" + filepath.Join(t.TempDir(), "empty"), "StrictHostKeyChecking=yes"}
				if _, err := Run(testContext(t), c); err == nil {
					t.Fatal("Run with an empty known_hosts and StrictHostKeyChecking=yes succeeded")
				} else if client == "built-in" && !errors.Is(err, ErrUnknownHost) {
					t.Fatalf("Run = %v, want ErrUnknownHost", err)
				}
			})
			t.Run("refused", func(t *testing.T) {
				closed := freeTCPPort(t)
				c := cfg("root@127.0.0.1")
				c.SSHPort, c.Stderr = closed, &syncBuffer{}
				_, err := Run(testContext(t), c)
				if got, ok := RefusedPort(err); !ok || got != closed {
					t.Fatalf("RefusedPort(%v) = %d, %v; want %d, true", err, got, ok, closed)
				}
			})
		})
	}
}

// TestRunNamesUnhonoured: ssh_config keywords the built-in client does
// not honour are named once, those that change security on stderr, the
// others in the debug log only; those it honours (Ciphers) or that are
// set to what it does anyway (CheckHostIP no) are not named.
func TestRunNamesUnhonoured(t *testing.T) {
	h := newTestHome(t)
	s := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}})
	h.trust(t, s)
	writeFile(t, h.config, "Host *\n  Ciphers aes128-ctr\n  VerifyHostKeyDNS yes\n  Compression yes\n  CheckHostIP no\n")
	var stderr, log syncBuffer
	c := h.cfg("root@" + s.addr())
	c.Stderr = &stderr
	c.Logf = func(f string, args ...any) { fmt.Fprintf(&log, f+"\n", args...) }
	c.SSHOptions = []string{"UpdateHostKeys=yes", "KexAlgorithms=curve25519-sha256"}
	runOK(t, c)
	if got := stderr.String(); strings.Count(got, "gosh's built-in SSH client does not honour") != 1 ||
		!strings.Contains(got, "sets UpdateHostKeys and VerifyHostKeyDNS,") || strings.Contains(got, "Ciphers") ||
		strings.Contains(got, "KexAlgorithms") || strings.Contains(got, "CheckHostIP") || strings.Contains(got, "Compression") {
		t.Errorf("stderr = %q, want one line naming UpdateHostKeys and VerifyHostKeyDNS only", got)
	}
	if got := log.String(); !strings.Contains(got, "not honoured by the built-in client: Compression\n") {
		t.Errorf("log = %q, want Compression named", got)
	}
}

//go:build unix

package bootstrap

import (
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// The algorithm keywords of ssh_config against a real sshd that is
// restricted to algorithms x/crypto leaves out of its defaults, so that
// each connection works only when the client honours the setting.

// dialTest connects to dest with h's home and config, as the bootstrap
// does, without starting a server.
func dialTest(t *testing.T, h *testHome, dest string, stderr io.Writer) (*sshConn, error) {
	t.Helper()
	cfg := h.cfg(dest)
	r, err := newResolver(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := cfg.destination()
	if err != nil {
		t.Fatal(err)
	}
	if stderr == nil {
		stderr = io.Discard
	}
	d := &dialer{res: r, stderr: stderr, timeout: 20 * time.Second, logf: t.Logf}
	c, err := d.connect(testContext(t), dst, 0, "")
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// negotiated returns the algorithms the connection uses.
func negotiated(t *testing.T, c *sshConn) ssh.NegotiatedAlgorithms {
	t.Helper()
	m, ok := c.client.Conn.(ssh.AlgorithmsConnMetadata)
	if !ok {
		t.Fatal("x/crypto does not report the negotiated algorithms")
	}
	return m.Algorithms()
}

// TestRunCipherKexMAC: an sshd that takes only aes128-cbc,
// diffie-hellman-group-exchange-sha256 and hmac-sha2-512 (none of them,
// or not all, in x/crypto's defaults) is reached only when Ciphers,
// KexAlgorithms and MACs say so; a MACs list the server does not share
// fails with one line naming MACs.
func TestRunCipherKexMAC(t *testing.T) {
	h := newTestHome(t)
	s := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}, extra: []string{
		"Ciphers aes128-cbc", "KexAlgorithms diffie-hellman-group-exchange-sha256", "MACs hmac-sha2-512"}})
	h.trust(t, s)
	dest := "root@" + s.addr()
	const kex, cipher = "KexAlgorithms diffie-hellman-group-exchange-sha256\n", "Ciphers +aes128-cbc\n"
	tests := []struct {
		name, config string
		err          string // "" connects
	}{
		{name: "defaults", err: "no common key exchange: the server offers none of gosh's defaults (gosh offered mlkem768x25519-sha256,"},
		{name: "kex only", config: kex, err: "the server offers aes128-cbc); to allow aes128-cbc, set ssh config Ciphers +aes128-cbc (--ssh-option Ciphers=+aes128-cbc)"},
		{name: "another cipher", config: kex + "Ciphers aes128-ctr\n",
			err: "no common client to server cipher: the server offers none that ssh config Ciphers allows (gosh offered aes128-ctr; the server offers aes128-cbc)"},
		{name: "kex and cipher", config: kex + cipher},
		{name: "from the command line"},
		{name: "another MAC", config: kex + cipher + "MACs hmac-sha2-256,hmac-sha2-256-etm@openssh.com\n",
			err: "no common client to server MAC: the server offers none that ssh config MACs allows (gosh offered hmac-sha2-256,hmac-sha2-256-etm@openssh.com; the server offers hmac-sha2-512)"},
	}
	pq := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}, extra: []string{"KexAlgorithms sntrup761x25519-sha512@openssh.com"}})
	h.trust(t, pq)
	t.Run("none implemented", func(t *testing.T) {
		writeFile(t, h.config, "")
		_, err := dialTest(t, h, "root@"+pq.addr(), nil)
		const want = "no common key exchange: the server offers none that gosh's built-in SSH client implements"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "; --ssh runs the system ssh") {
			t.Fatalf("connect = %v; want %q", err, want)
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, h.config, tc.config)
			if tc.name == "from the command line" {
				writeFile(t, h.config, "")
				cfg := h.cfg(dest)
				cfg.SSHOptions = []string{"KexAlgorithms=diffie-hellman-group-exchange-sha256", "Ciphers=aes128-cbc"}
				runOK(t, cfg)
				return
			}
			c, err := dialTest(t, h, dest, nil)
			if tc.err != "" {
				t.Logf("error: %v", err)
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("connect = %v; want one line containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			a := negotiated(t, c)
			if a.KeyExchange != "diffie-hellman-group-exchange-sha256" || a.Write.Cipher != "aes128-cbc" || a.Write.MAC != "hmac-sha2-512" {
				t.Errorf("negotiated %+v", a)
			}
		})
	}
}

// TestRunHostKeyAlgorithms: with only the ed25519 key known, an explicit
// HostKeyAlgorithms list makes the server present its ECDSA key, which is
// unknown; a '+' list keeps known_hosts' order, as OpenSSH does.
func TestRunHostKeyAlgorithms(t *testing.T) {
	h := newTestHome(t)
	s := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}, hostKeyTypes: []string{"ed25519", "ecdsa"}})
	appendFile(t, h.knownHosts(), knownHostsLine("[127.0.0.1]:"+strconv.Itoa(s.port), s.hostKeys[ssh.KeyAlgoED25519])+"\n")
	dest := "root@" + s.addr()
	for _, tc := range []struct {
		config  string
		hostKey string // "" fails as unknown
	}{
		{config: "", hostKey: ssh.KeyAlgoED25519},
		{config: "HostKeyAlgorithms +ssh-rsa\n", hostKey: ssh.KeyAlgoED25519},
		{config: "HostKeyAlgorithms -ecdsa-sha2-nistp384\n", hostKey: ssh.KeyAlgoED25519},
		{config: "HostKeyAlgorithms ecdsa-sha2-nistp256,ssh-ed25519\n"},
		{config: "HostKeyAlgorithms ^ecdsa-sha2-nistp256\n"},
	} {
		writeFile(t, h.config, "StrictHostKeyChecking yes\n"+tc.config)
		c, err := dialTest(t, h, dest, nil)
		if tc.hostKey == "" {
			var ue *UnknownHostError
			if !errors.As(err, &ue) || ue.KeyType != ssh.KeyAlgoECDSA256 {
				t.Errorf("%q: connect = %v; want the ECDSA key unknown", tc.config, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: connect: %v", tc.config, err)
			continue
		}
		if got := negotiated(t, c).HostKey; got != tc.hostKey {
			t.Errorf("%q: host key %s, want %s", tc.config, got, tc.hostKey)
		}
	}
}

// TestRunPubkeyAlgorithms: PubkeyAcceptedAlgorithms decides which keys are
// offered and, for RSA, with which signature algorithm; RequiredRSASize
// keeps small RSA keys back.
func TestRunPubkeyAlgorithms(t *testing.T) {
	h := newTestHome(t)
	rsaKey := filepath.Join(h.dir, ".ssh", "id_rsa")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "rsa", "-b", "1024", "-N", "", "-f", rsaKey).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	// Only the RSA key logs in, and only with SHA-512 signatures.
	s := startSSHD(t, sshdOptions{authorized: []string{rsaKey + ".pub"}, extra: []string{
		"PubkeyAcceptedAlgorithms rsa-sha2-512", "PasswordAuthentication no", "KbdInteractiveAuthentication no"}})
	h.trust(t, s)
	dest := "root@" + s.addr()
	keys := "IdentityFile " + h.key + "\nIdentityFile " + rsaKey + "\n"
	for _, tc := range []struct {
		config string
		ok     bool
	}{
		// x/crypto alone signs with rsa-sha2-256, which this server refuses.
		{config: keys},
		{config: keys + "PubkeyAcceptedAlgorithms ssh-ed25519,rsa-sha2-512\n", ok: true},
		{config: keys + "PubkeyAcceptedAlgorithms ^rsa-sha2-512\n", ok: true},
		{config: keys + "PubkeyAcceptedAlgorithms ssh-ed25519,rsa-sha2-256\n"},
		{config: keys + "PubkeyAcceptedAlgorithms ssh-ed25519\n"},
		{config: keys + "PubkeyAcceptedAlgorithms rsa-sha2-512\nRequiredRSASize 2048\n"},
	} {
		writeFile(t, h.config, tc.config)
		_, err := dialTest(t, h, dest, nil)
		if tc.ok && err != nil {
			t.Errorf("%q: connect: %v", tc.config, err)
		}
		if !tc.ok && !errors.Is(err, ErrAuth) {
			t.Errorf("%q: connect = %v, want an authentication failure", tc.config, err)
		}
	}
}

// TestRunRequiredRSASize: a host presenting a 1024-bit RSA key is refused
// under RequiredRSASize 2048, whatever known_hosts says.
func TestRunRequiredRSASize(t *testing.T) {
	h := newTestHome(t)
	small := filepath.Join(t.TempDir(), "host_rsa")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "rsa", "-b", "1024", "-N", "", "-f", small).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	s := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}, extra: []string{"HostKey " + small}})
	h.trust(t, s)
	appendFile(t, h.knownHosts(), knownHostsLine("[127.0.0.1]:"+strconv.Itoa(s.port), readPublicKey(t, small+".pub"))+"\n")
	dest := "root@" + s.addr()
	writeFile(t, h.config, "HostKeyAlgorithms rsa-sha2-512\n")
	if _, err := dialTest(t, h, dest, nil); err != nil {
		t.Fatalf("connect with the default RequiredRSASize: %v", err)
	}
	writeFile(t, h.config, "HostKeyAlgorithms rsa-sha2-512\nRequiredRSASize 2048\n")
	_, err := dialTest(t, h, dest, nil)
	var pe *HostKeyPolicyError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "its RSA key has 1024 bits, fewer than RequiredRSASize 2048") {
		t.Fatalf("connect = %v, want the host key refused for its size", err)
	}
}

// TestRunCASignatureAlgorithms: a host certificate from a known CA is
// accepted while CASignatureAlgorithms allows the CA's signature; when it
// does not, the client says so and checks the plain key instead, as
// OpenSSH does.
func TestRunCASignatureAlgorithms(t *testing.T) {
	h := newTestHome(t)
	dir := t.TempDir()
	ca, hostKey := filepath.Join(dir, "host_ca"), filepath.Join(dir, "host_ecdsa")
	keygen(t, "ed25519", ca, "")
	keygen(t, "ecdsa", hostKey, "")
	if out, err := exec.Command("ssh-keygen", "-q", "-s", ca, "-I", "gosh-test-host", "-h", "-n", "127.0.0.1", hostKey+".pub").CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -s: %v\n%s", err, out)
	}
	s := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}, extra: []string{"HostKey " + hostKey, "HostCertificate " + hostKey + "-cert.pub"}})
	writeFile(t, h.knownHosts(), "@cert-authority [127.0.0.1]:"+strconv.Itoa(s.port)+" "+strings.TrimSpace(string(ssh.MarshalAuthorizedKey(readPublicKey(t, ca+".pub"))))+"\n")
	dest := "root@" + s.addr()

	writeFile(t, h.config, "StrictHostKeyChecking yes\n")
	c, err := dialTest(t, h, dest, nil)
	if err != nil {
		t.Fatalf("connect with the CA known: %v", err)
	}
	if got := negotiated(t, c).HostKey; got != ssh.CertAlgoECDSA256v01 {
		t.Errorf("host key %s, want the certificate", got)
	}

	writeFile(t, h.config, "StrictHostKeyChecking yes\nCASignatureAlgorithms rsa-sha2-512,ecdsa-sha2-nistp256\n")
	var stderr syncBuffer
	_, err = dialTest(t, h, dest, &stderr)
	var ue *UnknownHostError
	if !errors.As(err, &ue) || ue.KeyType != ssh.KeyAlgoECDSA256 {
		t.Fatalf("connect = %v; want the plain ECDSA key unknown", err)
	}
	if !strings.Contains(stderr.String(), "is signed with ssh-ed25519, which CASignatureAlgorithms does not allow; checking its plain key") {
		t.Errorf("stderr %q does not say why the certificate was not used", stderr.String())
	}

	// With the plain key known too, it connects.
	appendFile(t, h.knownHosts(), knownHostsLine("[127.0.0.1]:"+strconv.Itoa(s.port), readPublicKey(t, hostKey+".pub"))+"\n")
	if _, err := dialTest(t, h, dest, nil); err != nil {
		t.Fatalf("connect with the plain key known: %v", err)
	}
}

// TestRunRevokedHostKeys: a host key listed in a RevokedHostKeys file (a
// key list or a KRL) is refused even though known_hosts has it; a file
// that cannot be read refuses every host, as with OpenSSH.
func TestRunRevokedHostKeys(t *testing.T) {
	h := newTestHome(t)
	s := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}})
	h.trust(t, s)
	dest := "root@" + s.addr()
	dir := t.TempDir()
	hostPub := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.hostKeys[ssh.KeyAlgoED25519])))
	other := filepath.Join(dir, "other")
	keygen(t, "ed25519", other, "")
	writeFile(t, filepath.Join(dir, "list"), "# revoked\n\n"+hostPub+" old host\n")
	writeFile(t, filepath.Join(dir, "others"), "garbage line\n")
	appendFile(t, filepath.Join(dir, "others"), mustRead(t, other+".pub"))
	writeFile(t, filepath.Join(dir, "host.pub"), hostPub+"\n")
	writeKRL(t, filepath.Join(dir, "krl"), "", filepath.Join(dir, "host.pub"))
	writeKRL(t, filepath.Join(dir, "krl-others"), "", other+".pub")
	for _, tc := range []struct {
		file    string
		revoked bool
		err     string
	}{
		{file: "others"},
		{file: "krl-others"},
		{file: "list", revoked: true},
		{file: "krl", revoked: true},
		{file: "missing", err: "cannot be read, so no host key is trusted"},
	} {
		writeFile(t, h.config, "RevokedHostKeys "+filepath.Join(dir, tc.file)+"\n")
		_, err := dialTest(t, h, dest, nil)
		var me *HostKeyMismatchError
		switch {
		case tc.revoked:
			if !errors.As(err, &me) || !me.Revoked || !strings.Contains(err.Error(), "revoked (by "+filepath.Join(dir, tc.file)) {
				t.Errorf("%s: connect = %v, want the key revoked", tc.file, err)
			}
		case tc.err != "":
			var pe *HostKeyPolicyError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: connect = %v, want %q", tc.file, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: connect: %v", tc.file, err)
		}
	}
}

// writeKRL writes a key revocation list with ssh-keygen -k: of the keys in the
// files, under the CA's public key file ca if not "".
func writeKRL(t *testing.T, out, ca string, files ...string) {
	t.Helper()
	args := []string{"-q", "-k", "-f", out}
	if ca != "" {
		args = append(args, "-s", ca)
	}
	if b, err := exec.Command("ssh-keygen", append(args, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -k: %v\n%s", err, b)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fedoraFile returns one of the files of Fedora's system crypto policy
// that internal/sshconfig's tests keep (its testdata/fedora).
func fedoraFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "sshconfig", "testdata", "fedora", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunFedoraCryptoPolicy: with Fedora's system crypto policy included
// the way Fedora includes it, against an sshd held to a policy like it,
// the bootstrap connects and writes nothing on stderr.
func TestRunFedoraCryptoPolicy(t *testing.T) {
	h := newTestHome(t)
	s := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}, extra: []string{
		"Ciphers aes256-gcm@openssh.com,aes256-ctr", "KexAlgorithms ecdh-sha2-nistp384,diffie-hellman-group16-sha512"}})
	h.trust(t, s)
	etc := t.TempDir()
	policy := filepath.Join(etc, "crypto-policies", "back-ends", "openssh.config")
	writeFile(t, policy, fedoraFile(t, "openssh.config"))
	writeFile(t, filepath.Join(etc, "ssh", "ssh_config.d", "50-redhat.conf"),
		strings.Replace(fedoraFile(t, "50-redhat.conf"), "/etc/crypto-policies/back-ends/openssh.config", policy, 1))
	writeFile(t, h.config, "Include "+filepath.Join(etc, "ssh", "ssh_config.d", "*.conf")+"\n")
	cfg := h.cfg("root@" + s.addr())
	var stderr syncBuffer
	cfg.Stderr = &stderr
	runOK(t, cfg)
	if stderr.String() != "" {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

// TestRunServerAlive: a server that stops answering (a TCP relay that
// drops everything) is given up after ServerAliveInterval times
// ServerAliveCountMax+1; a server that answers keeps the connection.
func TestRunServerAlive(t *testing.T) {
	t.Parallel() // a real sshd in real time, on ports and dirs of its own
	h := newTestHome(t)
	s := startSSHD(t, sshdOptions{authorized: []string{h.key + ".pub"}})
	h.trust(t, s)
	p := startFreezer(t, s.addr())
	writeFile(t, h.config, "Host frozen\n  HostName 127.0.0.1\n  Port "+strconv.Itoa(p.port)+"\n  User root\n"+
		"  HostKeyAlias [127.0.0.1]:"+strconv.Itoa(s.port)+"\n  ServerAliveInterval 1\n  ServerAliveCountMax 2\n")
	c, err := dialTest(t, h, "frozen", nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { c.client.Wait(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("the connection closed while the server answered")
	case <-time.After(3500 * time.Millisecond):
	}
	p.freeze()
	start := time.Now()
	select {
	case <-closed:
		d := time.Since(start)
		t.Logf("closed %v after the relay froze", d)
		if d < 2*time.Second {
			t.Errorf("closed after %v, before three silent intervals", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the connection to a silent server is still open after 10 s")
	}
}

// freezer relays TCP connections to an address until frozen, then drops
// everything without closing anything, like a link that went dead.
type freezer struct {
	port   int
	frozen atomic.Bool
}

func (f *freezer) freeze() { f.frozen.Store(true) }

func startFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{port: l.Addr().(*net.TCPAddr).Port}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	copyUntilFrozen := func(dst, src net.Conn) {
		defer wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if err != nil {
				return
			}
			if !f.frozen.Load() {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, in, out)
			mu.Unlock()
			wg.Add(2)
			go copyUntilFrozen(out, in)
			go copyUntilFrozen(in, out)
		}
	}()
	return f
}

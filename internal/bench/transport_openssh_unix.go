//go:build unix

package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gosh-term/gosh/internal/bench/sshlink"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/vt"
)

// opensshLive is the system's OpenSSH: ssh in a pty of its own, against
// an sshd of this run's own on loopback, with keys made for the run. The
// TCP connection has three legs: ssh to a loopback listener, gVisor TCP
// across the emulated link (the only leg the link touches), and loopback
// again to sshd. ssh's own TCP, and sshd's, see loopback; the link's
// losses and queues are retransmitted by gVisor's TCP.
type opensshLive struct {
	m      *mirror
	client *pty.Program
	sshd   *exec.Cmd
	n      *sshlink.Net
	pipes  []*linkem.Pipe
	front  net.Listener // where ssh connects
	back   net.Listener // sshd's side of the link, in gVisor
	dir    string
	copied chan struct{}
	legs   sync.WaitGroup
	closed atomic.Bool
}

// opensshTools finds sshd and ssh, or says why the transport cannot run.
func opensshTools() (sshd, client string, err error) {
	for _, c := range []string{"/usr/sbin/sshd", "sshd"} {
		if p, err := exec.LookPath(c); err == nil {
			sshd = p
			break
		}
	}
	client, cerr := exec.LookPath("ssh")
	if sshd == "" || cerr != nil {
		return "", "", errors.New("OpenSSH's ssh and sshd are not installed (Debian: apt install openssh-client openssh-server)")
	}
	return sshd, client, nil
}

// startOpenSSH runs sshd and ssh over the link. Like startSSH, the link
// loses nothing until the session shows its first output, so that the
// handshakes' round trips are not what is measured. It reads as the
// sequence of steps it is (sshd, link, legs, ssh, first output, loss on),
// each undone by close if a later one fails; hence its length.
func startOpenSSH(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64) (live, error) {
	sshdPath, sshPath, err := opensshTools()
	if err != nil {
		return nil, err
	}
	o := &opensshLive{m: newMirror(spec.Cols, spec.Rows, true), copied: make(chan struct{})}
	if o.dir, err = os.MkdirTemp("", "gosh-bench-openssh-"); err != nil {
		return nil, err
	}
	port, err := o.startSSHD(sshdPath)
	if err != nil {
		o.close()
		return nil, err
	}
	var links lossLater
	var never atomic.Bool
	o.n, err = sshlink.NewNet(links.both(link, seed, &never))
	o.pipes = links.pipes
	if err != nil {
		o.close()
		return nil, err
	}
	if err := o.joinLegs(ctx, port); err != nil {
		o.close()
		return nil, err
	}
	fport := o.front.Addr().(*net.TCPAddr).Port
	o.client, err = pty.Start(pty.Spec{Command: []string{sshPath, "-tt", "-F", "/dev/null",
		"-i", filepath.Join(o.dir, "id_ed25519"), "-p", strconv.Itoa(fport),
		"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
		"-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
		"-l", currentUser(), "127.0.0.1", remoteCommand(spec)},
		Env: []string{"TERM=xterm-256color", "LANG=C.UTF-8", "HOME=" + o.dir, "PATH=" + os.Getenv("PATH")},
		Dir: o.dir, Cols: spec.Cols, Rows: spec.Rows})
	if err != nil {
		o.close()
		return nil, err
	}
	go func() {
		defer close(o.copied)
		_, _ = io.Copy(o.m, o.client)
	}()
	shows := func(fb *vt.Framebuffer) bool {
		for y := range fb.Height() {
			if strings.TrimSpace(fb.Row(y).Text()) != "" {
				return true
			}
		}
		return false
	}
	if o.m.waitFor(readyTimeout, shows).IsZero() {
		o.close()
		return nil, errors.New("ssh showed nothing")
	}
	links.start()
	return o, nil
}

// startSSHD writes a host key, the run's user key and a configuration
// into o.dir, starts sshd on a free loopback port, and returns the port
// once it accepts connections.
func (o *opensshLive) startSSHD(path string) (int, error) {
	if _, err := writeKey(filepath.Join(o.dir, "host_ed25519")); err != nil {
		return 0, err
	}
	userKey, err := writeKey(filepath.Join(o.dir, "id_ed25519"))
	if err != nil {
		return 0, err
	}
	auth := filepath.Join(o.dir, "authorized_keys")
	if err := os.WriteFile(auth, ssh.MarshalAuthorizedKey(userKey), 0o600); err != nil {
		return 0, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s\nAuthorizedKeysFile %s\n"+
		"PermitRootLogin yes\nStrictModes no\nUsePAM no\nPidFile none\nPrintMotd no\nPrintLastLog no\n"+
		"PasswordAuthentication no\nKbdInteractiveAuthentication no\nLogLevel ERROR\n",
		port, filepath.Join(o.dir, "host_ed25519"), auth)
	confPath := filepath.Join(o.dir, "sshd_config")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		return 0, err
	}
	o.sshd = exec.Command(path, "-D", "-e", "-f", confPath)
	o.sshd.Stderr = io.Discard
	if err := o.sshd.Start(); err != nil {
		o.sshd = nil
		return 0, fmt.Errorf("starting sshd: %w", err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
			c.Close()
			return port, nil
		}
	}
	return 0, errors.New("sshd did not listen within 10 s")
}

// writeKey writes a new Ed25519 private key to path in OpenSSH's format
// and returns its public half.
func writeKey(path string) (ssh.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "gosh bench")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, err
	}
	return ssh.NewPublicKey(pub)
}

// joinLegs listens on loopback for ssh and, in gVisor on the far side of
// the link, for the other end; each connection ssh makes crosses the link
// and is joined to sshd's port.
func (o *opensshLive) joinLegs(ctx context.Context, sshdPort int) error {
	var err error
	if o.front, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return err
	}
	if o.back, err = o.n.Listen(22); err != nil {
		return err
	}
	sshdAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sshdPort))
	o.legs.Add(2)
	go func() {
		defer o.legs.Done()
		accept(o.back, func(c net.Conn) (net.Conn, error) { return net.Dial("tcp", sshdAddr) })
	}()
	go func() {
		defer o.legs.Done()
		accept(o.front, func(net.Conn) (net.Conn, error) {
			dctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			return o.n.Dial(dctx, 22)
		})
	}()
	return nil
}

// accept joins every connection l accepts to one dial makes, until l is
// closed.
func accept(l net.Listener, dial func(net.Conn) (net.Conn, error)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			d, err := dial(c)
			if err != nil {
				return
			}
			defer d.Close()
			done := make(chan struct{}, 2)
			go func() { _, _ = io.Copy(d, c); done <- struct{}{} }()
			go func() { _, _ = io.Copy(c, d); done <- struct{}{} }()
			<-done
		}()
	}
}

// remoteCommand is spec as the command line ssh gives the remote user's
// shell: every word single-quoted.
func remoteCommand(spec remoteSpec) string {
	words := []string{"cd", shellQuote(spec.Dir), "&&", "exec", "env", "-i"}
	for _, kv := range spec.Env {
		words = append(words, shellQuote(kv))
	}
	for _, a := range spec.Argv {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s as one POSIX shell word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// currentUser is the login name sshd authenticates.
func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

func (o *opensshLive) typeKeys(b []byte) error { _, err := o.client.Write(b); return err }
func (o *opensshLive) screen() *mirror         { return o.m }
func (o *opensshLive) roam() bool              { return false } // TCP is bound to the old address

func (o *opensshLive) ended() bool { return isClosed(o.copied) }

func (o *opensshLive) note() string {
	v, _ := exec.Command("ssh", "-V").CombinedOutput()
	return strings.TrimSpace(string(v)) + " to its sshd, over TCP in gVisor netstack across the link (" + o.n.CongestionControl() + ")"
}

func (o *opensshLive) wire() int64          { return pipesWire(o.pipes) }
func (o *opensshLive) queue() time.Duration { return pipesQueue(o.pipes) }

func (o *opensshLive) close() {
	if !o.closed.CompareAndSwap(false, true) {
		return
	}
	if o.client != nil {
		o.client.Close()
		select {
		case <-o.copied:
		case <-time.After(closeWait):
		}
	}
	for _, l := range []net.Listener{o.front, o.back} {
		if l != nil {
			l.Close()
		}
	}
	if o.n != nil {
		o.n.Close()
	}
	for _, p := range o.pipes {
		p.Close()
	}
	if o.sshd != nil {
		_ = o.sshd.Process.Signal(syscall.SIGTERM) // our own sshd, by pid
		_ = o.sshd.Wait()
	}
	o.legs.Wait()
	os.RemoveAll(o.dir)
}

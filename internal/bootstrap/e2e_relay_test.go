//go:build unix

package bootstrap

import (
	"context"
	"io"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/relay"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/session/sessiontest"
	"github.com/gosh-term/gosh/internal/ssp"
)

// The UDP-blocked fallback end to end: a real sshd on loopback, the gosh
// server uploaded and started through it, the client's session loop on an
// in-memory terminal, and its UDP socket losing every datagram. The
// session comes up over the relay ("gosh server relay" over the kept SSH
// connection), survives the SSH connection being cut (the relay is dialled
// again, with the key, asking nothing), and moves back to UDP once UDP
// works.

// cutProxy forwards TCP connections to an address until cut, which closes
// the ones open (a network that went away); new ones are still accepted.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startCutProxy(t *testing.T, to string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve(to)
	return p
}

// serve accepts and forwards until the listener is closed.
func (p *cutProxy) serve(to string) {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", to)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close() }()
		go func() { io.Copy(c, s); c.Close() }()
	}
}

func (p *cutProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// blockableConn is a UDP socket that loses every datagram, both ways,
// while blocked.
type blockableConn struct {
	net.PacketConn
	blocked atomic.Bool
	sent    atomic.Int64 // datagrams that went out
}

func (b *blockableConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if b.blocked.Load() {
		return len(p), nil
	}
	b.sent.Add(1)
	return b.PacketConn.WriteTo(p, addr)
}

func (b *blockableConn) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, addr, err := b.PacketConn.ReadFrom(p)
		if err != nil || !b.blocked.Load() {
			return n, addr, err
		}
	}
}

// countingRelay counts the datagrams sent over a relay.
type countingRelay struct {
	*relay.Conn
	sent *atomic.Int64
}

func (c countingRelay) WriteTo(p []byte, addr net.Addr) (int, error) {
	c.sent.Add(1)
	return c.Conn.WriteTo(p, addr)
}

// TestRelayFallback runs the scenario against the gosh server (uploaded
// by the bootstrap), and against a stock mosh-server, whose relay is a
// gosh uploaded by a connect before.
//
// The two run at once, each with an sshd, a remote home and a proxy of its
// own: most of their time is the session's real timers.
func TestRelayFallback(t *testing.T) {
	t.Parallel() // real sshd and servers in real time, on ports and dirs of its own
	for _, server := range []string{"", "mosh-server"} {
		t.Run("server="+server, func(t *testing.T) {
			t.Parallel()
			if server != "" {
				needTools(t, server)
			}
			f := newUploadFixture(t)
			if server != "" {
				var logs, stderr syncBuffer
				runGosh(t, f.cfg(&logs, &stderr), &logs) // uploads the relay's gosh
			}
			proxy := startCutProxy(t, f.s.addr())
			var b []byte
			for _, k := range f.s.hostKeys {
				b = append(b, knownHostsLine("[127.0.0.1]:"+strconv.Itoa(proxy.port()), k)+"\n"...)
			}
			appendFile(t, f.h.knownHosts(), string(b))
			var logs, stderr syncBuffer
			cfg := f.cfg(&logs, &stderr)
			cfg.Destination = "root@127.0.0.1:" + strconv.Itoa(proxy.port())
			cfg.ServerCommand = server
			cfg.KeepRelay = true
			relayScenario(t, cfg, proxy, server != "")
		})
	}
}

// relayScenario starts a server with cfg and runs a session whose UDP is
// blocked (from the start if blockedAtStart, else once a command ran
// over UDP), then cut over SSH, then unblocked.
func relayScenario(t *testing.T, cfg Config, proxy *cutProxy, blockedAtStart bool) {
	res, err := Run(testContext(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	killServer(t, res.ServerPID)
	if res.Relay == nil {
		t.Fatal("KeepRelay: Result.Relay is nil")
	}
	defer res.Relay.Close()

	udp, err := net.ListenUDP("udp4", nil)
	if err != nil {
		t.Fatal(err)
	}
	sock := &blockableConn{PacketConn: udp}
	sock.blocked.Store(blockedAtStart)
	server := netip.AddrPortFrom(res.Addr, res.Port)
	var dials, relayed atomic.Int64
	term := sessiontest.NewTerminal(80, 24)
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() {
		done <- session.RunClient(ctx, session.ClientConfig{
			Server: server, Key: res.Key, Conn: ssp.NewConn(sock, nil, nil),
			Terminal: term, Signals: make(chan session.Signal),
			DialRelay: func(ctx context.Context, _ session.Asker) (session.Relay, error) {
				dials.Add(1)
				s, err := res.Relay.Open(ctx, nil)
				if err != nil {
					return nil, err
				}
				return countingRelay{relay.NewConn(s, server), &relayed}, nil
			},
			Logf: t.Logf,
		})
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the client did not end within 10 s of its context")
		}
	}()
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(limit); !cond(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("%s: not within %v; screen:\n%q", what, limit, term.Screen())
			}
		}
	}
	echo := func(a, b int) {
		t.Helper()
		term.Type("echo gosh-$((" + strconv.Itoa(a) + "+" + strconv.Itoa(b) + "))\r")
		want := "gosh-" + strconv.Itoa(a+b)
		waitFor("the output of echo "+want, 30*time.Second, func() bool { return term.Contains(want) })
	}

	if !blockedAtStart {
		echo(30, 1)
		if dials.Load() != 0 || sock.sent.Load() == 0 {
			t.Fatalf("UDP working: dials %d, datagrams over UDP %d; want none, some", dials.Load(), sock.sent.Load())
		}
		sock.blocked.Store(true)
	}
	start := time.Now()
	udpBefore := sock.sent.Load()
	echo(40, 2)
	t.Logf("UDP blocked (at the start: %v): the next command's output after %v, over the relay", blockedAtStart, time.Since(start).Round(time.Millisecond))
	if dials.Load() != 1 || relayed.Load() == 0 || sock.sent.Load() != udpBefore {
		t.Errorf("dials %d, datagrams over the relay %d, over UDP while blocked %d: want 1, some, none", dials.Load(), relayed.Load(), sock.sent.Load()-udpBefore)
	}

	proxy.cut()
	cutAt := time.Now()
	echo(50, 3)
	t.Logf("SSH cut: the next command's output after %v", time.Since(cutAt).Round(time.Millisecond))
	if dials.Load() != 2 {
		t.Errorf("%d relays dialled after the cut, want 2", dials.Load())
	}

	sock.blocked.Store(false)
	backAt := time.Now()
	waitFor("back on UDP", 60*time.Second, func() bool {
		r, u := relayed.Load(), sock.sent.Load()
		time.Sleep(3500 * time.Millisecond) // more than a heartbeat: something is sent
		return relayed.Load() == r && sock.sent.Load() > u
	})
	t.Logf("UDP unblocked: back on UDP after %v", time.Since(backAt).Round(time.Millisecond))
	r := relayed.Load()
	echo(60, 4)
	if n := relayed.Load() - r; n != 0 {
		t.Errorf("%d datagrams over the relay after moving back to UDP", n)
	}
}

// TestAgentForwardingOverSSH: Config.ForwardAgent (gosh connect -A) over a
// real sshd: the uploaded gosh server gets --forward-agent, the result
// names the agent, and ssh-add -l in the session's shell lists the key of
// the client's agent (its comment), through the forwarded socket.
func TestAgentForwardingOverSSH(t *testing.T) {
	f := newUploadFixture(t)
	agentKey := filepath.Join(t.TempDir(), "agent_key")
	keygen(t, "ed25519", agentKey, "")
	sock := startAgent(t, agentKey)
	t.Setenv("SSH_AUTH_SOCK", sock)
	var logs, stderr syncBuffer
	cfg := f.cfg(&logs, &stderr)
	cfg.ForwardAgent = true
	res, err := Run(testContext(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	killServer(t, res.ServerPID)
	if res.AgentSocket != sock {
		t.Fatalf("AgentSocket = %q, want %q", res.AgentSocket, sock)
	}
	udp, err := net.ListenUDP("udp4", nil)
	if err != nil {
		t.Fatal(err)
	}
	term := sessiontest.NewTerminal(100, 24)
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() {
		done <- session.RunClient(ctx, session.ClientConfig{
			Server: netip.AddrPortFrom(res.Addr, res.Port), Key: res.Key, Conn: ssp.NewConn(udp, nil, nil),
			Terminal: term, Signals: make(chan session.Signal),
			DialAgent: func() (io.ReadWriteCloser, error) { return DialAgent(res.AgentSocket) },
		})
	}()
	defer func() {
		cancel()
		<-done
	}()
	term.Type(`case "$SSH_AUTH_SOCK" in */gosh-agent-*) ssh-add -l;; *) echo "no""-fwd: $SSH_AUTH_SOCK";; esac` + "\r")
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if term.Contains("gosh-test (ED25519)") { // keygen's comment
			break
		}
		if term.Contains("no-fwd") || time.Now().After(end) {
			t.Fatalf("ssh-add -l through the forwarded agent; screen:\n%q", term.Screen())
		}
	}
}

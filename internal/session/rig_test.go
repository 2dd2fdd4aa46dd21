package session_test

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/session/sessiontest"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// The addresses of the rig's network.
var (
	serverAddr = netip.MustParseAddrPort("198.51.100.1:60001")
	clientIP   = netip.MustParseAddr("192.0.2.10")
)

// prompt is the scripted shell's prompt; waitScreen(ready) finds it (the
// screen's rows lose their trailing blanks).
const (
	prompt = "gosh$ "
	ready  = "gosh$"
)

// rig runs a real client loop and a real server loop over an in-memory
// network, with a scripted shell behind the server and an in-memory
// terminal in front of the client. It must be made inside a synctest
// bubble: every wait is in virtual time.
type rig struct {
	t     *testing.T
	net   *ssptest.Network
	key   sspcrypto.Key
	term  *sessiontest.Terminal
	shell *sessiontest.PTY

	srvPC, cliPC   *ssptest.PacketConn
	serverConn     net.PacketConn // the server's socket: srvPC unless a test wraps it
	cliConn        *ssp.Conn
	srvSig, cliSig chan session.Signal
	srvDone        chan error
	cliDone        chan error
	srvCancel      context.CancelFunc
	cliCancel      context.CancelFunc

	quiet bool // no logs from the loops (floods would make millions)

	mu        sync.Mutex // guards following
	drop      func(from, to netip.AddrPort) bool
	delay     time.Duration
	fromSrv   []time.Time // when the server sent each datagram
	cliBursts map[time.Time]int
}

// newRig sets up the network, the shell and the terminal; start the loops
// with startServer and startClient.
func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{t: t, net: ssptest.NewNetwork(), term: sessiontest.NewTerminal(80, 24),
		srvSig: make(chan session.Signal, 1), cliSig: make(chan session.Signal, 1),
		srvDone: make(chan error, 1), cliDone: make(chan error, 1), cliBursts: map[time.Time]int{}}
	r.delay = 10 * time.Millisecond
	var err error
	if r.key, err = sspcrypto.NewKey(nil); err != nil {
		t.Fatal(err)
	}
	r.net.Drop = func(from, to netip.AddrPort, _ []byte) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		now := time.Now()
		switch {
		case from == serverAddr:
			r.fromSrv = append(r.fromSrv, now)
		case from.Addr() == clientIP:
			r.cliBursts[now]++
		}
		return r.drop != nil && r.drop(from, to)
	}
	r.net.Delay = func(netip.AddrPort, netip.AddrPort, []byte) time.Duration {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.delay
	}
	if r.srvPC, err = r.net.Listen(serverAddr); err != nil {
		t.Fatal(err)
	}
	if r.cliPC, err = r.net.Listen(netip.AddrPortFrom(clientIP, 0)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.stop)
	return r
}

// setDrop sets which datagrams the network loses (nil: none).
func (r *rig) setDrop(f func(from, to netip.AddrPort) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drop = f
}

// dropAll loses every datagram until restore.
func (r *rig) dropAll() { r.setDrop(func(netip.AddrPort, netip.AddrPort) bool { return true }) }

// restore ends the loss.
func (r *rig) restore() { r.setDrop(nil) }

// serverSends returns how many datagrams the server sent in [from, to).
func (r *rig) serverSends(from, to time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, at := range r.fromSrv {
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

// clientSends returns how many datagrams the client sent in [from, to).
func (r *rig) clientSends(from, to time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for at, c := range r.cliBursts {
		if !at.Before(from) && at.Before(to) {
			n += c
		}
	}
	return n
}

// largestClientBurst returns the most datagrams the client sent at one
// instant.
func (r *rig) largestClientBurst() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.cliBursts {
		n = max(n, c)
	}
	return n
}

// startServer runs the server loop with cfg's timeouts and MOTD; the rig
// fills in the socket, the key, the shell (unless cfg has a PTY) and the
// signals.
func (r *rig) startServer(cfg session.ServerConfig) {
	if cfg.PTY == nil {
		r.shell = sessiontest.NewShell(prompt, 80, 24)
		cfg.PTY = r.shell
	}
	if r.serverConn == nil {
		r.serverConn = r.srvPC
	}
	cfg.Conn = ssp.NewConn(r.serverConn, nil, r.logf())
	cfg.Key, cfg.Signals = r.key, r.srvSig
	cfg.Cols, cfg.Rows = 80, 24
	cfg.Logf = r.logf()
	ctx, cancel := context.WithCancel(context.Background())
	r.srvCancel = cancel
	go func() { r.srvDone <- session.Serve(ctx, cfg) }()
}

// startClient runs the client loop with cfg's options; the rig fills in
// the server's address, the key, the socket, the terminal and the signals.
func (r *rig) startClient(cfg session.ClientConfig) {
	reopen := func() (net.PacketConn, error) { return r.net.Listen(netip.AddrPortFrom(clientIP, 0)) }
	r.cliConn = ssp.NewConn(r.cliPC, reopen, r.logf())
	cfg.Server, cfg.Key, cfg.Conn = serverAddr, r.key, r.cliConn
	cfg.Terminal, cfg.Signals = r.term, r.cliSig
	cfg.Logf = r.logf()
	ctx, cancel := context.WithCancel(context.Background())
	r.cliCancel = cancel
	go func() { r.cliDone <- session.RunClient(ctx, cfg) }()
}

// start runs both loops with default settings and waits for the prompt.
func (r *rig) start() {
	r.startServer(session.ServerConfig{})
	r.startClient(session.ClientConfig{})
	r.waitScreen(ready, 2*time.Second)
}

// logf is where the loops log: the test's log, or nowhere when quiet.
func (r *rig) logf() func(string, ...any) {
	if r.quiet {
		return nil
	}
	return r.t.Logf
}

// waitFor polls cond every 10 ms of virtual time for up to limit.
func (r *rig) waitFor(what string, limit time.Duration, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			r.t.Fatalf("no %s within %v; screen:\n%s", what, limit, strings.Join(r.term.Screen(), "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitScreen waits until the client's screen shows s.
func (r *rig) waitScreen(s string, limit time.Duration) {
	r.t.Helper()
	r.waitFor("\""+s+"\" on the screen", limit, func() bool { return r.term.Contains(s) })
}

// waitPrompt waits up to limit for the prompt on the row below last.
func (r *rig) waitPrompt(last string, limit time.Duration) {
	r.t.Helper()
	r.waitFor("the prompt after "+last, limit, func() bool {
		return strings.Contains(strings.Join(r.term.Screen(), "\n"), last+"\n"+ready)
	})
}

// waitEnd waits up to limit for a loop's result.
func (r *rig) waitEnd(what string, done chan error, limit time.Duration) (error, time.Duration) {
	r.t.Helper()
	start := time.Now()
	select {
	case err := <-done:
		done <- err // keep it for stop
		return err, time.Since(start)
	case <-time.After(limit):
		r.t.Fatalf("the %s did not end within %v; screen:\n%s", what, limit, strings.Join(r.term.Screen(), "\n"))
		return nil, 0
	}
}

// serverEnd and clientEnd wait for the loops to end.
func (r *rig) serverEnd(limit time.Duration) (error, time.Duration) {
	r.t.Helper()
	return r.waitEnd("server", r.srvDone, limit)
}

func (r *rig) clientEnd(limit time.Duration) (error, time.Duration) {
	r.t.Helper()
	return r.waitEnd("client", r.cliDone, limit)
}

// stop ends whatever still runs, so the bubble ends with no goroutine.
func (r *rig) stop() {
	for _, l := range []struct {
		cancel context.CancelFunc
		done   chan error
	}{{r.cliCancel, r.cliDone}, {r.srvCancel, r.srvDone}} {
		if l.cancel == nil {
			continue
		}
		l.cancel()
		select {
		case <-l.done:
		case <-time.After(time.Minute):
			r.t.Error("a loop did not end within a minute of its cancellation")
		}
	}
	r.term.Close()
	r.srvPC.Close()
	r.cliPC.Close()
}

// failingConn is a socket whose reads fail once fail is set.
type failingConn struct {
	*ssptest.PacketConn
	fail atomic.Bool
}

func (c *failingConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := c.PacketConn.ReadFrom(b)
	if c.fail.Load() && err == nil {
		return 0, nil, syscall.EIO
	}
	return n, from, err
}

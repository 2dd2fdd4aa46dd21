package session_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/session/sessiontest"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// secondClient runs another client loop from address ip with key and
// cfg's options, on a terminal of its own.
func (r *rig) secondClient(ip netip.Addr, key sspcrypto.Key, cfg session.ClientConfig) (*sessiontest.Terminal, chan error, context.CancelFunc) {
	r.t.Helper()
	pc, err := r.net.Listen(netip.AddrPortFrom(ip, 0))
	if err != nil {
		r.t.Fatal(err)
	}
	term := sessiontest.NewTerminal(100, 30)
	cfg.Server, cfg.Key, cfg.Conn = serverAddr, key, ssp.NewConn(pc, nil, r.logf())
	cfg.Terminal, cfg.Signals = term, make(chan session.Signal, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- session.RunClient(ctx, cfg) }()
	r.t.Cleanup(func() {
		cancel()
		<-done
		term.Close()
		pc.Close()
	})
	return term, done, cancel
}

// waitTerm waits until term shows s.
func waitTerm(t *testing.T, term *sessiontest.Terminal, s string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !term.Contains(s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %v; screen:\n%s", s, limit, strings.Join(term.Screen(), "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAttachTakeover: a control request hands the running session to a
// new client with a new key: it gets the whole screen and the same shell,
// its size reaches the program, and the previous client is told who took
// the session and exits.
func TestAttachTakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		control := make(chan session.ControlRequest)
		r.startServer(session.ServerConfig{Control: control})
		r.startClient(session.ClientConfig{})
		r.waitScreen(ready, 2*time.Second)
		r.term.Type("echo before-takeover\r")
		r.waitScreen("before-takeover", time.Second)

		reply := make(chan session.ControlReply, 1)
		control <- session.ControlRequest{Op: session.ControlAttach, From: "203.0.113.9", Reply: reply}
		rep := <-reply
		if rep.Err != nil {
			t.Fatal(rep.Err)
		}
		if rep.Key.Base64() == r.key.Base64() {
			t.Fatal("the takeover kept the old key")
		}
		term2, _, _ := r.secondClient(netip.MustParseAddr("192.0.2.77"), rep.Key, session.ClientConfig{Epoch: 1})
		waitTerm(t, term2, "before-takeover", 2*time.Second) // the whole screen
		term2.Type("echo after-takeover\r")
		waitTerm(t, term2, "after-takeover", 2*time.Second)
		if cols, rows, _ := r.shell.Size(); cols != 100 || rows != 30 {
			t.Errorf("the program's size is %dx%d, want the new client's 100x30", cols, rows)
		}

		err, took := r.clientEnd(5 * time.Second)
		if !errors.Is(err, session.ErrTakenOver) || !strings.Contains(err.Error(), "session taken over from 203.0.113.9") {
			t.Errorf("the previous client ended with %v, want the takeover", err)
		}
		if took > time.Second {
			t.Errorf("the previous client took %v to learn of the takeover", took)
		}
		if got := string(r.shell.Received()); !strings.Contains(got, "echo after-takeover\r") || strings.Count(got, "echo before-takeover\r") != 1 {
			t.Errorf("the shell received %q", got)
		}
		// The session still answers info, and says who is attached.
		control <- session.ControlRequest{Op: session.ControlInfo, Reply: reply}
		if in := (<-reply).Info; !in.Attached || in.Client.Addr() != netip.MustParseAddr("192.0.2.77") || in.Cols != 100 {
			t.Errorf("info after the takeover: %+v", in)
		}
	})
}

// TestResumeEpoch: a client that vanishes without a word (killed) is
// followed by one with the same key in epoch 1, above the sequence
// numbers the first used: it gets the whole screen, the same shell, and
// the scrollback from where it says its terminal is.
func TestResumeEpoch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.term.Type("seq 100\r")
		r.waitPrompt("100", 5*time.Second)
		var pushed uint64 = 50 // the first client put lines 0..49 into its terminal's scrollback
		// The client dies: nothing more from it, not even a shutdown.
		r.setDrop(func(from, _ netip.AddrPort) bool { return from.Addr() == clientIP })
		r.cliCancel()
		<-r.cliDone
		r.cliDone <- nil
		r.cliCancel = nil
		time.Sleep(5 * time.Second)
		r.restore()

		term2, _, _ := r.secondClient(netip.MustParseAddr("192.0.2.78"), r.key,
			session.ClientConfig{Epoch: 1, FirstSeq: 1 << 20, ResumeFrom: pushed})
		waitTerm(t, term2, "gosh$", 2*time.Second)
		term2.Type("echo resumed\r")
		waitTerm(t, term2, "resumed", 2*time.Second)
		// The history holds 0..77 (seq's 1..100 and the command line
		// minus the 23 rows still on screen, less the prompt); lines from
		// 50 on reach the new terminal's scrollback, in order.
		r.waitFor("the scrollback", 5*time.Second, func() bool { return len(term2.Scrollback()) > 0 })
		sb := term2.Scrollback()
		if sb[0] != "50" || strings.Contains(strings.Join(sb, ","), "skipped") {
			t.Errorf("the resumed terminal's scrollback starts %q (want line 50, seq's 50)", sb[:min(3, len(sb))])
		}
	})
}

// gatedDial is a server Dial whose dials end only when the test lets
// them: each returns one end of a pipe whose other end (the destination)
// the test holds.
type gatedDial struct {
	mu    sync.Mutex
	gates []chan struct{}
	dests []net.Conn
}

func (g *gatedDial) dial(string) (io.ReadWriteCloser, error) {
	gate := make(chan struct{})
	a, b := net.Pipe()
	g.mu.Lock()
	g.gates, g.dests = append(g.gates, gate), append(g.dests, b)
	g.mu.Unlock()
	<-gate
	return a, nil
}

// calls is how many dials started.
func (g *gatedDial) calls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.gates)
}

// release ends dial i and returns its destination's end.
func (g *gatedDial) release(i int) net.Conn {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.gates[i])
	return g.dests[i]
}

// TestDialAcrossTakeover: a dial still pending for the previous client's
// channel when a new client takes the session over ends onto nothing,
// even though the new client numbers its channels from the start again:
// the new client's connection on the same channel number reaches its own
// destination alone, and the stale one is closed.
func TestDialAcrossTakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		control := make(chan session.ControlRequest)
		g := &gatedDial{}
		r.startServer(session.ServerConfig{Control: control, Dial: g.dial})
		l1 := newPipeListener()
		target := func(io.ReadWriteCloser) (string, error) { return "db:5432", nil }
		r.startClient(session.ClientConfig{Forwards: []session.Forward{{Name: "-L 5432:db:5432", Listener: l1, Target: target}}})
		r.waitScreen(ready, 2*time.Second)
		c1 := l1.connect(t)
		defer c1.Close()
		r.waitFor("the first client's dial", 2*time.Second, func() bool { return g.calls() == 1 })

		reply := make(chan session.ControlReply, 1)
		control <- session.ControlRequest{Op: session.ControlAttach, From: "203.0.113.9", Reply: reply}
		rep := <-reply
		l2 := newPipeListener()
		term2, _, _ := r.secondClient(netip.MustParseAddr("192.0.2.77"), rep.Key, session.ClientConfig{Epoch: 1,
			Forwards: []session.Forward{{Name: "-L 5432:db:5432", Listener: l2, Target: target}}})
		waitTerm(t, term2, ready, 2*time.Second)
		c2 := l2.connect(t)
		defer c2.Close()
		r.waitFor("the second client's dial", 2*time.Second, func() bool { return g.calls() == 2 })

		stale := g.release(0) // the old client's channel 2 ends its dial now
		time.Sleep(time.Second)
		fresh := g.release(1)
		go c2.Write([]byte("hello"))
		got := make([]byte, 5)
		fresh.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(fresh, got); err != nil || string(got) != "hello" {
			t.Errorf("the new client's destination read %q, %v; want hello", got, err)
		}
		stale.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := stale.Read(make([]byte, 16)); !errors.Is(err, io.EOF) {
			t.Errorf("the stale dial's destination read %d bytes, %v; want it closed", n, err)
		}
		fresh.Close()
		stale.Close()
	})
}

//go:build unix || windows

package bench

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gosh-term/gosh/internal/bench/sshlink"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

var loopback = netip.MustParseAddr("127.0.0.1")

// goshLive is gosh's real client and server loops in this process, with a
// real shell in a pty behind the server and the link between their UDP
// sockets (a loopback relay).
type goshLive struct {
	m       *mirror
	input   chan []byte
	relay   *linkem.UDPRelay
	cancel  context.CancelFunc
	srvDone chan error
	cliDone chan error
	cols    int
	rows    int
}

func startGosh(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64, withPrediction bool, pacing ssp.Pacing) (live, error) {
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		return nil, err
	}
	sconn, err := ssp.Listen(ssp.ListenConfig{Addr: loopback, Ports: netaddr.AnyPort})
	if err != nil {
		return nil, err
	}
	prog, err := pty.Start(pty.Spec{Command: spec.Argv, Env: spec.Env, Dir: spec.Dir, Cols: spec.Cols, Rows: spec.Rows})
	if err != nil {
		sconn.Close()
		return nil, err
	}
	relay, err := linkem.NewUDPRelay(sconn.LocalAddr(), link, seed)
	if err != nil {
		prog.Close()
		sconn.Close()
		return nil, err
	}
	cconn, err := ssp.Dial(relay.Addr())
	if err != nil {
		relay.Close()
		prog.Close()
		sconn.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	g := &goshLive{m: newMirror(spec.Cols, spec.Rows, true), input: make(chan []byte, 64), relay: relay,
		cancel: cancel, srvDone: make(chan error, 1), cliDone: make(chan error, 1), cols: spec.Cols, rows: spec.Rows}
	var sp session.PTY = prog
	if see := spec.trace.observer(); see != nil {
		sp = observedPTY{prog, see}
	}
	go func() {
		g.srvDone <- session.Serve(ctx, session.ServerConfig{Conn: sconn, Key: key, PTY: sp, Cols: spec.Cols, Rows: spec.Rows, Pacing: pacing})
	}()
	var pred session.Predictor
	if withPrediction {
		pred = predict.NewEngine(predictMode, false)
	}
	go func() {
		g.cliDone <- session.RunClient(ctx, session.ClientConfig{Server: relay.Addr(), Key: key, Conn: cconn,
			Terminal: (*goshTerminal)(g), Predict: pred, Pacing: pacing})
	}()
	return g, nil
}

// observedPTY is a program's pty whose output is also shown to see, as
// the server loop reads it. The embedded Program keeps its other methods
// (the exit status the server loop passes on).
type observedPTY struct {
	*pty.Program
	see func([]byte)
}

func (p observedPTY) Read(b []byte) (int, error) {
	n, err := p.Program.Read(b)
	p.see(b[:n])
	return n, err
}

func (g *goshLive) typeKeys(b []byte) error {
	select {
	case g.input <- b:
		return nil
	case err := <-g.cliDone:
		g.cliDone <- err
		return fmt.Errorf("the gosh client ended: %v", err)
	}
}

func (g *goshLive) screen() *mirror { return g.m }

func (g *goshLive) ended() bool {
	select {
	case err := <-g.cliDone:
		g.cliDone <- err
		return true
	default:
		return false
	}
}

func (g *goshLive) note() string { return "" }
func (g *goshLive) wire() int64  { return udpWire(g.relay.Stats()) }
func (g *goshLive) queue() time.Duration {
	return relayQueue(g.relay.Stats())
}
func (g *goshLive) roam() bool { return g.relay.Rebind() == nil }

func (g *goshLive) close() {
	g.cancel()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	for _, c := range []chan error{g.cliDone, g.srvDone} {
		select {
		case <-c:
		case <-t.C:
		}
	}
	g.relay.Close()
}

// goshTerminal is the user's terminal as gosh's client loop sees it: the
// mirror, a fixed size, and the typist's keys.
type goshTerminal goshLive

func (t *goshTerminal) Write(p []byte) (int, error) { return t.m.Write(p) }
func (t *goshTerminal) Input() <-chan []byte        { return t.input }
func (t *goshTerminal) Size() (int, int)            { return t.cols, t.rows }
func (t *goshTerminal) MakeRaw() error              { return nil }
func (t *goshTerminal) Restore() error              { return nil }
func (t *goshTerminal) Suspend()                    {}

// sshLive is SSH (x/crypto/ssh at both ends) over TCP in gVisor's
// userspace stack, whose IP packets cross the link.
type sshLive struct {
	m      *mirror
	n      *sshlink.Net
	srv    *sshlink.Server
	cl     *sshlink.Client
	pipes  []*linkem.Pipe
	copied chan struct{}
	roamed atomic.Bool
}

func startSSH(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64) (live, error) {
	s := &sshLive{m: newMirror(spec.Cols, spec.Rows, true), copied: make(chan struct{})}
	// The connection is set up over the link without its loss
	// (lossLater); the loss starts once the shell is up.
	var links lossLater
	n, err := sshlink.NewNet(links.both(link, seed, &s.roamed))
	s.pipes = links.pipes
	if err != nil {
		return nil, err
	}
	s.n = n
	l, err := n.Listen(22)
	if err != nil {
		s.close()
		return nil, err
	}
	if s.srv, err = sshlink.StartServer(l, sshlink.ServerConfig{Argv: spec.Argv, Env: spec.Env, Dir: spec.Dir,
		Output: spec.trace.observer()}); err != nil {
		s.close()
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := n.Dial(dctx, 22)
	if err != nil {
		s.close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	if s.cl, err = sshlink.Dial(conn, "xterm-256color", spec.Cols, spec.Rows); err != nil {
		s.close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	links.start()
	go func() {
		defer close(s.copied)
		_, _ = io.Copy(s.m, s.cl.Stdout)
	}()
	return s, nil
}

func (s *sshLive) typeKeys(b []byte) error { _, err := s.cl.Stdin.Write(b); return err }
func (s *sshLive) screen() *mirror         { return s.m }

func (s *sshLive) ended() bool { return isClosed(s.copied) }

func (s *sshLive) note() string {
	return "golang.org/x/crypto/ssh over TCP (gVisor netstack, " + s.n.CongestionControl() + " congestion control, SACK, no Nagle)"
}

func (s *sshLive) wire() int64          { return pipesWire(s.pipes) }
func (s *sshLive) queue() time.Duration { return pipesQueue(s.pipes) }

// lossLater makes the links of a transport over gVisor's TCP, without
// their loss until start: a connection set up over a lossy link would
// have gVisor take the time since the first SYN as its first round-trip
// sample when a handshake packet is lost (seconds of RTO that decay
// slowly), where Linux's TCP would not. The paper measured established
// sessions.
type lossLater struct {
	mu    sync.Mutex
	pipes []*linkem.Pipe
	full  []linkem.Config
}

// link returns a constructor for sshlink.NewNet of one direction with
// cfg, without its loss for now; while cut is true nothing is delivered
// (the client moved away).
func (l *lossLater) link(cfg linkem.Config, seed uint64, cut *atomic.Bool) func(func([]byte)) sshlink.Link {
	return func(deliver func([]byte)) sshlink.Link {
		clean := cfg
		clean.Loss, clean.Burst, clean.Outages = 0, nil, nil
		p := linkem.NewPipe(clean, seed, func(b []byte) {
			if !cut.Load() {
				deliver(b)
			}
		})
		l.mu.Lock()
		l.pipes, l.full = append(l.pipes, p), append(l.full, cfg)
		l.mu.Unlock()
		return p
	}
}

// both returns the constructors of link's two directions, seeded as every
// transport's are ([linkem.DirectionSeeds]): a TCP connection and a UDP
// relay with one seed meet the same loss and jitter draws.
func (l *lossLater) both(link linkem.Profile, seed uint64, cut *atomic.Bool) (up, down func(func([]byte)) sshlink.Link) {
	us, ds := linkem.DirectionSeeds(seed)
	return l.link(link.Up, us, cut), l.link(link.Down, ds, cut)
}

// start gives every link its loss.
func (l *lossLater) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, p := range l.pipes {
		p.SetConfig(l.full[i])
	}
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// pipesWire is the bytes pipes carried: whole IP packets, offered to the
// link (lost ones count).
func pipesWire(pipes []*linkem.Pipe) int64 {
	var n int64
	for _, p := range pipes {
		n += int64(p.Stats().OfferedBytes)
	}
	return n
}

// pipesQueue is the longest time a packet spent in the bottleneck of any
// of pipes.
func pipesQueue(pipes []*linkem.Pipe) time.Duration {
	var q time.Duration
	for _, p := range pipes {
		q = max(q, p.Stats().MaxQueueDelay)
	}
	return q
}

// roam: a TCP connection is bound to the client's old address, so after a
// move nothing of it arrives any more (the packets go to, and come from,
// an address that is gone). SSH cannot follow.
func (s *sshLive) roam() bool {
	s.roamed.Store(true)
	return false
}

func (s *sshLive) close() {
	if s.cl != nil {
		s.cl.Close()
	}
	if s.srv != nil {
		s.srv.Close()
	}
	if s.n != nil {
		s.n.Close()
	}
	for _, p := range s.pipes {
		p.Close()
	}
	if s.cl != nil {
		select {
		case <-s.copied:
		case <-time.After(closeWait):
		}
	}
}

// udpWire is what a relay's datagrams took on the wire, both ways,
// counted where they were sent: payload and IP and UDP headers.
func udpWire(s linkem.RelayStats) int64 { return s.Bytes() }

// relayQueue is the longer of a relay's two bottleneck queueing delays.
func relayQueue(s linkem.RelayStats) time.Duration {
	return max(s.Up.MaxQueueDelay, s.Down.MaxQueueDelay)
}

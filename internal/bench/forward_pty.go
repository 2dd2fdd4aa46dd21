//go:build unix || windows

package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/gosh-term/gosh/internal/bench/sshlink"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// forwardRounds is how many small request/answer round trips Forward
// times, each on a new forwarded connection (as ssh-add opens one to the
// agent per command).
const forwardRounds = 20

// Forward measures port forwarding over link for SSH (-L: a direct-tcpip
// channel over TCP in gVisor's userspace stack) and gosh (-L, and the
// agent channel), both ends in this process: the throughput of size bytes
// sent through a forwarded connection to an echo server and back, and the
// round trip of a small request on a new connection.
func Forward(ctx context.Context, link linkem.Profile, size int, seed uint64, progress io.Writer) ([]ForwardResult, error) {
	var out []ForwardResult
	for _, run := range []struct {
		name string
		f    func(context.Context, linkem.Profile, int, uint64) (ForwardResult, error)
	}{{"ssh -L", forwardSSH}, {"gosh -L", forwardGosh}} {
		fmt.Fprintf(progress, "%s/%s: %d bytes there and back, then %d round trips\n", link.Name, run.name, size, forwardRounds)
		r, err := run.f(ctx, link, size, seed)
		if err != nil {
			return out, fmt.Errorf("%s: %w", run.name, err)
		}
		r.Transport = run.name
		out = append(out, r)
	}
	return out, nil
}

// forwardSSH is Forward for SSH.
func forwardSSH(ctx context.Context, link linkem.Profile, size int, seed uint64) (ForwardResult, error) {
	var pipes []*linkem.Pipe
	var mu sync.Mutex
	mk := func(cfg linkem.Config, seed uint64) func(func([]byte)) sshlink.Link {
		return func(deliver func([]byte)) sshlink.Link {
			p := linkem.NewPipe(cfg, seed, deliver)
			mu.Lock()
			pipes = append(pipes, p)
			mu.Unlock()
			return p
		}
	}
	up, down := linkem.DirectionSeeds(seed)
	n, err := sshlink.NewNet(mk(link.Up, up), mk(link.Down, down))
	if err != nil {
		return ForwardResult{}, err
	}
	defer func() {
		n.Close()
		for _, p := range pipes {
			p.Close()
		}
	}()
	l, err := n.Listen(22)
	if err != nil {
		return ForwardResult{}, err
	}
	srv, err := sshlink.StartServer(l, sshlink.ServerConfig{Argv: idleCommand(), Env: idleEnv(),
		Forward: func(string) (io.ReadWriteCloser, error) { return echoConn(), nil }})
	if err != nil {
		return ForwardResult{}, err
	}
	defer srv.Close()
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := n.Dial(dctx, 22)
	if err != nil {
		return ForwardResult{}, err
	}
	cl, err := sshlink.Dial(conn, "xterm", 80, 24)
	if err != nil {
		return ForwardResult{}, err
	}
	defer cl.Close()
	go io.Copy(io.Discard, cl.Stdout)
	dial := func() (io.ReadWriteCloser, error) { return cl.DialTCP("127.0.0.1:7") }
	return measureForward(dial, dial, size)
}

// forwardGosh is Forward for gosh: the real session loops over a UDP relay
// applying the link.
func forwardGosh(ctx context.Context, link linkem.Profile, size int, seed uint64) (ForwardResult, error) {
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		return ForwardResult{}, err
	}
	sconn, err := ssp.Listen(ssp.ListenConfig{Addr: loopback, Ports: netaddr.AnyPort})
	if err != nil {
		return ForwardResult{}, err
	}
	prog, err := pty.Start(pty.Spec{Command: idleCommand(), Env: idleEnv(), Cols: 80, Rows: 24})
	if err != nil {
		sconn.Close()
		return ForwardResult{}, err
	}
	relay, err := linkem.NewUDPRelay(sconn.LocalAddr(), link, seed)
	if err != nil {
		prog.Close()
		sconn.Close()
		return ForwardResult{}, err
	}
	defer relay.Close()
	cconn, err := ssp.Dial(relay.Addr())
	if err != nil {
		prog.Close()
		sconn.Close()
		return ForwardResult{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	g := &goshLive{m: newMirror(80, 24, false), input: make(chan []byte, 1), cols: 80, rows: 24}
	local, agent := newMemListener(), newMemListener()
	echo := func(string) (io.ReadWriteCloser, error) { return echoConn(), nil }
	done := make(chan struct{}, 2)
	go func() {
		session.Serve(ctx, session.ServerConfig{Conn: sconn, Key: key, PTY: prog, Cols: 80, Rows: 24, Dial: echo, Agent: agent})
		done <- struct{}{}
	}()
	go func() {
		session.RunClient(ctx, session.ClientConfig{Server: relay.Addr(), Key: key, Conn: cconn, Terminal: (*goshTerminal)(g),
			Forwards:  []session.Forward{{Name: "-L", Listener: local, Target: func(io.ReadWriteCloser) (string, error) { return "127.0.0.1:7", nil }}},
			DialAgent: func() (io.ReadWriteCloser, error) { return echoConn(), nil }})
		done <- struct{}{}
	}()
	defer func() {
		cancel()
		for range 2 {
			select {
			case <-done:
			case <-time.After(closeWait):
			}
		}
	}()
	return measureForward(local.connect, agent.connect, size)
}

// measureForward sends size bytes through a connection from dialData and
// reads them back, then times forwardRounds small requests on new
// connections from dialRound.
func measureForward(dialData, dialRound func() (io.ReadWriteCloser, error), size int) (ForwardResult, error) {
	r := ForwardResult{Bytes: size}
	c, err := dialData()
	if err != nil {
		return r, err
	}
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	start := time.Now()
	werr := make(chan error, 1)
	go func() { _, err := c.Write(data); werr <- err }()
	got := make([]byte, size)
	if err := readFull(c, got, forwardTimeout); err != nil {
		c.Close()
		return r, fmt.Errorf("reading the data back: %w", err)
	}
	r.Elapsed = time.Since(start)
	c.Close()
	if err := <-werr; err != nil {
		return r, err
	}
	for i := range got {
		if got[i] != data[i] {
			return r, fmt.Errorf("the data came back corrupted at byte %d", i)
		}
	}
	req := []byte("a request of some forty bytes, or so...")
	for range forwardRounds {
		time.Sleep(forwardPause) // a request now and then, as ssh-add makes them
		start := time.Now()
		c, err := dialRound()
		if err != nil {
			return r, err
		}
		go c.Write(req)
		back := make([]byte, len(req))
		err = readFull(c, back, forwardTimeout)
		c.Close()
		if err != nil {
			return r, fmt.Errorf("round trip: %w", err)
		}
		r.RoundTrips = append(r.RoundTrips, time.Since(start))
	}
	return r, nil
}

// forwardPause separates the round trips: back to back they would be a
// stream, which gosh paces as one.
const forwardPause = 200 * time.Millisecond

// forwardTimeout bounds one transfer or round trip.
const forwardTimeout = 10 * time.Minute

// readFull reads len(p) bytes from r within limit.
func readFull(r io.ReadCloser, p []byte, limit time.Duration) error {
	errc := make(chan error, 1)
	go func() { _, err := io.ReadFull(r, p); errc <- err }()
	select {
	case err := <-errc:
		return err
	case <-time.After(limit):
		r.Close()
		return fmt.Errorf("nothing within %v", limit)
	}
}

// echoConn returns one end of a connection whose other end echoes.
func echoConn() io.ReadWriteCloser {
	c, e := net.Pipe()
	go func() {
		io.Copy(e, e)
		e.Close()
	}()
	return c
}

// memListener is a listener in memory: connect makes a connection and
// returns its other end.
type memListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newMemListener() *memListener {
	return &memListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *memListener) Accept() (io.ReadWriteCloser, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *memListener) connect() (io.ReadWriteCloser, error) {
	a, b := net.Pipe()
	select {
	case l.conns <- b:
		return a, nil
	case <-l.closed:
		return nil, net.ErrClosed
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("no one accepts the forwarded connection")
	}
}

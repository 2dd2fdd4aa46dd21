//go:build unix || windows

package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/gosh-term/gosh/internal/bench/sshlink"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/vt"
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
	return forward(ctx, link, size, seed, false, progress)
}

// ForwardTyping measures, for SSH (the same connection, as ssh -L users
// have it) and gosh (prediction off), the keystroke echo of a typist
// while size bytes go through a forwarded connection to an echo server
// and back: the throughput, and each key's time from the key to its echo
// on the screen (ForwardResult.Echoes).
func ForwardTyping(ctx context.Context, link linkem.Profile, size int, seed uint64, progress io.Writer) ([]ForwardResult, error) {
	return forward(ctx, link, size, seed, true, progress)
}

func forward(ctx context.Context, link linkem.Profile, size int, seed uint64, typing bool, progress io.Writer) ([]ForwardResult, error) {
	var out []ForwardResult
	for _, run := range []struct {
		name string
		f    func(context.Context, linkem.Profile, int, uint64, bool) (ForwardResult, error)
	}{{"ssh -L", forwardSSH}, {"gosh -L", forwardGosh}} {
		what := fmt.Sprintf("then %d round trips", forwardRounds)
		if typing {
			what = "with a typist"
		}
		fmt.Fprintf(progress, "%s/%s: %d bytes there and back, %s\n", link.Name, run.name, size, what)
		r, err := run.f(ctx, link, size, seed, typing)
		if err != nil {
			return out, fmt.Errorf("%s: %w", run.name, err)
		}
		r.Transport = run.name
		out = append(out, r)
	}
	return out, nil
}

// forwardSSH is Forward for SSH.
func forwardSSH(ctx context.Context, link linkem.Profile, size int, seed uint64, typing bool) (ForwardResult, error) {
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
	srv, err := sshlink.StartServer(l, sshlink.ServerConfig{Argv: forwardCommand(typing), Env: idleEnv(),
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
	m := newMirror(80, 24, false)
	go io.Copy(m, cl.Stdout)
	dial := func() (io.ReadWriteCloser, error) { return cl.DialTCP("127.0.0.1:7") }
	if typing {
		return measureTyping(dial, func(b []byte) error { _, err := cl.Stdin.Write(b); return err }, m, size)
	}
	return measureForward(dial, dial, size)
}

// forwardCommand is the program behind the forwarding session: one that
// echoes what is typed (the terminal does) for the typist, else one that
// sleeps.
func forwardCommand(typing bool) []string {
	if typing && runtime.GOOS != "windows" {
		return []string{"cat"}
	}
	return idleCommand()
}

// forwardGosh is Forward for gosh: the real session loops over a UDP relay
// applying the link.
func forwardGosh(ctx context.Context, link linkem.Profile, size int, seed uint64, typing bool) (ForwardResult, error) {
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		return ForwardResult{}, err
	}
	sconn, err := ssp.Listen(ssp.ListenConfig{Addr: loopback, Ports: netaddr.AnyPort})
	if err != nil {
		return ForwardResult{}, err
	}
	prog, err := pty.Start(pty.Spec{Command: forwardCommand(typing), Env: idleEnv(), Cols: 80, Rows: 24})
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
	if typing {
		key := func(b []byte) error {
			select {
			case g.input <- b:
				return nil
			case <-time.After(forwardTimeout):
				return fmt.Errorf("the gosh client takes no keys")
			}
		}
		return measureTyping(local.connect, key, g.m, size)
	}
	return measureForward(local.connect, agent.connect, size)
}

// measureTyping sends size bytes through a connection from dialData and
// reads them back, as measureForward does, while a typist types into the
// session with key, a key every 200 to 300 ms (Enter after 60, or at
// the end of the row), and times each key's echo on the screen m (the
// cursor where the key leaves it, counted from where the line starts:
// column 0 under cat, after the prompt under cmd.exe, which it waits for).
// The typist starts once a tenth of the data came back (the transfer is
// under way, at any link's speed) and stops when all of it did; a key's
// echo is awaited as long as the transfer may take (behind a full TCP
// send buffer on a slow link, SSH's takes a minute or more).
func measureTyping(dialData func() (io.ReadWriteCloser, error), key func([]byte) error, m *mirror, size int) (ForwardResult, error) {
	if runtime.GOOS == "windows" && !m.changedAfter(time.Time{}, readyTimeout) {
		// cmd.exe paints its prompt (under Wine seconds after the session
		// opened); quiet alone would count the columns from before it.
		return ForwardResult{}, fmt.Errorf("cmd.exe showed no prompt within %v", readyTimeout)
	}
	m.quiet(time.Second, 10*time.Second)
	fb := m.screen()
	x0, _ := fb.Cursor()
	line := max(1, min(60, fb.Width()-x0-2)) // keys before Enter: no wrap
	done, tenth := make(chan struct{}), make(chan struct{})
	var r ForwardResult
	var ferr error
	go func() {
		defer close(done)
		r, ferr = measureData(dialData, size, tenth)
	}()
	select {
	case <-tenth:
	case <-done:
	}
	var echoes []time.Duration
	col := x0
	for i := 0; ; i++ {
		select {
		case <-done:
			r.Echoes = echoes
			return r, ferr
		default:
		}
		k, want := []byte{byte('a' + i%26)}, col+1
		if col-x0 >= line {
			k, want = []byte("\r"), x0
		}
		start := time.Now()
		if err := key(k); err != nil {
			<-done
			return r, err
		}
		at := m.waitFor(forwardTimeout, func(fb *vt.Framebuffer) bool {
			x, _ := fb.Cursor()
			return x == want
		})
		if at.IsZero() {
			<-done
			x, _ := m.screen().Cursor()
			return r, fmt.Errorf("no echo of key %d within %v (the cursor stays at column %d, not %d)", i, forwardTimeout, x, want)
		}
		echoes = append(echoes, at.Sub(start))
		col = want
		time.Sleep(time.Duration(200+i%6*20) * time.Millisecond)
	}
}

// measureForward sends size bytes through a connection from dialData and
// reads them back, then times forwardRounds small requests on new
// connections from dialRound.
func measureForward(dialData, dialRound func() (io.ReadWriteCloser, error), size int) (ForwardResult, error) {
	r, err := measureData(dialData, size, nil)
	if err != nil {
		return r, err
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

// measureData sends size bytes through a connection from dialData and
// reads them back, checking every byte. It closes tenth, if not nil, once
// a tenth of them came back.
func measureData(dialData func() (io.ReadWriteCloser, error), size int, tenth chan<- struct{}) (ForwardResult, error) {
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
	if err := readFull(&progress{ReadWriteCloser: c, at: size / 10, reached: tenth}, got, forwardTimeout); err != nil {
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

// progress is a connection whose reads close reached once at bytes came
// (nil: never).
type progress struct {
	io.ReadWriteCloser
	n, at   int
	reached chan<- struct{}
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.ReadWriteCloser.Read(b)
	if p.n += n; p.reached != nil && p.n >= p.at {
		close(p.reached)
		p.reached = nil
	}
	return n, err
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

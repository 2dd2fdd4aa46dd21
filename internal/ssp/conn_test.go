package ssp

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/netaddr"
)

// goroutineLeakCheck fails the test if a Conn reader goroutine outlives
// it. Close waits for the readers, so only the last instructions of a
// finished goroutine may still be running; yield until they are gone.
func goroutineLeakCheck(t *testing.T) {
	t.Cleanup(func() {
		buf := make([]byte, 1<<20)
		for range 10000 {
			n := runtime.Stack(buf, true)
			if !bytes.Contains(buf[:n], []byte("ssp.(*Conn).read")) {
				return
			}
			runtime.Gosched()
		}
		n := runtime.Stack(buf, true)
		t.Errorf("Conn reader goroutines leaked:\n%s", buf[:n])
	})
}

// recv waits for one datagram.
func recv(t *testing.T, c *Conn) Datagram {
	t.Helper()
	select {
	case d, ok := <-c.Datagrams():
		if !ok {
			t.Fatal("Datagrams closed")
		}
		return d
	case <-time.After(5 * time.Second):
		t.Fatal("no datagram within 5 s")
	}
	panic("unreachable")
}

func TestListenPorts(t *testing.T) {
	goroutineLeakCheck(t)
	lo := netip.MustParseAddr("127.0.0.1")
	t.Run("default range", func(t *testing.T) {
		c, err := Listen(ListenConfig{Addr: lo})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if lo, hi := netaddr.DefaultPorts.Bounds(); c.LocalAddr().Port() < lo || c.LocalAddr().Port() > hi {
			t.Errorf("default port %d outside %v", c.LocalAddr().Port(), netaddr.DefaultPorts)
		}
	})
	t.Run("any port", func(t *testing.T) {
		c, err := Listen(ListenConfig{Addr: lo, Ports: netaddr.AnyPort})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.LocalAddr().Port() == 0 || c.LocalAddr().Addr() != lo {
			t.Errorf("LocalAddr = %v", c.LocalAddr())
		}
	})
	t.Run("exact port and first free of a range", func(t *testing.T) {
		first, err := Listen(ListenConfig{Addr: lo, Ports: netaddr.AnyPort})
		if err != nil {
			t.Fatal(err)
		}
		defer first.Close()
		busy := first.LocalAddr().Port()
		if _, err := Listen(ListenConfig{Addr: lo, Ports: netaddr.Ports(busy, busy)}); err == nil {
			t.Fatalf("bound the busy port %d twice", busy)
		}
		hi := min(int(busy)+20, 65535)
		c, err := Listen(ListenConfig{Addr: lo, Ports: netaddr.Ports(busy, uint16(hi))})
		if err != nil {
			t.Fatalf("no free port in %d:%d: %v", busy, hi, err)
		}
		defer c.Close()
		if p := c.LocalAddr().Port(); p <= busy || int(p) > hi {
			t.Errorf("range %d:%d bound %d", busy, hi, p)
		}
	})
}

// exchange checks datagrams both ways between a server and a client.
func exchange(t *testing.T, srv, cli *Conn, serverAddr netip.AddrPort) Datagram {
	t.Helper()
	if err := cli.WriteTo([]byte("ping"), serverAddr); err != nil {
		t.Fatal(err)
	}
	d := recv(t, srv)
	if string(d.Data) != "ping" || d.From.Port() != cli.LocalAddr().Port() {
		t.Fatalf("server got %q from %v, want ping from %v", d.Data, d.From, cli.LocalAddr())
	}
	if d.At.IsZero() {
		t.Error("no arrival time")
	}
	if err := srv.WriteTo([]byte("pong"), d.From); err != nil {
		t.Fatal(err)
	}
	if r := recv(t, cli); string(r.Data) != "pong" {
		t.Fatalf("client got %q", r.Data)
	}
	return d
}

func TestConnExchange(t *testing.T) {
	goroutineLeakCheck(t)
	for _, tc := range []struct{ name, listen, dial string }{
		{"IPv4", "127.0.0.1", "127.0.0.1"},
		{"IPv6", "::1", "::1"},
		{"dual-stack server, IPv4 client", "::", "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := Listen(ListenConfig{Addr: netip.MustParseAddr(tc.listen), Ports: netaddr.AnyPort})
			if err != nil {
				t.Fatalf("cannot listen on %s: %v", tc.listen, err)
			}
			defer srv.Close()
			target := netip.AddrPortFrom(netip.MustParseAddr(tc.dial), srv.LocalAddr().Port())
			cli, err := Dial(target)
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			d := exchange(t, srv, cli, target)
			if d.From.Addr() != netip.MustParseAddr(tc.dial) {
				t.Errorf("source %v, want an address of %s (unmapped)", d.From, tc.dial)
			}
		})
	}
}

func TestConnHop(t *testing.T) {
	goroutineLeakCheck(t)
	srv, err := Listen(ListenConfig{Addr: netip.MustParseAddr("127.0.0.1"), Ports: netaddr.AnyPort})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cli, err := Dial(srv.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	first := exchange(t, srv, cli, srv.LocalAddr()).From
	if err := cli.Hop(); err != nil {
		t.Fatal(err)
	}
	second := exchange(t, srv, cli, srv.LocalAddr()).From
	if second == first {
		t.Fatalf("still sending from %v after Hop", first)
	}
	// The old socket is still read.
	if err := srv.WriteTo([]byte("late"), first); err != nil {
		t.Fatal(err)
	}
	if d := recv(t, cli); string(d.Data) != "late" {
		t.Errorf("old socket delivered %q", d.Data)
	}
	// At most MaxPortsOpen sockets.
	for range MaxPortsOpen + 3 {
		if err := cli.Hop(); err != nil {
			t.Fatal(err)
		}
	}
	cli.mu.Lock()
	n := len(cli.socks)
	cli.mu.Unlock()
	if n != MaxPortsOpen {
		t.Errorf("%d sockets after many hops, want %d", n, MaxPortsOpen)
	}
	// Once the newest socket is older than MaxOldSocketAge, a received
	// datagram prunes all others.
	cli.mu.Lock()
	cli.lastHop = time.Now().Add(-MaxOldSocketAge - time.Second)
	cli.mu.Unlock()
	exchange(t, srv, cli, srv.LocalAddr())
	cli.mu.Lock()
	n = len(cli.socks)
	cli.mu.Unlock()
	if n != 1 {
		t.Errorf("%d sockets after the old ones aged out, want 1", n)
	}
	if err := srv.Hop(); !errors.Is(err, errNoHop) {
		t.Errorf("server Hop = %v, want errNoHop", err)
	}
}

func TestConnOversize(t *testing.T) {
	goroutineLeakCheck(t)
	srv, err := Listen(ListenConfig{Addr: netip.MustParseAddr("127.0.0.1"), Ports: netaddr.AnyPort})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cli, err := Dial(srv.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if err := cli.WriteTo(make([]byte, 3000), srv.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	if d := recv(t, srv); len(d.Data) != MaxReceive+1 {
		t.Errorf("oversize datagram delivered as %d bytes, want %d", len(d.Data), MaxReceive+1)
	}
}

func TestConnClose(t *testing.T) {
	goroutineLeakCheck(t)
	cli, err := Dial(netip.MustParseAddrPort("127.0.0.1:9"))
	if err != nil {
		t.Fatal(err)
	}
	cli.Hop()
	if err := cli.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cli.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, ok := <-cli.Datagrams(); ok {
		t.Error("Datagrams still open after Close")
	}
	if err := cli.WriteTo([]byte("x"), netip.MustParseAddrPort("127.0.0.1:9")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteTo after Close = %v, want net.ErrClosed", err)
	}
	if err := cli.Hop(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Hop after Close = %v, want net.ErrClosed", err)
	}
}

// pipeRelay is a Relay over a channel pair: what the Conn writes comes out
// of sent, what the test puts in recv is read with the server's address.
type pipeRelay struct {
	sent, recv chan []byte
	done       chan struct{}
	closed     bool
}

func newPipeRelay() *pipeRelay {
	return &pipeRelay{sent: make(chan []byte, 8), recv: make(chan []byte, 8), done: make(chan struct{})}
}

var relayServer = netip.MustParseAddrPort("127.0.0.1:60001")

func (p *pipeRelay) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case d := <-p.recv:
		return copy(b, d), net.UDPAddrFromAddrPort(relayServer), nil
	case <-p.done:
		return 0, nil, net.ErrClosed
	}
}

func (p *pipeRelay) WriteTo(b []byte, _ net.Addr) (int, error) {
	p.sent <- append([]byte(nil), b...)
	return len(b), nil
}

func (p *pipeRelay) Close() error {
	if !p.closed {
		p.closed = true
		close(p.done)
	}
	return nil
}

func (p *pipeRelay) LocalAddr() net.Addr              { return &net.UDPAddr{} }
func (p *pipeRelay) SetDeadline(time.Time) error      { return nil }
func (p *pipeRelay) SetReadDeadline(time.Time) error  { return nil }
func (p *pipeRelay) SetWriteDeadline(time.Time) error { return nil }
func (p *pipeRelay) Done() <-chan struct{}            { return p.done }
func (p *pipeRelay) Err() error                       { return nil }

// TestConnRelay: the paths of SetPath, the Relayed mark, and the relay's
// end with Close.
func TestConnRelay(t *testing.T) {
	goroutineLeakCheck(t)
	srv, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := Dial(srv.LocalAddr().(*net.UDPAddr).AddrPort())
	if err != nil {
		t.Fatal(err)
	}
	to := srv.LocalAddr().(*net.UDPAddr).AddrPort()
	udpGot := func() string {
		srv.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		b := make([]byte, 100)
		n, _, err := srv.ReadFrom(b)
		if err != nil {
			return ""
		}
		return string(b[:n])
	}
	relayGot := func(r *pipeRelay) string {
		select {
		case d := <-r.sent:
			return string(d)
		case <-time.After(200 * time.Millisecond):
			return ""
		}
	}

	c.SetPath(PathRelay)
	c.WriteTo([]byte("nowhere"), to)
	if got := udpGot(); got != "" {
		t.Errorf("PathRelay without a relay sent %q over UDP, want nothing", got)
	}
	r := newPipeRelay()
	c.SetRelay(r)
	c.WriteTo([]byte("relayed"), to)
	if got, u := relayGot(r), udpGot(); got != "relayed" || u != "" {
		t.Errorf("PathRelay: relay got %q, UDP %q; want the datagram on the relay only", got, u)
	}
	c.SetPath(PathBoth)
	c.WriteTo([]byte("both"), to)
	if got, u := relayGot(r), udpGot(); got != "both" || u != "both" {
		t.Errorf("PathBoth: relay got %q, UDP %q; want both", got, u)
	}
	c.SetPath(PathUDP)
	c.WriteTo([]byte("udp"), to)
	if got, u := relayGot(r), udpGot(); got != "" || u != "udp" {
		t.Errorf("PathUDP: relay got %q, UDP %q; want UDP only", got, u)
	}
	r.recv <- []byte("from the relay")
	if d := recv(t, c); !d.Relayed || string(d.Data) != "from the relay" || d.From != relayServer {
		t.Errorf("datagram from the relay: %+v", d)
	}
	r2 := newPipeRelay()
	c.SetRelay(r2)
	if !r.closed {
		t.Error("SetRelay did not close the relay it replaced")
	}
	c.Close()
	if !r2.closed {
		t.Error("Close did not close the relay")
	}
}

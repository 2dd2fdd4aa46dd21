package linkem

import (
	"errors"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"
)

// echoServer is a UDP echo server on 127.0.0.1 that remembers the source
// of every datagram.
type echoServer struct {
	conn *net.UDPConn
	wg   sync.WaitGroup

	mu      sync.Mutex
	sources []netip.AddrPort
}

func newEchoServer(t *testing.T) *echoServer {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	s := &echoServer{conn: c}
	s.wg.Add(1)
	go s.run()
	t.Cleanup(func() {
		c.Close()
		s.wg.Wait()
	})
	return s
}

func (s *echoServer) run() {
	defer s.wg.Done()
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := s.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		s.mu.Lock()
		s.sources = append(s.sources, from)
		s.mu.Unlock()
		s.conn.WriteToUDPAddrPort(buf[:n], from)
	}
}

func (s *echoServer) addr() netip.AddrPort { return s.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

func (s *echoServer) lastSource() netip.AddrPort {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sources[len(s.sources)-1]
}

// client is a UDP socket talking to a relay.
type client struct {
	t    *testing.T
	conn *net.UDPConn
	to   netip.AddrPort
}

func newClient(t *testing.T, to netip.AddrPort) *client {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{t: t, conn: c, to: to}
}

// echo sends msg and returns the round-trip time of its echo.
func (c *client) echo(msg string) time.Duration {
	c.t.Helper()
	start := time.Now()
	if _, err := c.conn.WriteToUDPAddrPort([]byte(msg), c.to); err != nil {
		c.t.Fatal(err)
	}
	buf := make([]byte, 2048)
	c.conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	for {
		n, _, err := c.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			c.t.Fatalf("no echo of %q: %v", msg, err)
		}
		if string(buf[:n]) == msg {
			return time.Since(start)
		}
	}
}

func TestUDPRelay(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        Profile
		min, max time.Duration // RTT bounds
	}{
		{"lan", mustProfile(t, "lan"), time.Millisecond, 15 * time.Millisecond},
		{"20ms", Custom(20*time.Millisecond, 0, 0, 0, 0), 40 * time.Millisecond, 60 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goroutineLeakCheck(t)
			srv := newEchoServer(t)
			r, err := NewUDPRelay(srv.addr(), tc.p, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if a := r.Addr(); !a.Addr().IsLoopback() || a.Port() == 0 {
				t.Errorf("Addr() = %v, want 127.0.0.1:ephemeral", a)
			}
			c := newClient(t, r.Addr())
			const n = 10
			var rtts []time.Duration
			for i := range n {
				rtt := c.echo("hello " + string(rune('a'+i)))
				if rtt < tc.min {
					t.Errorf("echo %d: RTT %v, below the link's %v", i, rtt, tc.min)
				}
				rtts = append(rtts, rtt)
			}
			// The median, not the maximum: a loaded machine under -race
			// stalls now and then for tens of milliseconds.
			slices.Sort(rtts)
			if rtts[n/2] > tc.max {
				t.Errorf("median RTT %v, want at most %v (all: %v)", rtts[n/2], tc.max, rtts)
			}
			if got, want := srv.lastSource(), r.BackAddr(); got != want {
				t.Errorf("server saw the client as %v, want the relay's back address %v", got, want)
			}
			s := r.Stats()
			const wire = 7 + UDPHeaders // "hello a" and its IPv4 and UDP headers
			if s.Up.Offered != n || s.Up.OfferedBytes != n*wire || s.Down.Delivered != n || s.Down.DeliveredBytes != n*wire || s.SendErrors != 0 {
				t.Errorf("Stats = %+v, want %d datagrams of %d bytes each way", s, n, wire)
			}
			if s.Bytes() != 2*n*wire {
				t.Errorf("Stats().Bytes() = %d, want %d", s.Bytes(), 2*n*wire)
			}
		})
	}
}

// TestUDPRelayChargesHeaders: a datagram takes its payload and its IP and
// UDP headers of the bottleneck's rate, as a TCP segment takes the whole
// IP packet. Ten 100-byte datagrams sent at once through 80 kbit/s leave
// the bottleneck 12.8 ms apart (128 bytes each), not 10 ms: the last one
// waits about 128 ms, not 100.
func TestUDPRelayChargesHeaders(t *testing.T) {
	goroutineLeakCheck(t)
	srv := newEchoServer(t)
	link := Custom(time.Millisecond, 0, 0, 80_000, 0)
	r, err := NewUDPRelay(srv.addr(), link, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := newClient(t, r.Addr())
	const n, payload = 10, 100
	for range n {
		if _, err := c.conn.WriteToUDPAddrPort(make([]byte, payload), r.Addr()); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for r.Stats().Up.Offered < n {
		if time.Now().After(deadline) {
			t.Fatalf("the relay took %d of %d datagrams within 5 s", r.Stats().Up.Offered, n)
		}
		time.Sleep(time.Millisecond) // polling the relay's reader, bounded
	}
	s := r.Stats().Up
	if want := uint64(n * (payload + UDPHeaders)); s.OfferedBytes != want {
		t.Errorf("OfferedBytes = %d, want %d (payload and headers)", s.OfferedBytes, want)
	}
	// The datagrams reach the relay within a few milliseconds of each
	// other (more under load), which the queueing delay of the last one
	// loses: 128 ms with the headers less that spread, 100 ms without.
	if s.MaxQueueDelay < 115*time.Millisecond || s.MaxQueueDelay > 130*time.Millisecond {
		t.Errorf("longest queueing delay %v, want about 128 ms (%d datagrams of %d+%d bytes at 80 kbit/s)", s.MaxQueueDelay, n, payload, UDPHeaders)
	}
}

// TestUDPRelaySeeds: the relay seeds its directions with DirectionSeeds,
// so that it makes the same loss draws as pipes built with them (a TCP
// connection's, in internal/bench).
func TestUDPRelaySeeds(t *testing.T) {
	goroutineLeakCheck(t)
	srv := newEchoServer(t)
	link := mustProfile(t, "loss50")
	r, err := NewUDPRelay(srv.addr(), link, 42)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	up, down := DirectionSeeds(42)
	if up == down {
		t.Errorf("DirectionSeeds(42) = %d, %d: both directions draw the same", up, down)
	}
	start := time.Now()
	for _, d := range []struct {
		name string
		p    *Pipe
		seed uint64
		cfg  Config
	}{{"up", r.up, up, link.Up}, {"down", r.down, down, link.Down}} {
		m := NewModel(d.cfg, d.seed, start)
		for i := range 200 {
			_, want := m.Offer(start, 10)
			d.p.mu.Lock()
			_, got := d.p.model.Offer(start, 10)
			d.p.mu.Unlock()
			if got != want {
				t.Fatalf("%s: packet %d delivered %v by the relay, %v by a model seeded with DirectionSeeds", d.name, i, got, want)
			}
		}
	}
}

func mustProfile(t *testing.T, name string) Profile {
	t.Helper()
	p, err := LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUDPRelayRebind(t *testing.T) {
	goroutineLeakCheck(t)
	srv := newEchoServer(t)
	r, err := NewUDPRelay(srv.addr(), mustProfile(t, "lan"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := newClient(t, r.Addr())
	c.echo("before")
	first := srv.lastSource()
	if err := r.Rebind(); err != nil {
		t.Fatal(err)
	}
	c.echo("after")
	second := srv.lastSource()
	if second.Port() == first.Port() || second != r.BackAddr() {
		t.Errorf("server saw %v then %v after Rebind (back address now %v): want a new port", first, second, r.BackAddr())
	}
}

func TestUDPRelayOutage(t *testing.T) {
	goroutineLeakCheck(t)
	srv := newEchoServer(t)
	r, err := NewUDPRelay(srv.addr(), mustProfile(t, "lan"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := newClient(t, r.Addr())
	r.SetOutage(true)
	c.conn.WriteToUDPAddrPort([]byte("lost"), r.Addr())
	deadline := time.Now().Add(3 * time.Second)
	for r.Stats().Up.DroppedOutage == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the datagram sent during the outage was not dropped within 3 s")
		}
		time.Sleep(time.Millisecond) // polling the relay's reader, bounded
	}
	r.SetOutage(false)
	c.echo("back")
	if err := r.SetProfile(Custom(0, 0, 5, 0, 0)); err == nil {
		t.Error("SetProfile accepted a loss of 5")
	}
	if err := r.SetProfile(mustProfile(t, "evdo")); err != nil {
		t.Fatal(err)
	}
	if rtt := c.echo("slow"); rtt < 490*time.Millisecond {
		t.Errorf("RTT %v after SetProfile(evdo), want ≥ 490 ms", rtt)
	}
}

func TestUDPRelayCloseAndErrors(t *testing.T) {
	goroutineLeakCheck(t)
	if _, err := NewUDPRelay(netip.MustParseAddrPort("192.0.2.1:60001"), mustProfile(t, "lan"), 1); err == nil {
		t.Error("NewUDPRelay accepted a non-loopback server")
	}
	if _, err := NewUDPRelay(netip.MustParseAddrPort("127.0.0.1:9"), Custom(-1, 0, 0, 0, 0), 1); err == nil {
		t.Error("NewUDPRelay accepted an invalid profile")
	}
	srv := newEchoServer(t)
	r, err := NewUDPRelay(srv.addr(), mustProfile(t, "evdo"), 1)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, r.Addr())
	c.conn.WriteToUDPAddrPort([]byte("in flight"), r.Addr())
	if err := r.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	r.Close() // idempotent
	if err := r.Rebind(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Rebind after Close = %v, want net.ErrClosed", err)
	}
}

package session_test

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
)

// memRelay is the relay in memory: the client's end of the stream and the
// remote "gosh server relay" in one, a socket on the server's host that
// forwards to the server's UDP port.
type memRelay struct {
	pc     *ssptest.PacketConn
	done   chan struct{}
	once   sync.Once
	writes atomic.Int64
}

func (m *memRelay) ReadFrom(b []byte) (int, net.Addr, error) {
	n, _, err := m.pc.ReadFrom(b)
	if err != nil {
		return 0, nil, net.ErrClosed
	}
	return n, net.UDPAddrFromAddrPort(serverAddr), nil
}

func (m *memRelay) WriteTo(b []byte, _ net.Addr) (int, error) {
	m.writes.Add(1)
	return m.pc.WriteTo(b, net.UDPAddrFromAddrPort(serverAddr))
}

func (m *memRelay) Close() error {
	m.once.Do(func() { close(m.done) })
	return m.pc.Close()
}

func (m *memRelay) LocalAddr() net.Addr              { return m.pc.LocalAddr() }
func (m *memRelay) SetDeadline(time.Time) error      { return nil }
func (m *memRelay) SetReadDeadline(time.Time) error  { return nil }
func (m *memRelay) SetWriteDeadline(time.Time) error { return nil }
func (m *memRelay) Done() <-chan struct{}            { return m.done }
func (m *memRelay) Err() error                       { return nil }

// relays dials memRelays and remembers them.
type relays struct {
	r   *rig
	mu  sync.Mutex
	all []*memRelay
}

func (rs *relays) dial(context.Context, session.Asker) (session.Relay, error) {
	pc, err := rs.r.net.Listen(netip.AddrPortFrom(serverAddr.Addr(), 0))
	if err != nil {
		return nil, err
	}
	m := &memRelay{pc: pc, done: make(chan struct{})}
	rs.mu.Lock()
	rs.all = append(rs.all, m)
	rs.mu.Unlock()
	return m, nil
}

func (rs *relays) count() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.all)
}

func (rs *relays) last() *memRelay {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.all[len(rs.all)-1]
}

// relayDelay makes the relay's datagrams take 2 ms longer than UDP's, as
// the SSH connection and the relay process do: a datagram sent both ways
// arrives over UDP first.
func relayDelay(r *rig) {
	udp := r.net.Delay
	r.net.Delay = func(from, to netip.AddrPort, b []byte) time.Duration {
		d := udp(from, to, b)
		if from.Addr() == serverAddr.Addr() && from != serverAddr {
			d += 2 * time.Millisecond
		}
		return d
	}
}

// blockUDP loses every datagram to or from the client's address: UDP is
// blocked, the relay (on the server's host) is not.
func blockUDP(from, to netip.AddrPort) bool {
	return from.Addr() == clientIP || to.Addr() == clientIP
}

// TestFallbackRelay: with UDP blocked from the start the session comes up
// over the relay, survives the relay's stream breaking (it is dialled
// again), and moves back to UDP once UDP works.
func TestFallbackRelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		rs := &relays{r: r}
		relayDelay(r)
		r.setDrop(blockUDP)
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{DialRelay: rs.dial})
		start := time.Now()
		r.waitScreen(ready, 10*time.Second)
		if d := time.Since(start); d < 3*time.Second {
			t.Errorf("the prompt came after %v with UDP blocked: before the fallback", d)
		}
		if n := rs.count(); n != 1 {
			t.Fatalf("%d relays dialled, want 1", n)
		}
		r.term.Type("ab")
		r.waitScreen(prompt+"ab", 5*time.Second)

		rs.last().Close() // the SSH connection breaks
		time.Sleep(100 * time.Millisecond)
		r.term.Type("c")
		r.waitScreen(prompt+"abc", 10*time.Second)
		if n := rs.count(); n != 2 {
			t.Fatalf("%d relays dialled after the first broke, want 2", n)
		}

		r.restore() // UDP works again
		time.Sleep(10 * time.Second)
		relay := rs.last()
		before := relay.writes.Load()
		from := time.Now()
		r.term.Type("d")
		r.waitScreen(prompt+"abcd", 5*time.Second)
		time.Sleep(5 * time.Second)
		if n := relay.writes.Load() - before; n != 0 {
			t.Errorf("%d datagrams went over the relay after UDP came back, want none", n)
		}
		if n := r.clientSends(from, time.Now()); n == 0 {
			t.Error("no datagram went over UDP after it came back")
		}
	})
}

// TestFallbackModes: --transport=udp never dials the relay; =tcp sends
// nothing over UDP even when it works.
func TestFallbackModesRig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		rs := &relays{r: r}
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{DialRelay: rs.dial, Transport: session.TransportTCP})
		r.waitScreen(ready, 5*time.Second)
		r.term.Type("x")
		r.waitScreen(prompt+"x", 5*time.Second)
		if n := r.clientSends(time.Time{}, time.Now().Add(time.Hour)); n != 0 {
			t.Errorf("--transport=tcp sent %d datagrams over UDP, want none", n)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		rs := &relays{r: r}
		r.setDrop(blockUDP)
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{DialRelay: rs.dial, Transport: session.TransportUDP})
		time.Sleep(10 * time.Second)
		if n := rs.count(); n != 0 {
			t.Errorf("--transport=udp dialled the relay %d times", n)
		}
	})
}

// TestFallbackRelayAsks: a relay's dial that needs a password asks on the
// notification bar; what the user types up to Enter is the answer, and
// reaches neither the server nor the screen; Ctrl-C gives up (the dial
// fails and is tried again later).
func TestFallbackRelayAsks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		rs := &relays{r: r}
		relayDelay(r)
		r.setDrop(blockUDP)
		var mu sync.Mutex
		var answers []string
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{DialRelay: func(ctx context.Context, ask session.Asker) (session.Relay, error) {
			pw, err := ask.Ask(ctx, "root@server's password:", false)
			mu.Lock()
			answers = append(answers, pw)
			mu.Unlock()
			if err != nil {
				return nil, err
			}
			return rs.dial(ctx, ask)
		}})
		r.waitScreen("root@server's password:", 10*time.Second)
		r.term.Type("\x03") // Ctrl-C: not now
		r.waitFor("the question gone", 5*time.Second, func() bool { return !r.term.Contains("password:") })
		r.waitScreen("root@server's password:", 10*time.Second) // asked again
		r.term.Type("sec")
		r.term.Type("ret\r")
		r.waitScreen(ready, 10*time.Second)
		r.term.Type("ok")
		r.waitScreen(prompt+"ok", 5*time.Second)
		if r.term.Contains("secret") || r.term.Contains("sec") {
			t.Errorf("the password shows on the screen:\n%q", r.term.Screen())
		}
		mu.Lock()
		defer mu.Unlock()
		if len(answers) != 2 || answers[0] != "" || answers[1] != "secret" {
			t.Errorf("answers %q, want a refusal then \"secret\"", answers)
		}
	})
}

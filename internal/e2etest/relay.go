package e2etest

import (
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Relay is a UDP relay on 127.0.0.1 between one client and one server. The
// client sends to Addr; the relay forwards from its own "back" socket to the
// server and returns replies to the client's latest address. A test can
// delay each direction, drop everything, or move the back socket to a new
// port (which, seen from the server, is the client roaming).
type Relay struct {
	t      testing.TB
	server netip.AddrPort
	front  *net.UDPConn

	up, down chan packet // to the delayers

	mu     sync.Mutex // guards following
	back   *net.UDPConn
	client netip.AddrPort
	upHook func([]byte)
	delayU time.Duration
	delayD time.Duration
	lossU  float64
	lossD  float64

	drop   atomic.Bool
	closed atomic.Bool
	rwg    sync.WaitGroup // socket readers
	dwg    sync.WaitGroup // delayers

	// Counters, for the test's report: datagrams, and the UDP payload
	// bytes forwarded each way.
	Forwarded, Dropped atomic.Int64
	BytesUp, BytesDown atomic.Int64
}

type packet struct {
	data []byte
	at   time.Time // when to send
}

// NewRelay starts a relay to server and closes it when the test ends.
func NewRelay(t testing.TB, server netip.AddrPort) *Relay {
	t.Helper()
	front, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{t: t, server: server, front: front,
		up: make(chan packet, 8192), down: make(chan packet, 8192)}
	if err := r.Rebind(); err != nil {
		front.Close()
		t.Fatal(err)
	}
	r.rwg.Add(1)
	go r.readFront()
	r.dwg.Add(2)
	go r.deliver(r.up, r.sendUp)
	go r.deliver(r.down, r.sendDown)
	t.Cleanup(r.Close)
	return r
}

// Addr is where the client should send.
func (r *Relay) Addr() netip.AddrPort {
	return r.front.LocalAddr().(*net.UDPAddr).AddrPort()
}

// SetDelay delays each direction by a fixed amount (order is kept).
func (r *Relay) SetDelay(up, down time.Duration) {
	r.mu.Lock()
	r.delayU, r.delayD = up, down
	r.mu.Unlock()
}

// SetLoss drops each datagram independently with these probabilities.
func (r *Relay) SetLoss(up, down float64) {
	r.mu.Lock()
	r.lossU, r.lossD = up, down
	r.mu.Unlock()
}

// SetUpHook makes the relay show every datagram from the client to f
// (which must not keep it) as it arrives, before delay or loss.
func (r *Relay) SetUpHook(f func([]byte)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.upHook = f
}

// SetDrop drops every datagram in both directions while on.
func (r *Relay) SetDrop(on bool) { r.drop.Store(on) }

// Rebind moves the relay's server-facing socket to a new local port; the
// old socket is closed.
func (r *Relay) Rebind() error {
	back, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		return err
	}
	r.mu.Lock()
	old := r.back
	r.back = back
	r.mu.Unlock()
	if old != nil {
		old.Close()
	}
	r.rwg.Add(1)
	go r.readBack(back)
	return nil
}

// BackPort is the relay's current source port towards the server.
func (r *Relay) BackPort() uint16 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.back.LocalAddr().(*net.UDPAddr).AddrPort().Port()
}

// Close stops the relay and waits for its goroutines.
func (r *Relay) Close() {
	if r.closed.Swap(true) {
		return
	}
	r.front.Close()
	r.mu.Lock()
	r.back.Close()
	r.mu.Unlock()
	r.rwg.Wait() // no more enqueues after this
	close(r.up)
	close(r.down)
	r.dwg.Wait()
}

func (r *Relay) readFront() {
	defer r.rwg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := r.front.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.client = from
		delay, loss, hook := r.delayU, r.lossU, r.upHook
		r.mu.Unlock()
		if hook != nil {
			hook(buf[:n])
		}
		r.enqueue(r.up, buf[:n], delay, loss)
	}
}

func (r *Relay) readBack(c *net.UDPConn) {
	defer r.rwg.Done()
	buf := make([]byte, 65536)
	for {
		n, _, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		r.mu.Lock()
		delay, loss := r.delayD, r.lossD
		r.mu.Unlock()
		r.enqueue(r.down, buf[:n], delay, loss)
	}
}

func (r *Relay) enqueue(ch chan packet, b []byte, delay time.Duration, loss float64) {
	if r.drop.Load() || (loss > 0 && rand.Float64() < loss) {
		r.Dropped.Add(1)
		return
	}
	p := packet{data: append([]byte(nil), b...), at: time.Now().Add(delay)}
	select {
	case ch <- p:
	default:
		r.Dropped.Add(1)
	}
}

func (r *Relay) deliver(ch chan packet, send func([]byte)) {
	defer r.dwg.Done()
	for p := range ch {
		if d := time.Until(p.at); d > 0 {
			time.Sleep(d)
		}
		if r.drop.Load() {
			r.Dropped.Add(1)
			continue
		}
		send(p.data)
	}
}

func (r *Relay) sendUp(b []byte) {
	r.mu.Lock()
	back := r.back
	r.mu.Unlock()
	if _, err := back.WriteToUDPAddrPort(b, r.server); err == nil {
		r.Forwarded.Add(1)
		r.BytesUp.Add(int64(len(b)))
	} else if !errors.Is(err, net.ErrClosed) {
		r.Dropped.Add(1)
	}
}

func (r *Relay) sendDown(b []byte) {
	r.mu.Lock()
	client := r.client
	r.mu.Unlock()
	if !client.IsValid() {
		return
	}
	if _, err := r.front.WriteToUDPAddrPort(b, client); err == nil {
		r.Forwarded.Add(1)
		r.BytesDown.Add(int64(len(b)))
	}
}

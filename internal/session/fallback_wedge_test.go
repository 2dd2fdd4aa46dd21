package session_test

import (
	"context"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/relay"
	"github.com/gosh-term/gosh/internal/session"
)

// wedgeStream is the client's end of a relay's stream (an SSH channel)
// that can wedge, as one over a network that went away does: once wedged,
// a Write blocks until Close, and nothing more arrives.
type wedgeStream struct {
	net.Conn
	wedged    *atomic.Bool
	closed    chan struct{}
	closeOnce sync.Once
}

func (w *wedgeStream) Write(p []byte) (int, error) {
	if w.wedged.Load() {
		// Until closed; an hour bounds the test of a client that never
		// closes it.
		select {
		case <-w.closed:
		case <-time.After(time.Hour):
		}
		return 0, net.ErrClosed
	}
	return w.Conn.Write(p)
}

func (w *wedgeStream) Close() error {
	w.closeOnce.Do(func() { close(w.closed) })
	return w.Conn.Close()
}

// streamRelays dials relays that are internal/relay's client end, a
// relay.Conn, over an in-memory stream whose far end does what gosh
// server relay does: the version frames, then frames to and from a
// socket on the server's host.
type streamRelays struct {
	r      *rig
	wedged atomic.Bool // the streams, the ones dialled later too, are wedged
	dials  atomic.Int64
}

func (s *streamRelays) dial(context.Context, session.Asker) (session.Relay, error) {
	s.dials.Add(1)
	pc, err := s.r.net.Listen(netip.AddrPortFrom(serverAddr.Addr(), 0))
	if err != nil {
		return nil, err
	}
	near, far := net.Pipe()
	go func() { // up: the client's frames to the server's port
		defer pc.Close()
		defer far.Close()
		fr := relay.NewReader(far)
		if fr.ReadHello("the client") != nil {
			return
		}
		for {
			d, err := fr.Next()
			if err != nil {
				return
			}
			pc.WriteTo(d, net.UDPAddrFromAddrPort(serverAddr))
		}
	}()
	go func() { // down: the server's datagrams to the client, unless wedged
		if _, err := far.Write(relay.AppendHello(nil)); err != nil {
			return
		}
		buf := make([]byte, relay.MaxDatagram)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if s.wedged.Load() {
				continue
			}
			if relay.WriteFrame(far, buf[:n]) != nil {
				return
			}
		}
	}()
	stream := &wedgeStream{Conn: near, wedged: &s.wedged, closed: make(chan struct{})}
	return relay.NewConn(stream, serverAddr), nil
}

// TestFallbackRelayWedged: the session runs over the relay (UDP blocked)
// when its SSH connection wedges: writing to the relay blocks forever.
// The client loop writes its datagrams to the relay, and must not block
// with it: the screen is still painted (the notification bar counts the
// seconds since the last contact), the relay is closed and dialled again,
// and the escape key still quits (within the second the shutdown waits
// for a server that does not answer).
func TestFallbackRelayWedged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		rs := &streamRelays{r: r}
		relayDelay(r)
		r.setDrop(blockUDP)
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{DialRelay: rs.dial})
		r.waitScreen(ready, 10*time.Second)
		r.term.Type("ab")
		r.waitScreen(prompt+"ab", 5*time.Second)

		rs.wedged.Store(true)
		for i := range 50 { // keys go out at once: more than the relay queues
			r.term.Type(string(rune('c' + i%20)))
			time.Sleep(20 * time.Millisecond)
		}
		// The bar counts the seconds: the screen is still painted. (A
		// loop stuck in a write paints nothing more.)
		seen := map[string]bool{}
		for range 20 {
			time.Sleep(time.Second)
			if top := r.term.Screen()[0]; strings.HasPrefix(top, "gosh: ") {
				seen[top] = true
			}
		}
		if len(seen) < 10 {
			t.Errorf("in 20 s with the relay wedged, the bar showed %d texts, want about one a second: %q", len(seen), slices.Sorted(maps.Keys(seen)))
		}
		if n := rs.dials.Load(); n < 2 {
			t.Errorf("%d relays dialled; the wedged one was not closed and dialled again", n)
		}
		start := time.Now()
		r.term.Type("\x1e.")
		r.clientEnd(time.Second) // the shutdown gives up on the server within a second

		t.Logf("quit %v after the escape key, with the relay wedged", time.Since(start))
	})
}

package relay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var testServer = netip.MustParseAddrPort("192.0.2.7:60001")

// peerEnd is the server's end of a connPair: the stream, and a Reader of
// the client's frames that has read its version frame.
type peerEnd struct {
	net.Conn
	in *Reader
}

// connPair returns a Conn over one end of a net.Pipe and the other end,
// the server's, with deadlines testTimeout from now, once both version
// frames went through. Both are closed when the test ends.
func connPair(t *testing.T) (*Conn, *peerEnd) {
	t.Helper()
	a, b := net.Pipe()
	if err := b.SetDeadline(time.Now().Add(testTimeout)); err != nil {
		t.Fatal(err)
	}
	c := NewConn(a, testServer)
	t.Cleanup(func() {
		c.Close()
		b.Close()
	})
	p := &peerEnd{Conn: b, in: NewReader(b)}
	if _, err := b.Write(AppendHello(nil)); err != nil {
		t.Fatalf("writing the server's version frame: %v", err)
	}
	if err := p.in.ReadHello("the client"); err != nil {
		t.Fatalf("the client's version frame: %v", err)
	}
	return c, p
}

// readFrom runs c.ReadFrom in a goroutine and returns its results.
type readResult struct {
	n    int
	addr net.Addr
	err  error
}

func goReadFrom(c *Conn, p []byte) <-chan readResult {
	ch := make(chan readResult, 1)
	go func() {
		n, addr, err := c.ReadFrom(p)
		ch <- readResult{n, addr, err}
	}()
	return ch
}

func TestConnRoundTrip(t *testing.T) {
	goroutineLeakCheck(t)
	c, peer := connPair(t)

	// Server to client, with an empty frame (a keepalive) in between.
	go peer.Write(frames(t, []byte("from the server"), nil, []byte("two")))
	buf := make([]byte, 100)
	for _, want := range []string{"from the server", "two"} {
		r := wait(t, goReadFrom(c, buf), "ReadFrom")
		if r.err != nil || string(buf[:r.n]) != want {
			t.Fatalf("ReadFrom = %q, %v; want %q", buf[:r.n], r.err, want)
		}
		if ua, ok := r.addr.(*net.UDPAddr); !ok || ua.AddrPort() != testServer {
			t.Errorf("ReadFrom's address = %v (%T), want *net.UDPAddr %v", r.addr, r.addr, testServer)
		}
	}

	// Client to server: the address given is ignored.
	written := make(chan error, 1)
	go func() {
		_, err := c.WriteTo([]byte("from the client"), &net.UDPAddr{IP: net.IPv4(10, 1, 1, 1), Port: 9})
		written <- err
	}()
	got, err := peer.in.Next()
	if err != nil || string(got) != "from the client" {
		t.Errorf("the server read %q, %v; want %q", got, err, "from the client")
	}
	if err := wait(t, written, "WriteTo"); err != nil {
		t.Errorf("WriteTo = %v", err)
	}
}

// TestConnTruncates: a datagram longer than ReadFrom's buffer is cut to
// it, as on UDP, and the next datagram is whole.
func TestConnTruncates(t *testing.T) {
	goroutineLeakCheck(t)
	c, peer := connPair(t)
	go peer.Write(frames(t, []byte("0123456789"), []byte("ab")))
	buf := make([]byte, 4)
	for _, want := range []string{"0123", "ab"} {
		r := wait(t, goReadFrom(c, buf), "ReadFrom")
		if r.err != nil || string(buf[:r.n]) != want {
			t.Errorf("ReadFrom(%d bytes) = %q, %v; want %q", len(buf), buf[:r.n], r.err, want)
		}
	}
}

// TestConnClose: Close ends a pending ReadFrom with net.ErrClosed, and
// every later call too; Err stays nil.
func TestConnClose(t *testing.T) {
	goroutineLeakCheck(t)
	c, _ := connPair(t)
	pending := goReadFrom(c, make([]byte, 10))
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if r := wait(t, pending, "pending ReadFrom"); !errors.Is(r.err, net.ErrClosed) {
		t.Errorf("pending ReadFrom after Close = %v, want net.ErrClosed", r.err)
	}
	wait(t, c.Done(), "Done")
	if _, _, err := c.ReadFrom(make([]byte, 10)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("ReadFrom after Close = %v, want net.ErrClosed", err)
	}
	if _, err := c.WriteTo([]byte("x"), nil); !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteTo after Close = %v, want net.ErrClosed", err)
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err after Close = %v, want nil", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

// TestConnPeerEnd: the stream's end closes Done, with Err saying how it
// ended, and ReadFrom returns net.ErrClosed.
func TestConnPeerEnd(t *testing.T) {
	tests := []struct {
		name    string
		send    []byte
		wantErr error
	}{
		{"clean", nil, io.EOF},
		{"inside a frame", []byte{0, 9, 'a'}, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			goroutineLeakCheck(t)
			c, peer := connPair(t)
			pending := goReadFrom(c, make([]byte, 10))
			if len(tc.send) > 0 {
				if _, err := peer.Write(tc.send); err != nil {
					t.Fatal(err)
				}
			}
			peer.Close()
			wait(t, c.Done(), "Done")
			if err := c.Err(); !errors.Is(err, tc.wantErr) {
				t.Errorf("Err = %v, want %v", err, tc.wantErr)
			}
			if r := wait(t, pending, "pending ReadFrom"); !errors.Is(r.err, net.ErrClosed) {
				t.Errorf("ReadFrom after the end = %v, want net.ErrClosed", r.err)
			}
		})
	}
}

// brokenWriter is a stream that reads from a pipe but cannot be written.
type brokenWriter struct{ *io.PipeReader }

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("channel broken") }

// TestConnWriteError: a failed write ends the stream.
func TestConnWriteError(t *testing.T) {
	goroutineLeakCheck(t)
	r, w := io.Pipe()
	defer w.Close()
	c := NewConn(brokenWriter{r}, testServer)
	defer c.Close()
	c.WriteTo([]byte("x"), nil)
	wait(t, c.Done(), "Done")
	if err := c.Err(); err == nil || !bytes.Contains([]byte(err.Error()), []byte("channel broken")) {
		t.Errorf("Err = %v, want the write's error", err)
	}
	if _, err := c.WriteTo([]byte("x"), nil); !errors.Is(err, net.ErrClosed) {
		t.Errorf("WriteTo after the failure = %v, want net.ErrClosed", err)
	}
}

// wedged is a stream that is never read at the far end (an SSH connection
// whose network went away): Write blocks until Close.
type wedged struct {
	closed chan struct{}
	once   sync.Once
	writes atomic.Int64
}

func (w *wedged) Read(p []byte) (int, error) {
	<-w.closed
	return 0, net.ErrClosed
}

func (w *wedged) Write(p []byte) (int, error) {
	w.writes.Add(1)
	<-w.closed
	return 0, net.ErrClosed
}

func (w *wedged) Close() error {
	w.once.Do(func() { close(w.closed) })
	return nil
}

// TestConnWedged: on a stream that takes nothing, WriteTo still returns
// at once, WriteQueue frames wait and the rest are dropped, as UDP drops
// them; Close ends it all.
func TestConnWedged(t *testing.T) {
	goroutineLeakCheck(t)
	w := &wedged{closed: make(chan struct{})}
	c := NewConn(w, testServer)
	const n = 1000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range n {
			if m, err := c.WriteTo(make([]byte, 1200), nil); m != 1200 || err != nil {
				t.Errorf("WriteTo = %d, %v", m, err)
				return
			}
		}
	}()
	wait(t, done, "1000 WriteTo on a wedged stream")
	// The writer is stuck in the version frame, or in the first datagram
	// it took off the queue.
	if d := c.dropped.Load(); d != n-WriteQueue && d != n-WriteQueue-1 {
		t.Errorf("dropped %d datagrams, want %d or %d", d, n-WriteQueue, n-WriteQueue-1)
	}
	if got := w.writes.Load(); got != 1 {
		t.Errorf("%d writes under way, want 1", got)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	wait(t, closed, "Close")
	wait(t, c.Done(), "Done")
}

// TestConnHello: the client end refuses a server end that starts with no
// version frame (a gosh server relay that predates it) or another
// version, with one line saying so, and reports one that closes the
// stream first.
func TestConnHello(t *testing.T) {
	other := AppendHello(nil)
	other[len(other)-1] = 2
	for _, tc := range []struct {
		name  string
		first []byte
		want  string
	}{
		{"no version frame", frames(t, make([]byte, 40)),
			"relay: the server's gosh server relay sent no version frame: it is an older gosh; install this gosh's version (relay version 1) at both ends"},
		{"another version", other,
			"relay: the server's gosh server relay speaks relay version 2, this gosh version 1; install the same gosh version at both ends"},
		{"closed", nil, "relay: stream closed by the server end: EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goroutineLeakCheck(t)
			a, b := net.Pipe()
			c := NewConn(a, testServer)
			defer c.Close()
			go io.Copy(io.Discard, b) // the client's frames
			if tc.first != nil {
				b.Write(tc.first)
			} else {
				b.Close()
			}
			wait(t, c.Done(), "Done")
			if err := c.Err(); err == nil || err.Error() != tc.want {
				t.Errorf("Err = %v, want %q", err, tc.want)
			}
			b.Close()
		})
	}
}

// TestConnTooLarge: an oversize datagram is refused, and the stream goes
// on.
func TestConnTooLarge(t *testing.T) {
	goroutineLeakCheck(t)
	c, peer := connPair(t)
	if _, err := c.WriteTo(make([]byte, MaxDatagram+1), nil); err == nil {
		t.Errorf("WriteTo(%d bytes) succeeded", MaxDatagram+1)
	}
	go c.WriteTo(make([]byte, MaxDatagram), nil)
	if d, err := peer.in.Next(); err != nil || len(d) != MaxDatagram {
		t.Errorf("after a refused datagram, read %d bytes, %v; want %d", len(d), err, MaxDatagram)
	}
	select {
	case <-c.Done():
		t.Errorf("the stream ended: %v", c.Err())
	default:
	}
}

// TestConnConcurrentWrites: frames written at once never interleave; a
// datagram the queue has no room for is dropped whole.
func TestConnConcurrentWrites(t *testing.T) {
	goroutineLeakCheck(t)
	c, peer := connPair(t)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				d := bytes.Repeat([]byte{byte(w)}, 100+w*500+i)
				if _, err := c.WriteTo(d, nil); err != nil {
					t.Errorf("WriteTo: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for got := 0; int64(got)+c.dropped.Load() < writers*each; got++ {
		d, err := peer.in.Next()
		if err != nil {
			t.Fatalf("Next after %d datagrams (%d dropped): %v", got, c.dropped.Load(), err)
		}
		w := int(d[0])
		if want := bytes.Repeat(d[:1], len(d)); !bytes.Equal(d, want) || len(d) < 100+w*500 || len(d) >= 100+w*500+each {
			t.Fatalf("a %d-byte datagram of writer %d is mixed up", len(d), w)
		}
	}
}

func TestConnAddrsAndDeadlines(t *testing.T) {
	goroutineLeakCheck(t)
	c, _ := connPair(t)
	if got := fmt.Sprint(c.LocalAddr()); got != "0.0.0.0:0" {
		t.Errorf("LocalAddr = %s, want 0.0.0.0:0", got)
	}
	for name, set := range map[string]func(time.Time) error{
		"SetDeadline": c.SetDeadline, "SetReadDeadline": c.SetReadDeadline, "SetWriteDeadline": c.SetWriteDeadline,
	} {
		if err := set(time.Now()); err == nil {
			t.Errorf("%s = nil, want an error", name)
		}
	}
}

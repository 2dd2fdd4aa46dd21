package relay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// served is a Serve running in a goroutine, between two OS pipes, as
// "gosh server relay" runs between its stdin and stdout.
type served struct {
	in     *os.File // the test writes frames here (Serve's r is the other end)
	out    *Reader  // the test reads frames here (Serve's w is the other end)
	outR   *os.File
	result chan error
}

// startServe runs s.Serve(ctx, …, target) in a goroutine, and passes the
// version frames both ways.
func startServe(t *testing.T, ctx context.Context, s *Server, target netip.AddrPort) *served {
	t.Helper()
	sv := startServeRaw(t, ctx, s, target)
	if _, err := sv.in.Write(AppendHello(nil)); err != nil {
		t.Fatal(err)
	}
	if err := sv.out.ReadHello("the relay"); err != nil {
		t.Fatalf("the relay's version frame: %v", err)
	}
	return sv
}

// startServeRaw is startServe without the version frames.
func startServeRaw(t *testing.T, ctx context.Context, s *Server, target netip.AddrPort) *served {
	t.Helper()
	r, in := pipe(t)
	outR, w := pipe(t)
	sv := &served{in: in, out: NewReader(outR), outR: outR, result: make(chan error, 1)}
	go func() { sv.result <- s.Serve(ctx, r, w, target) }()
	return sv
}

// TestServeHello: Serve writes its version frame first, and refuses a
// client whose stream starts with no version frame (a client that
// predates it) or another version, with one line saying so; a client
// that closes the stream at once ends it cleanly.
func TestServeHello(t *testing.T) {
	other := AppendHello(nil)
	other[len(other)-1] = 9
	for _, tc := range []struct {
		name  string
		first []byte
		want  string
	}{
		{"no version frame", frames(t, make([]byte, 40)),
			"relay: the client sent no version frame: it is an older gosh; install this gosh's version (relay version 1) at both ends"},
		{"another version", other,
			"relay: the client speaks relay version 9, this gosh version 1; install the same gosh version at both ends"},
		{"closed", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goroutineLeakCheck(t)
			echo := startEcho(t, 0)
			sv := startServeRaw(t, context.Background(), &Server{}, echo.addr())
			if err := sv.out.ReadHello("the relay"); err != nil {
				t.Errorf("the relay's first frame: %v", err)
			}
			if tc.first != nil {
				sv.in.Write(tc.first)
			}
			sv.in.Close()
			err := wait(t, sv.result, "Serve")
			if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || err.Error() != tc.want)) {
				t.Errorf("Serve = %v, want %q", err, tc.want)
			}
		})
	}
}

// roundTrip writes d as a frame and reads the next frame back.
func (sv *served) roundTrip(t *testing.T, d []byte) []byte {
	t.Helper()
	if err := WriteFrame(sv.in, d); err != nil {
		t.Fatalf("writing a frame: %v", err)
	}
	got, err := sv.out.Next()
	if err != nil {
		t.Fatalf("reading the echoed frame: %v", err)
	}
	return got
}

// TestServeEcho relays frames to a UDP echo server and back, and ends
// with a clean end of its input.
func TestServeEcho(t *testing.T) {
	goroutineLeakCheck(t)
	echo := startEcho(t, 0)
	sv := startServe(t, context.Background(), &Server{Logf: t.Logf}, echo.addr())
	for _, size := range []int{1, 20, 1400, 9000, 60000} {
		d := bytes.Repeat([]byte{byte(size)}, size)
		if got := sv.roundTrip(t, d); !bytes.Equal(got, d) {
			t.Errorf("%d-byte datagram came back as %d bytes", size, len(got))
		}
	}
	// Empty frames are not datagrams: the echo of "b" comes right after "a"'s.
	if _, err := sv.in.Write(frames(t, []byte("a"), nil, nil, []byte("b"))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a", "b"} {
		got, err := sv.out.Next()
		if err != nil || string(got) != want {
			t.Fatalf("Next = %q, %v; want %q", got, err, want)
		}
	}
	sv.in.Close()
	if err := wait(t, sv.result, "Serve after the end of its input"); err != nil {
		t.Errorf("Serve after the end of its input = %v, want nil", err)
	}
}

// TestServeTruncated: an input that ends inside a frame is an error.
func TestServeTruncated(t *testing.T) {
	goroutineLeakCheck(t)
	echo := startEcho(t, 0)
	sv := startServe(t, context.Background(), &Server{}, echo.addr())
	if _, err := sv.in.Write([]byte{0, 9, 'a'}); err != nil {
		t.Fatal(err)
	}
	sv.in.Close()
	if err := wait(t, sv.result, "Serve"); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Serve of a truncated frame = %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestServeCancel: Serve returns nil when ctx is done, interrupting its
// reads of a pipe, and leaves no goroutine behind.
func TestServeCancel(t *testing.T) {
	goroutineLeakCheck(t)
	echo := startEcho(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	sv := startServe(t, ctx, &Server{}, echo.addr())
	if got := sv.roundTrip(t, []byte("x")); string(got) != "x" {
		t.Fatalf("echo = %q", got)
	}
	cancel()
	if err := wait(t, sv.result, "Serve after cancel"); err != nil {
		t.Errorf("Serve after cancel = %v, want nil", err)
	}
}

// TestServeCancelUninterruptible: with an input that has no deadlines,
// Serve still returns when ctx is done; its reader ends with the input.
func TestServeCancelUninterruptible(t *testing.T) {
	goroutineLeakCheck(t)
	echo := startEcho(t, 0)
	r, w := io.Pipe()
	defer w.Close() // ends the reader Serve left blocked
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- Serve(ctx, r, io.Discard, echo.addr()) }()
	cancel()
	if err := wait(t, result, "Serve after cancel"); err != nil {
		t.Errorf("Serve after cancel = %v, want nil", err)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestServeWriteError: failing to write a frame ends Serve with an error.
func TestServeWriteError(t *testing.T) {
	goroutineLeakCheck(t)
	echo := startEcho(t, 0)
	r, in := pipe(t)
	result := make(chan error, 1)
	go func() { result <- Serve(context.Background(), r, failingWriter{}, echo.addr()) }()
	in.Write(AppendHello(nil))
	if err := WriteFrame(in, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, result, "Serve"); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Serve with a failing output = %v, want the write's error", err)
	}
}

// syncLog is a Logf that records its lines, for any goroutine.
type syncLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *syncLog) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestServeRefusedThenUp: datagrams to a port nobody listens on are lost
// (the socket reports ECONNREFUSED), but the relay goes on, and works
// once a server is up.
func TestServeRefusedThenUp(t *testing.T) {
	goroutineLeakCheck(t)
	probe, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	target := probe.LocalAddr().(*net.UDPAddr).AddrPort()
	probe.Close() // nobody listens on target now

	log := &syncLog{}
	allowAny := func(context.Context, netip.AddrPort) error { return nil } // nobody holds the port yet
	sv := startServe(t, context.Background(), &Server{Logf: log.logf, Allow: allowAny}, target)
	resend(t, sv, []byte("lost"), func() bool { return strings.Contains(log.String(), "refused") })
	startEcho(t, target.Port())
	// Until the socket has reported every refusal, a datagram may still
	// be lost: send until one comes back (and skip echoes of "lost").
	echoed := make(chan struct{})
	go func() {
		defer close(echoed)
		for {
			d, err := sv.out.Next()
			if err != nil || string(d) == "hello" {
				return
			}
		}
	}()
	resend(t, sv, []byte("hello"), func() bool {
		select {
		case <-echoed:
			return true
		default:
			return false
		}
	})
	sv.in.Close()
	if err := wait(t, sv.result, "Serve"); err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
	if !strings.Contains(log.String(), "answers again") {
		t.Errorf("log = %q, want it to say the target answers again", log.String())
	}
}

// resend writes d to the relay every few milliseconds until done reports
// true, failing the test after testTimeout.
func resend(t *testing.T, sv *served, d []byte, done func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(testTimeout)
	for !done() {
		if err := WriteFrame(sv.in, d); err != nil {
			t.Fatal(err)
		}
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("resending %q: timed out after %v", d, testTimeout)
		}
	}
}

// TestServeRefusesTarget: Serve forwards to this host only, and checks
// before it opens a socket.
func TestServeRefusesTarget(t *testing.T) {
	goroutineLeakCheck(t)
	for _, target := range []string{"192.0.2.1:60001", "0.0.0.0:60001", "[::]:60001", "127.0.0.1:0"} {
		err := Serve(context.Background(), strings.NewReader(""), io.Discard, netip.MustParseAddrPort(target))
		if err == nil || !strings.HasPrefix(err.Error(), "relay: target") {
			t.Errorf("Serve to %s = %v, want it refused", target, err)
		}
	}
}

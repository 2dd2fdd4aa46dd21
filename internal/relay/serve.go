package relay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
)

// A Server is the server end of a relay, with its settings. The zero
// Server is ready to use: [Serve] runs one.
type Server struct {
	// Logf, if not nil, reports datagrams the relay could not pass on:
	// the first socket failure while the target does not answer, and how
	// many failures there were once it does.
	Logf logf.Func

	// Allow decides whether the relay may forward to target, an address
	// of this host ([CheckTarget] passed), and says why not. nil allows a
	// port only when the datagrams sent to it reach a UDP socket of this
	// process's user and no other user's ([OwnedPort]), which only Linux
	// can tell: elsewhere nil allows no port.
	Allow func(ctx context.Context, target netip.AddrPort) error
}

// allow is s.Allow, or the default.
func (s *Server) allow(ctx context.Context, target netip.AddrPort) error {
	if s.Allow != nil {
		return s.Allow(ctx, target)
	}
	return AllowOwned(target)
}

// AllowOwned allows target when [OwnedPort] says the datagrams sent to it
// reach a UDP socket of this process's user and no other user's.
func AllowOwned(target netip.AddrPort) error {
	owned, err := OwnedPort(target, os.Getuid())
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return fmt.Errorf("relay: this system does not tell whose socket port %d is", target.Port())
	case err != nil:
		return fmt.Errorf("relay: reading this host's UDP sockets: %w", err)
	case !owned:
		return fmt.Errorf("relay: port %d on %v is not a port of yours", target.Port(), target.Addr())
	}
	return nil
}

// Serve runs the server end of a relay with the zero [Server].
func Serve(ctx context.Context, r io.Reader, w io.Writer, target netip.AddrPort) error {
	var s Server
	return s.Serve(ctx, r, w, target)
}

// Serve relays between a stream of frames and target, which must pass
// [CheckTarget] and s.Allow. It writes the version frame to w, and
// checks that r starts with the client's, of the same [Version]; then
// each frame read from r is sent to target as one UDP datagram, from a
// socket of Serve's own, and each datagram that socket receives is
// written to w as one frame. A datagram that the socket fails to send or
// receive (the server not listening for a moment) is lost, as on UDP, and
// the relay goes on.
//
// Serve returns nil when r ends between two frames (the SSH channel
// closed) or ctx is done, and an error when r starts with no version
// frame or another version, ends inside a frame or fails, when writing
// to w fails, or when the socket fails for good.
//
// When Serve returns, its socket is closed and its goroutines have
// stopped. To stop them, it interrupts a Read of r still pending (unless r
// failed or ended) and, once ctx is done, a pending Write to w, by setting
// a deadline in the past where r or w has SetReadDeadline or
// SetWriteDeadline (a net.Conn, a pollable *os.File); the deadline stays
// set. A call it cannot interrupt, it waits for until ctx is done; after
// that, the goroutine blocked in it ends when the call returns, touching
// nothing but the closed socket.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer, target netip.AddrPort) error {
	if err := CheckTarget(target); err != nil {
		return err
	}
	if err := s.allow(ctx, target); err != nil {
		return err
	}
	conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(target))
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	h := &health{logf: s.Logf, target: target}
	upc, downc := make(chan error, 1), make(chan error, 1)
	go func() { upc <- forwardUp(conn, r, h) }()
	go func() { downc <- forwardDown(conn, w, h) }()

	// The first of the two directions to end, or ctx, decides.
	select {
	case err = <-upc:
		upc = nil
	case err = <-downc:
		downc = nil
	case <-ctx.Done():
	}
	conn.Close() // ends forwardDown's socket read, and forwardUp at its next datagram
	readStopped := upc != nil && interruptRead(r)
	join(ctx, upc, func() bool { return readStopped })
	join(ctx, downc, func() bool { return interruptWrite(w) })
	return err
}

// join waits for a goroutine to report on ch (nil: it has), or for ctx to
// be done; in that case it calls interrupt, and waits for the goroutine
// after all if interrupt reports that it made its blocking call return.
func join(ctx context.Context, ch <-chan error, interrupt func() bool) {
	if ch == nil {
		return
	}
	select {
	case <-ch:
		return
	case <-ctx.Done():
	}
	if interrupt() {
		<-ch
	}
}

// past is a deadline that has passed.
var past = time.Unix(1, 0)

// interruptRead makes a Read blocked on r return, through a deadline in the
// past, if r has deadlines; it reports whether it did.
func interruptRead(r io.Reader) bool {
	d, ok := r.(interface{ SetReadDeadline(time.Time) error })
	return ok && d.SetReadDeadline(past) == nil
}

// interruptWrite is interruptRead for a Write blocked on w.
func interruptWrite(w io.Writer) bool {
	d, ok := w.(interface{ SetWriteDeadline(time.Time) error })
	return ok && d.SetWriteDeadline(past) == nil
}

// forwardUp checks the client's version frame, then sends the frames
// read from r to conn until r ends, and returns why it stopped (nil: r
// ended cleanly, or conn was closed).
func forwardUp(conn *net.UDPConn, r io.Reader, h *health) error {
	fr := NewReader(r)
	switch err := fr.ReadHello("the client"); {
	case err == io.EOF:
		return nil
	case err != nil:
		return err
	}
	for {
		d, err := fr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := conn.Write(d); err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			if !transient(err) {
				return fmt.Errorf("relay: %w", err)
			}
			h.failed(err)
		}
	}
}

// forwardDown writes the version frame to w, then the datagrams conn
// receives, framed, until conn is closed, and returns why it stopped
// (nil: conn was closed).
func forwardDown(conn *net.UDPConn, w io.Writer, h *health) error {
	if err := writeHello(w); err != nil {
		return fmt.Errorf("relay: writing stream: %w", err)
	}
	buf := make([]byte, headerLen+MaxDatagram)
	for {
		n, err := conn.Read(buf[headerLen:])
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			if !transient(err) {
				return fmt.Errorf("relay: %w", err)
			}
			h.failed(err)
			continue
		}
		h.answered()
		if n == 0 {
			continue // an empty frame would say nothing
		}
		binary.BigEndian.PutUint16(buf, uint16(n)) // the datagram is already behind it
		if _, err := w.Write(buf[:headerLen+n]); err != nil {
			return fmt.Errorf("relay: writing stream: %w", err)
		}
	}
}

// transient reports whether a socket error loses one datagram and no
// more: an error the kernel reports for the socket (such as ECONNREFUSED
// after an ICMP port unreachable, or ENOBUFS), rather than one of Go's.
func transient(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno)
}

// health reports through logf when sending to or
// receiving from the target starts to fail, and when the target answers
// again. Both directions share it.
type health struct {
	logf   logf.Func
	target netip.AddrPort

	mu       sync.Mutex // guards following
	failures int        // since the target last answered
}

// failed counts a socket failure, which lost a datagram.
func (h *health) failed(err error) {
	h.mu.Lock()
	h.failures++
	first := h.failures == 1
	h.mu.Unlock()
	if first {
		h.logf.Printf("relay: %v: %v (datagrams are lost until it answers)", h.target, err)
	}
}

// answered notes a datagram from the target.
func (h *health) answered() {
	h.mu.Lock()
	n := h.failures
	h.failures = 0
	h.mu.Unlock()
	if n > 0 {
		h.logf.Printf("relay: %v answers again, after %d failures", h.target, n)
	}
}

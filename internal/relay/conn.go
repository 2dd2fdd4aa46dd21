package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"
)

// errClosed is what ReadFrom and WriteTo return once the stream has ended.
var errClosed = fmt.Errorf("relay: %w", net.ErrClosed)

// errDeadline is what the deadline methods of a Conn return.
var errDeadline = errors.New("relay: deadlines not supported")

// A Conn is the client end of a relay: a [net.PacketConn] whose datagrams
// travel as frames on a stream, the standard input and output of "gosh
// server relay" run through SSH. Every datagram it reads seems to come from
// the server's address, given to [NewConn], and every datagram it writes
// goes to the server, whatever address WriteTo is given.
//
// A Conn reads the stream in a goroutine of its own, from NewConn until
// the stream ends. Once the stream has ended (the far end closed it, or
// reading or writing it failed) or the Conn is closed, [Conn.Done] is
// closed and ReadFrom and WriteTo return errors wrapping [net.ErrClosed];
// [Conn.Err] tells which it was.
//
// A Conn is safe for concurrent use.
type Conn struct {
	rwc    io.ReadWriteCloser
	remote netip.AddrPort

	// The reader goroutine lends each datagram to one ReadFrom on
	// frames, and waits for it on returned before it reads the next.
	frames   chan []byte
	returned chan struct{}
	done     chan struct{} // closed when the stream has ended

	wmu  sync.Mutex // hold while writing a frame to rwc; guards wbuf
	wbuf []byte

	mu     sync.Mutex // guards following
	ended  bool       // done is closed
	closed bool       // Close was called
	err    error      // why the stream ended; nil if Close ended it
}

var _ net.PacketConn = (*Conn)(nil)

// NewConn returns a Conn relaying datagrams over rwc to the server at
// remote, and starts its reader. The Conn owns rwc from then on: Close
// closes it.
func NewConn(rwc io.ReadWriteCloser, remote netip.AddrPort) *Conn {
	c := &Conn{
		rwc:      rwc,
		remote:   remote,
		frames:   make(chan []byte),
		returned: make(chan struct{}),
		done:     make(chan struct{}),
	}
	go c.read()
	return c
}

// read is the reader goroutine: it hands the datagrams of the stream to
// ReadFrom until the stream ends or the Conn is closed.
func (c *Conn) read() {
	fr := NewReader(c.rwc)
	for {
		d, err := fr.Next()
		if err == io.EOF {
			err = fmt.Errorf("relay: stream closed by the server end: %w", io.EOF)
		}
		if err != nil {
			c.end(err)
			return
		}
		select {
		case c.frames <- d:
			<-c.returned
		case <-c.done:
			return
		}
	}
}

// end records why the stream ended, unless it has already, and closes
// done. It returns the reason recorded first (nil: Close).
func (c *Conn) end(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		c.ended, c.err = true, err
		close(c.done)
	}
	return c.err
}

// ReadFrom reads the next datagram into p and returns its length and the
// server's address, as a *net.UDPAddr. A datagram longer than p is
// truncated to len(p) bytes, as on a UDP socket. ReadFrom blocks until a
// datagram arrives or the stream ends; then it returns an error wrapping
// [net.ErrClosed].
func (c *Conn) ReadFrom(p []byte) (int, net.Addr, error) {
	select {
	case <-c.done:
		return 0, nil, errClosed
	default:
	}
	select {
	case d := <-c.frames:
		n := copy(p, d)
		c.returned <- struct{}{}
		return n, net.UDPAddrFromAddrPort(c.remote), nil
	case <-c.done:
		return 0, nil, errClosed
	}
}

// WriteTo writes p to the stream as one frame, for the server; addr is
// ignored. A p longer than [MaxDatagram] is refused, as a UDP socket
// refuses a datagram too long for it, and the stream goes on. An error
// writing the stream ends it; after that, or after Close, WriteTo returns
// an error wrapping [net.ErrClosed].
func (c *Conn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if len(p) > MaxDatagram {
		return 0, errTooLarge(len(p))
	}
	select {
	case <-c.done:
		return 0, errClosed
	default:
	}
	c.wmu.Lock()
	c.wbuf, _ = AppendFrame(c.wbuf[:0], p)
	_, err := c.rwc.Write(c.wbuf)
	c.wmu.Unlock()
	if err != nil {
		if c.end(fmt.Errorf("relay: writing stream: %w", err)) == nil {
			return 0, errClosed // Close made the write fail
		}
		return 0, fmt.Errorf("relay: writing stream: %w", err)
	}
	return len(p), nil
}

// Close closes the stream: a ReadFrom waiting for a datagram returns at
// once, and the reader goroutine ends when the pending Read of the stream
// returns, which closing it makes happen for pipes and network
// connections. Close returns the error of closing the stream; a second
// Close does nothing and returns nil.
func (c *Conn) Close() error {
	c.mu.Lock()
	first := !c.closed
	c.closed = true
	c.mu.Unlock()
	if !first {
		return nil
	}
	c.end(nil)
	return c.rwc.Close()
}

// Done returns a channel that is closed when the stream has ended: the far
// end closed it, reading or writing it failed, or Close was called.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the stream ended: nil while it has not, or if Close
// ended it; an error wrapping io.EOF if the far end closed it between two
// frames; otherwise the error reading or writing it.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// LocalAddr returns 0.0.0.0:0, a placeholder: a relayed datagram leaves
// from no local UDP address.
func (c *Conn) LocalAddr() net.Addr {
	return net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.IPv4Unspecified(), 0))
}

// SetDeadline returns an error: a Conn has no deadlines.
func (c *Conn) SetDeadline(t time.Time) error { return errDeadline }

// SetReadDeadline returns an error: a Conn has no deadlines.
func (c *Conn) SetReadDeadline(t time.Time) error { return errDeadline }

// SetWriteDeadline returns an error: a Conn has no deadlines.
func (c *Conn) SetWriteDeadline(t time.Time) error { return errDeadline }

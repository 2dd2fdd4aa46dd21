package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
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
// the stream ends, and writes it in another: WriteTo only queues a frame,
// and never blocks, as a UDP socket's does not. When the stream does not
// take the frames (an SSH connection whose network went away), at most
// [WriteQueue] wait and the others are dropped, as a full UDP socket
// drops them, so that a session loop that writes never freezes. The
// stream starts, both ways, with the version frame ([AppendHello]); a far
// end that sends none, or another version, ends the stream with an error
// saying so.
//
// Once the stream has ended (the far end closed it, or reading or
// writing it failed) or the Conn is closed, [Conn.Done] is closed and
// ReadFrom and WriteTo return errors wrapping [net.ErrClosed]; [Conn.Err]
// tells which it was.
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

	queue   chan []byte  // frames for the writer goroutine
	dropped atomic.Int64 // frames WriteTo dropped, the queue full

	mu     sync.Mutex // guards following
	ended  bool       // done is closed
	closed bool       // Close was called
	err    error      // why the stream ended; nil if Close ended it
}

var _ net.PacketConn = (*Conn)(nil)

// WriteQueue is how many frames a [Conn] holds for a stream that does not
// take them, at most 4 MiB; it drops the others. It is a second or more
// of a session's datagrams.
const WriteQueue = 64

// NewConn returns a Conn relaying datagrams over rwc to the server at
// remote, and starts its reader and its writer, which writes the version
// frame first. The Conn owns rwc from then on: Close closes it.
func NewConn(rwc io.ReadWriteCloser, remote netip.AddrPort) *Conn {
	c := &Conn{
		rwc:      rwc,
		remote:   remote,
		frames:   make(chan []byte),
		returned: make(chan struct{}),
		done:     make(chan struct{}),
		queue:    make(chan []byte, WriteQueue),
	}
	go c.read()
	go c.write()
	return c
}

// read is the reader goroutine: it checks the server end's version frame,
// then hands the datagrams of the stream to ReadFrom until the stream
// ends or the Conn is closed.
func (c *Conn) read() {
	fr := NewReader(c.rwc)
	if err := fr.ReadHello("the server's gosh server relay"); err != nil {
		if err == io.EOF {
			err = fmt.Errorf("relay: stream closed by the server end: %w", io.EOF)
		}
		c.end(err)
		return
	}
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

// write is the writer goroutine: it writes the version frame, then the
// queued frames, until the stream fails or the Conn is closed. Closing
// the stream makes a write that blocks return.
func (c *Conn) write() {
	if err := writeHello(c.rwc); err != nil {
		c.writeFailed(err)
		return
	}
	for {
		select {
		case f := <-c.queue:
			if _, err := c.rwc.Write(f); err != nil {
				c.writeFailed(err)
				return
			}
		case <-c.done:
			return
		}
	}
}

// writeGrace is how long a failed write waits for the reader to end the
// stream with its own error.
const writeGrace = 200 * time.Millisecond

// writeFailed ends the stream after a failed write, unless the reader
// ends it within writeGrace: a far end that closed the stream has usually
// said why (the relay's last line on its standard error, which the SSH
// stream returns at its end), and the reader reports that.
func (c *Conn) writeFailed(err error) {
	t := time.NewTimer(writeGrace)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		c.end(fmt.Errorf("relay: writing stream: %w", err))
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

// WriteTo queues p for the stream as one frame, for the server; addr is
// ignored. It does not wait for the stream: when [WriteQueue] frames are
// waiting already, p is dropped, as a UDP socket drops a datagram, and
// WriteTo reports it sent. A p longer than [MaxDatagram] is refused, as a
// UDP socket refuses a datagram too long for it, and the stream goes on.
// An error writing the stream ends it; after that, or after Close,
// WriteTo returns an error wrapping [net.ErrClosed].
func (c *Conn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if len(p) > MaxDatagram {
		return 0, errTooLarge(len(p))
	}
	select {
	case <-c.done:
		return 0, errClosed
	default:
	}
	f, _ := AppendFrame(make([]byte, 0, headerLen+len(p)), p)
	select {
	case c.queue <- f:
	default:
		c.dropped.Add(1)
	}
	return len(p), nil
}

// Close closes the stream: a ReadFrom waiting for a datagram returns at
// once, the frames still queued are dropped, and the reader and writer
// goroutines end when the pending Read and Write of the stream return,
// which closing it makes happen for pipes and network connections. Close returns the error of closing the stream; a second
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

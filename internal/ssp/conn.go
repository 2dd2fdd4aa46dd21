package ssp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/netaddr"
)

// Datagram is one datagram a [Conn] received.
type Datagram struct {
	Data []byte         // the datagram; MaxReceive+1 bytes means it was longer than MaxReceive
	From netip.AddrPort // source address (IPv4-mapped IPv6 addresses unmapped)
	At   time.Time      // when it was read

	// Relayed says the datagram came over the relay (Conn.SetRelay),
	// not a UDP socket.
	Relayed bool
}

// Path says where a [Conn] sends (Conn.SetPath).
type Path int

// The paths.
const (
	// PathUDP sends on the newest UDP socket (the default).
	PathUDP Path = iota
	// PathRelay sends on the relay (Conn.SetRelay) only: while there
	// is none, datagrams are dropped (the transport sends its state
	// again later).
	PathRelay
	// PathBoth sends each datagram on the relay and on UDP: a probe of
	// whether UDP works again. The receiver drops the second copy as a
	// duplicate.
	PathBoth
)

// datagramQueue is the capacity of a Conn's delivery channel.
const datagramQueue = 64

var errNoHop = errors.New("ssp: this connection cannot open new sockets")

// Conn is the I/O shell of SSP: it owns the UDP socket(s) of one side of
// a session, and nothing else. One reader goroutine per socket delivers
// every datagram, with its source and arrival time, to [Conn.Datagrams];
// the session loop, which owns the [Transport], reads that channel and
// writes the Transport's datagrams with [Conn.WriteTo].
//
// A client Conn can hop ([Conn.Hop]): it opens a new socket for all later
// sends and keeps reading the old ones, closing them once the new one has
// been in use for MaxOldSocketAge, and keeping at most MaxPortsOpen
// (docs/protocol.md section 3.5).
//
// WriteTo, Hop, LocalAddr and Close may be called from any goroutine.
type Conn struct {
	reopen func() (net.PacketConn, error) // nil for a server
	logf   logf.Func

	// Inputs to the session loop:
	ch     chan Datagram
	failed chan error // a sending socket that cannot be read any more

	done      chan struct{} // closed by Close
	closeOnce sync.Once
	readers   sync.WaitGroup

	mu      sync.Mutex       // guards following
	socks   []net.PacketConn // oldest first; the last one sends
	relay   Relay            // the relay path, if any (SetRelay)
	path    Path
	lastHop time.Time
	closed  bool
}

// ListenConfig says where a server listens.
type ListenConfig struct {
	// Addr is the local address to bind. The zero Addr means any IPv4
	// address, as stock mosh-server binds; the IPv6 unspecified address
	// "::" binds both families (dual-stack).
	Addr netip.Addr

	// Ports is the port or range to try: the first free port of the
	// range is bound. The zero PortRange tries netaddr.DefaultPorts,
	// mosh-server's default; netaddr.AnyPort lets the kernel choose.
	Ports netaddr.PortRange

	// Logf receives read errors; nil discards them.
	Logf logf.Func
}

// Listen binds a server socket: the first free port of cfg.Ports on
// cfg.Addr.
func Listen(cfg ListenConfig) (*Conn, error) {
	l, h := cfg.Ports.Bounds()
	lo, hi := int(l), int(h)
	addr, network := cfg.Addr.Unmap(), "udp4"
	switch {
	case !addr.IsValid():
		addr = netip.IPv4Unspecified()
	case addr == netip.IPv6Unspecified():
		network = "udp" // dual-stack
	case addr.Is6():
		network = "udp6"
	}
	var lastErr error
	for port := lo; port <= hi; port++ {
		uc, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, uint16(port))))
		if err == nil {
			setSocketOptions(uc)
			_ = uc.SetReadBuffer(socketBuffer)
			_ = uc.SetWriteBuffer(socketBuffer)
			return NewConn(uc, nil, cfg.Logf), nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("ssp: cannot bind %v to a port in %d:%d: %w", addr, lo, hi, lastErr)
}

// Dial opens a client socket for talking to the server at remote, on an
// ephemeral port of remote's family; [Conn.Hop] opens further ones.
func Dial(remote netip.AddrPort) (*Conn, error) {
	network := "udp4"
	if remote.Addr().Is6() {
		network = "udp6"
	}
	open := func() (net.PacketConn, error) {
		uc, err := net.ListenUDP(network, nil)
		if err != nil {
			return nil, fmt.Errorf("ssp: %w", err)
		}
		setSocketOptions(uc)
		_ = uc.SetReadBuffer(socketBuffer)
		_ = uc.SetWriteBuffer(socketBuffer)
		return uc, nil
	}
	pc, err := open()
	if err != nil {
		return nil, err
	}
	return NewConn(pc, open, nil), nil
}

// NewConn wraps an open socket, and starts reading it. reopen, if not
// nil, opens the further sockets of [Conn.Hop]; tests use in-memory
// sockets (ssptest.Network) this way. logf receives read errors; nil
// discards them.
func NewConn(pc net.PacketConn, reopen func() (net.PacketConn, error), logf logf.Func) *Conn {
	c := &Conn{reopen: reopen, logf: logf, ch: make(chan Datagram, datagramQueue),
		failed: make(chan error, 1), done: make(chan struct{})}
	c.mu.Lock()
	c.lastHop = time.Now()
	c.addLocked(pc)
	c.mu.Unlock()
	return c
}

// Datagrams returns the channel of received datagrams. It is closed after
// [Conn.Close] once every reader has stopped.
func (c *Conn) Datagrams() <-chan Datagram { return c.ch }

// Failed delivers the error of the sending socket once its reads have
// failed readRetries times in a row: the session cannot hear its peer any
// more. (Transient errors, such as an ICMP error reported on a later read,
// are retried with a back-off first; an older client socket that fails is
// just closed.)
func (c *Conn) Failed() <-chan error { return c.failed }

// LocalAddr returns the address of the socket that sends.
func (c *Conn) LocalAddr() netip.AddrPort {
	c.mu.Lock()
	defer c.mu.Unlock()
	return addrPort(c.socks[len(c.socks)-1].LocalAddr())
}

// WriteTo sends b to the address to from the newest socket. Errors are
// not fatal for the session (the caller shows them; see
// [IsMessageTooLong]).
func (c *Conn) WriteTo(b []byte, to netip.AddrPort) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return net.ErrClosed
	}
	pc, relay, path := c.socks[len(c.socks)-1], c.relay, c.path
	c.mu.Unlock()
	switch {
	case path == PathUDP, path == PathBoth && relay == nil:
		return writeTo(pc, b, to)
	case relay == nil:
		return nil
	case path == PathBoth:
		// The probe first: a copy that arrives second is dropped as a
		// duplicate, and only the first one can move the server's
		// reply address to UDP. Whether UDP works is for the replies
		// to tell.
		writeTo(pc, b, to)
	}
	_, err := relay.WriteTo(b, net.UDPAddrFromAddrPort(to))
	return err
}

// writeTo sends b to to on pc.
func writeTo(pc net.PacketConn, b []byte, to netip.AddrPort) error {
	var err error
	if uc, ok := pc.(*net.UDPConn); ok {
		_, err = uc.WriteToUDPAddrPort(b, to)
	} else {
		_, err = pc.WriteTo(b, net.UDPAddrFromAddrPort(to))
	}
	return err
}

// Relay is a path that carries datagrams over a stream when UDP is
// blocked (internal/relay's Conn over an SSH channel): a PacketConn whose
// ReadFrom reports the server's address, and which says when the stream
// has ended. Its WriteTo and Close must not block, as a UDP socket's do
// not: the session loop calls them (a relay over a stream queues a few
// datagrams and drops the rest while the stream takes none).
type Relay interface {
	net.PacketConn
	// Done is closed when the stream has ended or failed.
	Done() <-chan struct{}
	// Err says why it ended (nil after Close).
	Err() error
}

// SetRelay makes pc the relay path: a stream that carries the datagrams
// when UDP is blocked (internal/relay's Conn over an SSH channel). It
// replaces and closes an earlier relay; nil just closes that. Datagrams
// read from the relay are marked Relayed; when it ends, its reader stops
// quietly (the caller watches the relay itself). SetPath chooses whether
// datagrams are sent on it. Close closes it too.
func (c *Conn) SetRelay(pc Relay) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.relay != nil {
		c.relay.Close()
	}
	c.relay = nil
	if pc == nil {
		return
	}
	if c.closed {
		pc.Close()
		return
	}
	c.relay = pc
	c.readers.Add(1)
	go c.read(pc, true)
}

// SetPath chooses where WriteTo sends.
func (c *Conn) SetPath(p Path) {
	c.mu.Lock()
	c.path = p
	c.mu.Unlock()
}

// IsMessageTooLong reports whether err from [Conn.WriteTo] means the
// datagram was too long for the path (EMSGSIZE): the caller then lowers
// the budget to FallbackDatagram with [Transport.SetMaxDatagram].
func IsMessageTooLong(err error) bool { return errors.Is(err, syscall.EMSGSIZE) }

// Hop opens a new socket for all later sends (a new local port), keeps
// reading the old ones, and prunes them. Only a client Conn can hop.
func (c *Conn) Hop() error {
	if c.reopen == nil {
		return errNoHop
	}
	pc, err := c.reopen()
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		pc.Close()
		return net.ErrClosed
	}
	c.lastHop = time.Now()
	c.addLocked(pc)
	c.pruneLocked(c.lastHop)
	return nil
}

// addLocked adds a socket and starts its reader.
func (c *Conn) addLocked(pc net.PacketConn) {
	c.socks = append(c.socks, pc)
	c.readers.Add(1)
	go c.read(pc, false)
}

// pruneLocked closes old sockets: all but the newest once it has been in
// use for MaxOldSocketAge, and the oldest beyond MaxPortsOpen.
func (c *Conn) pruneLocked(now time.Time) {
	drop := 0
	if len(c.socks) > 1 && now.Sub(c.lastHop) > MaxOldSocketAge {
		drop = len(c.socks) - 1
	}
	drop = max(drop, len(c.socks)-MaxPortsOpen)
	for _, pc := range c.socks[:drop] {
		pc.Close() // its reader sees net.ErrClosed and stops
	}
	c.socks = append(c.socks[:0], c.socks[drop:]...)
}

// read is the reader goroutine of one socket: it forwards every datagram
// to the session loop until the socket is closed. Read errors are retried
// with a back-off (readBackoffMin doubling to readBackoffMax); after
// readRetries in a row it gives up (see [Conn.Failed]). The relay's
// reader (relayed) stops at its first error: a stream that failed does
// not recover.
func (c *Conn) read(pc net.PacketConn, relayed bool) {
	defer c.readers.Done()
	buf := make([]byte, MaxReceive+1) // one byte more reveals an oversize datagram
	failures, backoff := 0, readBackoffMin
	for {
		n, from, err := readFrom(pc, buf)
		if err != nil && messageTooLong(err) {
			// Windows reports a datagram longer than buf as an error;
			// deliver it as oversize, to be dropped and counted like
			// any other, rather than as a failing socket.
			n, err = len(buf), nil
		}
		if err != nil {
			if errors.Is(err, net.ErrClosed) || relayed {
				return
			}
			c.logf.Printf("ssp: reading %v: %v", pc.LocalAddr(), err)
			if failures++; failures >= readRetries {
				c.readFailed(pc, err)
				return
			}
			if !c.sleep(backoff) {
				return
			}
			backoff = min(2*backoff, readBackoffMax)
			continue
		}
		failures, backoff = 0, readBackoffMin
		d := Datagram{Data: append([]byte(nil), buf[:n]...), From: from, At: time.Now(), Relayed: relayed}
		c.mu.Lock()
		if len(c.socks) > 1 {
			c.pruneLocked(d.At)
		}
		c.mu.Unlock()
		select {
		case c.ch <- d:
		case <-c.done:
			return
		}
	}
}

// sleep waits d, or until Close; it reports whether the Conn is open.
func (c *Conn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.done:
		return false
	}
}

// readFailed handles a socket that cannot be read: an older client
// socket is closed and forgotten; the sending one is reported.
func (c *Conn) readFailed(pc net.PacketConn, err error) {
	c.mu.Lock()
	sending := len(c.socks) > 0 && c.socks[len(c.socks)-1] == pc
	if !sending {
		for i, s := range c.socks {
			if s == pc {
				c.socks = append(c.socks[:i], c.socks[i+1:]...)
				break
			}
		}
		pc.Close()
	}
	c.mu.Unlock()
	if sending {
		select {
		case c.failed <- fmt.Errorf("ssp: reading %v: %w", pc.LocalAddr(), err):
		default:
		}
	}
}

func readFrom(pc net.PacketConn, buf []byte) (int, netip.AddrPort, error) {
	if uc, ok := pc.(*net.UDPConn); ok {
		n, from, err := uc.ReadFromUDPAddrPort(buf)
		return n, netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), err
	}
	n, from, err := pc.ReadFrom(buf)
	return n, addrPort(from), err
}

// addrPort converts a net.Addr to an AddrPort (zero if it is not UDP).
func addrPort(a net.Addr) netip.AddrPort {
	if ua, ok := a.(*net.UDPAddr); ok {
		ap := ua.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	return netip.AddrPort{}
}

// Close closes every socket and waits for the readers to stop; then the
// Datagrams channel is closed. It is idempotent.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		close(c.done)
		for _, pc := range c.socks {
			pc.Close()
		}
		if c.relay != nil {
			c.relay.Close()
		}
		c.mu.Unlock()
		c.readers.Wait()
		close(c.ch)
	})
	return nil
}

package ssptest

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"reflect"
	"sync"
	"time"
)

// Network is an in-memory datagram network of [PacketConn]s, for testing
// the I/O shell and the session loops without sockets. Its hooks model a
// bad path: loss, duplication, delay (and so reordering), and moving an
// endpoint to a new address. Delayed delivery uses time.AfterFunc, so
// inside testing/synctest the network runs on the bubble's fake clock.
//
// The hooks must be set before traffic flows, or changed under [Network.Do].
type Network struct {
	mu       sync.Mutex // guards following, and the hooks
	conns    map[netip.AddrPort]*PacketConn
	nextPort uint16

	// Drop, if set, reports whether to lose a datagram.
	Drop func(from, to netip.AddrPort, b []byte) bool
	// Duplicate, if set, reports whether to deliver a datagram twice.
	Duplicate func(from, to netip.AddrPort, b []byte) bool
	// Delay, if set, returns how long a datagram is in flight; different
	// delays reorder datagrams.
	Delay func(from, to netip.AddrPort, b []byte) time.Duration
}

// NewNetwork returns an empty network.
func NewNetwork() *Network {
	return &Network{conns: map[netip.AddrPort]*PacketConn{}, nextPort: 40000}
}

// Do runs f with the network locked, to change hooks safely while traffic
// flows.
func (n *Network) Do(f func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f()
}

// Listen returns an endpoint at addr; port 0 picks a free one.
func (n *Network) Listen(addr netip.AddrPort) (*PacketConn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	addr, err := n.freeLocked(addr)
	if err != nil {
		return nil, err
	}
	c := &PacketConn{net: n, addr: addr, notify: make(chan struct{}, 1), done: make(chan struct{})}
	n.conns[addr] = c
	return c, nil
}

// freeLocked resolves port 0 and checks that addr is unused.
func (n *Network) freeLocked(addr netip.AddrPort) (netip.AddrPort, error) {
	for addr.Port() == 0 {
		n.nextPort++
		if try := netip.AddrPortFrom(addr.Addr(), n.nextPort); n.conns[try] == nil {
			addr = try
		}
	}
	if n.conns[addr] != nil {
		return addr, fmt.Errorf("ssptest: address %v in use", addr)
	}
	return addr, nil
}

// send routes one datagram through the hooks.
func (n *Network) send(from, to netip.AddrPort, b []byte) {
	n.mu.Lock()
	dst := n.conns[to]
	copies := 1
	if n.Duplicate != nil && n.Duplicate(from, to, b) {
		copies = 2
	}
	var delays []time.Duration
	for range copies {
		if n.Drop != nil && n.Drop(from, to, b) {
			continue
		}
		var d time.Duration
		if n.Delay != nil {
			d = n.Delay(from, to, b)
		}
		delays = append(delays, d)
	}
	n.mu.Unlock()
	if dst == nil {
		return // nobody there: lost
	}
	for _, d := range delays {
		dst.deliver(packet{from: from, data: append([]byte(nil), b...)}, d)
	}
}

type packet struct {
	from netip.AddrPort
	data []byte
}

// PacketConn is one endpoint of a [Network]. It implements net.PacketConn
// with *net.UDPAddr addresses; deadlines are not supported. One goroutine
// reads it at a time.
type PacketConn struct {
	net    *Network
	notify chan struct{} // a datagram was queued
	done   chan struct{} // closed by Close

	mu      sync.Mutex // guards following
	addr    netip.AddrPort
	closed  bool
	ready   []packet   // deliverable now, in order
	pending []*delayed // in flight
}

// delayed is a datagram in flight.
type delayed struct {
	p packet
	t *time.Timer
}

// maxQueued bounds what an endpoint holds, as a socket buffer would;
// more is dropped.
const maxQueued = 256

// deliver queues p after delay d.
func (c *PacketConn) deliver(p packet, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.ready)+len(c.pending) >= maxQueued {
		return
	}
	if d <= 0 {
		c.ready = append(c.ready, p)
	} else {
		c.pending = append(c.pending, &delayed{p, time.NewTimer(d)})
	}
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// ReadFrom blocks until a datagram arrives or the endpoint is closed
// (net.ErrClosed).
func (c *PacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		c.mu.Lock()
		if len(c.ready) > 0 {
			p := c.ready[0]
			c.ready = c.ready[1:]
			c.mu.Unlock()
			return copy(b, p.data), net.UDPAddrFromAddrPort(p.from), nil
		}
		cases := []reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c.done)},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c.notify)},
		}
		waiting := append([]*delayed(nil), c.pending...)
		for _, d := range waiting {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(d.t.C)})
		}
		c.mu.Unlock()
		switch i, _, _ := reflect.Select(cases); i {
		case 0:
			return 0, nil, net.ErrClosed
		case 1:
			// Something new: look again.
		default:
			c.arrived(waiting[i-2])
		}
	}
}

// arrived moves a datagram whose delay is over to the ready queue.
func (c *PacketConn) arrived(d *delayed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.pending {
		if x == d {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			c.ready = append(c.ready, d.p)
			return
		}
	}
}

// WriteTo sends b to addr, a *net.UDPAddr.
func (c *PacketConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	ua, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, fmt.Errorf("ssptest: not a UDP address: %v", addr)
	}
	c.mu.Lock()
	from, closed := c.addr, c.closed
	c.mu.Unlock()
	if closed {
		return 0, net.ErrClosed
	}
	to := ua.AddrPort()
	c.net.send(from, netip.AddrPortFrom(to.Addr().Unmap(), to.Port()), b)
	return len(b), nil
}

// LocalAddr returns the endpoint's current address.
func (c *PacketConn) LocalAddr() net.Addr {
	c.mu.Lock()
	defer c.mu.Unlock()
	return net.UDPAddrFromAddrPort(c.addr)
}

// Rebind moves the endpoint to a new address (port 0 picks one), as a
// NAT rebinding or a network change does: later datagrams come from it,
// and datagrams to the old address are lost.
func (c *PacketConn) Rebind(addr netip.AddrPort) (netip.AddrPort, error) {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	addr, err := n.freeLocked(addr)
	if err != nil {
		return addr, err
	}
	c.mu.Lock()
	delete(n.conns, c.addr)
	c.addr = addr
	c.mu.Unlock()
	n.conns[addr] = c
	return addr, nil
}

// Close closes the endpoint; a blocked ReadFrom returns net.ErrClosed.
func (c *PacketConn) Close() error {
	n := c.net
	n.mu.Lock()
	defer n.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	c.closed = true
	close(c.done)
	for _, d := range c.pending {
		d.t.Stop()
	}
	c.pending = nil
	delete(n.conns, c.addr)
	return nil
}

var errDeadline = errors.New("ssptest: deadlines are not supported")

// SetDeadline is not supported.
func (c *PacketConn) SetDeadline(time.Time) error { return errDeadline }

// SetReadDeadline is not supported.
func (c *PacketConn) SetReadDeadline(time.Time) error { return errDeadline }

// SetWriteDeadline is not supported.
func (c *PacketConn) SetWriteDeadline(time.Time) error { return errDeadline }

var _ net.PacketConn = (*PacketConn)(nil)

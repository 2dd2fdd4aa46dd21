package sshlink

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
)

// Link carries packets one way. Send takes ownership of b and delivers it
// (later, or never) by calling the deliver function it was created with.
//
// Send is called from a single goroutine per link and should not block
// for long: while it runs, its stack queues further packets. The deliver
// function may be called from any goroutine, concurrently, even from
// within Send; it copies b, so the link may reuse b once deliver returns.
// After [Net.Close], deliver drops packets.
type Link interface{ Send(b []byte) }

// Net is two userspace TCP/IP hosts, a client at 10.0.0.1 and a server at
// 10.0.0.2, joined by a [Link] in each direction. Its methods are safe for
// concurrent use.
type Net struct {
	client, server *host
	closeOnce      sync.Once
}

// NewNet builds the two hosts and starts their pumps. up makes the link
// that carries client→server packets and down the one for server→client;
// each is given the function that injects a packet into the receiving
// stack. The caller owns the links: Net never stops them, so stop them
// after [Net.Close] (their late deliveries are dropped).
func NewNet(up, down func(deliver func([]byte)) Link) (*Net, error) {
	if up == nil || down == nil {
		return nil, errors.New("sshlink: NewNet needs a link constructor for each direction")
	}
	c, err := newHost(clientAddr)
	if err != nil {
		return nil, err
	}
	s, err := newHost(serverAddr)
	if err != nil {
		c.close()
		return nil, err
	}
	c.link, s.link = up(s.deliver), down(c.deliver)
	if c.link == nil || s.link == nil {
		c.close()
		s.close()
		return nil, errors.New("sshlink: a link constructor returned nil")
	}
	c.start()
	s.start()
	return &Net{client: c, server: s}, nil
}

// Listen listens for TCP connections on port of the server host. Closing
// the listener makes Accept return an error wrapping [net.ErrClosed].
func (n *Net) Listen(port uint16) (net.Listener, error) {
	l, err := gonet.ListenTCP(n.server.stack, tcpip.FullAddress{NIC: nicID, Addr: serverAddr, Port: port}, ipv4.ProtocolNumber)
	if err != nil {
		return nil, fmt.Errorf("sshlink: listen on port %d: %w", port, err)
	}
	return &listener{TCPListener: l}, nil
}

// Dial opens a TCP connection from the client host to port of the server
// host. ctx bounds the handshake only.
func (n *Net) Dial(ctx context.Context, port uint16) (net.Conn, error) {
	c, err := gonet.DialContextTCP(ctx, n.client.stack, tcpip.FullAddress{NIC: nicID, Addr: serverAddr, Port: port}, ipv4.ProtocolNumber)
	if err != nil {
		return nil, fmt.Errorf("sshlink: dial port %d: %w", port, err)
	}
	return c, nil
}

// CongestionControl names the TCP congestion control algorithm both hosts
// use, for reports: "cubic".
func (n *Net) CongestionControl() string {
	var cc tcpip.CongestionControlOption
	if err := n.client.stack.TransportProtocolOption(tcpProtocol, &cc); err != nil {
		return congestionControl
	}
	return string(cc)
}

// Close tears down both hosts: it stops the pumps, aborts every
// connection and listener (their Reads and Accepts return errors) and
// waits for the stacks' goroutines. Packets the links deliver afterwards
// are dropped. Close is idempotent.
func (n *Net) Close() error {
	n.closeOnce.Do(func() {
		n.client.close()
		n.server.close()
	})
	return nil
}

// listener makes Accept on a closed gonet listener report net.ErrClosed,
// as a net.Listener from package net does.
type listener struct {
	*gonet.TCPListener

	mu     sync.Mutex // guards closed
	closed bool
}

// Accept waits for the next connection.
func (l *listener) Accept() (net.Conn, error) {
	c, err := l.TCPListener.Accept()
	if err != nil && l.isClosed() {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: net.ErrClosed}
	}
	return c, err
}

// Close stops listening and unblocks Accept.
func (l *listener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.Shutdown() // wakes a blocked Accept
	return l.TCPListener.Close()
}

func (l *listener) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

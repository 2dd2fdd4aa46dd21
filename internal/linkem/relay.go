package linkem

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
)

// UDPRelay is an emulated link between a UDP client and a UDP server on
// the loopback interface, for programs whose sockets cannot be handed a
// [Pipe] (stock mosh-server and mosh-client, or gosh's own). The client
// sends to [UDPRelay.Addr]; the relay passes each datagram through the
// profile's Up pipe and sends it to the server from its back socket, so
// the server sees the back socket as the client. Datagrams the server
// sends to the back socket go through the Down pipe to the client's
// latest address. Datagrams from anyone but the server on the back
// socket are ignored.
//
//	client ──▶ front ──Up pipe──▶ back ──▶ server
//	client ◀── front ◀─Down pipe── back ◀── server
//
// A UDPRelay is safe for concurrent use.
type UDPRelay struct {
	server   netip.AddrPort
	headers  int // IP and UDP header bytes of each datagram
	front    *net.UDPConn
	up, down *Pipe
	wg       sync.WaitGroup // the readers

	mu         sync.Mutex // guards following
	back       *net.UDPConn
	client     netip.AddrPort // latest source seen on front; invalid before
	closed     bool
	sendErrors uint64
}

// RelayStats are a relay's counts: Up for the client's datagrams to the
// server, Down for the server's to the client. Bytes are what the
// datagrams take on the wire: the UDP payload and [UDPHeaders] of IP and
// UDP headers each (IPv4's; [UDP6Headers] over IPv6).
type RelayStats struct {
	Up, Down Stats
	// SendErrors counts datagrams that survived the link but that the
	// relay failed to send on.
	SendErrors uint64
}

// Bytes returns the bytes the client and the server put on the wire,
// headers included, both ways together.
func (s RelayStats) Bytes() int64 { return s.Up.Bytes() + s.Down.Bytes() }

// The IP and UDP header bytes of a datagram, which the relay charges each
// datagram in the link's rate and counts, as a TCP segment's headers are
// part of the IP packet a [Pipe] carries.
const (
	UDPHeaders  = 20 + 8 // IPv4 and UDP
	UDP6Headers = 40 + 8 // IPv6 and UDP
)

// maxDatagram is the largest UDP payload.
const maxDatagram = 65535

// DirectionSeeds returns the seeds of the Up and Down directions of a link
// seeded with seed. Every carrier of a profile (a [UDPRelay], or the two
// [Pipe]s of a TCP connection) seeds its directions with these, so that
// for one seed every transport meets the same loss and jitter draws, in
// the order of its packets.
func DirectionSeeds(seed uint64) (up, down uint64) { return seed, splitmix(seed) }

// NewUDPRelay starts a relay to server, a loopback address, applying the
// profile p, its directions seeded by [DirectionSeeds] of seed. Each
// datagram counts, in the bottleneck's rate and in the stats, with its IP
// and UDP headers.
func NewUDPRelay(server netip.AddrPort, p Profile, seed uint64) (*UDPRelay, error) {
	if !server.Addr().Unmap().IsLoopback() || server.Port() == 0 {
		return nil, fmt.Errorf("linkem: relay server %v is not a loopback address and port", server)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	server = unmap(server)
	front, err := listenLoopback(server.Addr())
	if err != nil {
		return nil, err
	}
	back, err := listenLoopback(server.Addr())
	if err != nil {
		front.Close()
		return nil, err
	}
	r := &UDPRelay{server: server, front: front, back: back, headers: UDPHeaders}
	if server.Addr().Is6() {
		r.headers = UDP6Headers
	}
	up, down := DirectionSeeds(seed)
	r.up = NewPipe(p.Up, up, r.toServer)
	r.down = NewPipe(p.Down, down, r.toClient)
	r.wg.Add(2)
	go r.readFront()
	go r.readBack(back)
	return r, nil
}

// listenLoopback opens a UDP socket on an ephemeral port of the loopback
// address of like's family.
func listenLoopback(like netip.Addr) (*net.UDPConn, error) {
	lo := netip.IPv6Loopback()
	if like.Is4() {
		lo = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(lo, 0)))
	if err != nil {
		return nil, fmt.Errorf("linkem: relay: %w", err)
	}
	_ = c.SetReadBuffer(relayBuffer) // best effort, as the endpoints' own
	_ = c.SetWriteBuffer(relayBuffer)
	return c, nil
}

// relayBuffer is the kernel buffer the relay asks for on its sockets: as
// much as gosh's own (ssp's socketBuffer), so that the relay loses only
// what its profile says. With the system's default (208 KiB on Linux) a
// sender at LAN speed overran the relay's sockets, not the endpoint's,
// and the link lost a twentieth of its packets that no profile asked for.
const relayBuffer = 1 << 20

// splitmix derives an independent seed from seed (SplitMix64's finaliser).
func splitmix(seed uint64) uint64 {
	z := seed + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Addr returns the address the client must send to.
func (r *UDPRelay) Addr() netip.AddrPort { return localAddr(r.front) }

// BackAddr returns the address the server currently sees as the client's.
func (r *UDPRelay) BackAddr() netip.AddrPort {
	r.mu.Lock()
	defer r.mu.Unlock()
	return localAddr(r.back)
}

// localAddr returns c's address, IPv4 in its 4-byte form.
func localAddr(c *net.UDPConn) netip.AddrPort {
	return unmap(c.LocalAddr().(*net.UDPAddr).AddrPort())
}

func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }

// Rebind moves the back side to a new socket on a new port, as a NAT
// rebinding would: the server sees the client's datagrams come from a new
// address, and what it sends to the old one is lost.
func (r *UDPRelay) Rebind() error {
	back, err := listenLoopback(r.server.Addr())
	if err != nil {
		return err
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		back.Close()
		return net.ErrClosed
	}
	old := r.back
	r.back = back
	r.wg.Add(1)
	r.mu.Unlock()
	old.Close()
	go r.readBack(back)
	return nil
}

// SetOutage starts (on) or ends (off) a total outage in both directions.
func (r *UDPRelay) SetOutage(on bool) {
	r.up.SetOutage(on)
	r.down.SetOutage(on)
}

// SetProfile changes both directions' configuration from now on (see
// [Model.SetConfig]).
func (r *UDPRelay) SetProfile(p Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	r.up.SetConfig(p.Up)
	r.down.SetConfig(p.Down)
	return nil
}

// Stats returns the counts of both directions so far.
func (r *UDPRelay) Stats() RelayStats {
	r.mu.Lock()
	errs := r.sendErrors
	r.mu.Unlock()
	return RelayStats{Up: r.up.Stats(), Down: r.down.Stats(), SendErrors: errs}
}

// Close closes the relay's sockets, stops its pipes (discarding what they
// hold) and waits for its goroutines. Close is idempotent.
func (r *UDPRelay) Close() error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		r.front.Close()
		r.back.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
	r.up.Close()
	r.down.Close()
	return nil
}

// readFront forwards the client's datagrams into the Up pipe.
func (r *UDPRelay) readFront() {
	defer r.wg.Done()
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := r.front.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // e.g. an ICMP error reported on the socket
		}
		r.mu.Lock()
		r.client = from
		r.mu.Unlock()
		r.up.SendSized(append([]byte(nil), buf[:n]...), n+r.headers)
	}
}

// readBack forwards the server's datagrams to back into the Down pipe,
// until back is closed.
func (r *UDPRelay) readBack(back *net.UDPConn) {
	defer r.wg.Done()
	buf := make([]byte, maxDatagram)
	for {
		n, from, err := back.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if unmap(from) != r.server {
			continue
		}
		r.down.SendSized(append([]byte(nil), buf[:n]...), n+r.headers)
	}
}

// toServer is the Up pipe's deliver: it sends from the current back
// socket.
func (r *UDPRelay) toServer(b []byte) {
	r.mu.Lock()
	back := r.back
	r.mu.Unlock()
	_, err := back.WriteToUDPAddrPort(b, r.server)
	r.countErr(err)
}

// toClient is the Down pipe's deliver.
func (r *UDPRelay) toClient(b []byte) {
	r.mu.Lock()
	client := r.client
	r.mu.Unlock()
	if !client.IsValid() {
		r.countErr(errors.New("no client yet"))
		return
	}
	_, err := r.front.WriteToUDPAddrPort(b, client)
	r.countErr(err)
}

func (r *UDPRelay) countErr(err error) {
	if err != nil {
		r.mu.Lock()
		r.sendErrors++
		r.mu.Unlock()
	}
}

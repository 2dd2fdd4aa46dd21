package relay

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// udpSocket is one line of Linux's /proc/net/udp or /proc/net/udp6: a UDP
// socket's local address and the uid owning it.
type udpSocket struct {
	Local netip.AddrPort
	UID   uint32
}

// maxProcNetLines bounds the sockets parseProcNetUDP reads from one
// table.
const maxProcNetLines = 1 << 20

// parseProcNetUDP parses a /proc/net/udp or /proc/net/udp6 table: a
// header line, then one socket a line, whose second field is the local
// address (hexadecimal, each 32-bit word of the address in the host's
// byte order, then ':' and the port) and whose eighth is the owner's uid.
// A line it cannot read is an error, so that a format it does not know
// is never taken for an empty table.
func parseProcNetUDP(table []byte) ([]udpSocket, error) {
	var out []udpSocket
	sc := bufio.NewScanner(bytes.NewReader(table))
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			continue // the header
		}
		if n > maxProcNetLines {
			return nil, errors.New("relay: the socket table is too long")
		}
		f := strings.Fields(sc.Text())
		if len(f) < 8 {
			return nil, fmt.Errorf("relay: socket table line %d has %d fields", n+1, len(f))
		}
		local, err := parseProcAddr(f[1])
		if err != nil {
			return nil, fmt.Errorf("relay: socket table line %d: %w", n+1, err)
		}
		uid, err := strconv.ParseUint(f[7], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("relay: socket table line %d: bad uid %.20q", n+1, f[7])
		}
		out = append(out, udpSocket{Local: local, UID: uint32(uid)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("relay: reading the socket table: %w", err)
	}
	return out, nil
}

// parseProcAddr parses "0100007F:EA61" (IPv4) or 32 hexadecimal digits
// and a port (IPv6), as /proc/net/udp{,6} write them.
func parseProcAddr(s string) (netip.AddrPort, error) {
	addr, port, ok := strings.Cut(s, ":")
	if !ok || len(port) != 4 || (len(addr) != 8 && len(addr) != 32) {
		return netip.AddrPort{}, fmt.Errorf("bad address %.60q", s)
	}
	raw, err := hex.DecodeString(addr)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad address %.60q", s)
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad port in %.60q", s)
	}
	// Each 32-bit word was printed as a number in the host's byte
	// order; its bytes in memory, the address's, are those of the
	// number stored in that order.
	var b [16]byte
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	a := netip.AddrFrom16(b)
	if len(raw) == 4 {
		a = netip.AddrFrom4([4]byte(b[:4]))
	}
	return netip.AddrPortFrom(a, uint16(p)), nil
}

// holds reports whether a socket bound to local receives datagrams sent
// to target: the same port, and the same address or the unspecified one
// of its family (an IPv6 one takes IPv4 too, as a dual-stack socket
// does).
func holds(local, target netip.AddrPort) bool {
	if local.Port() != target.Port() {
		return false
	}
	l, a := local.Addr().Unmap(), target.Addr().Unmap().WithZone("")
	switch {
	case l == a:
		return true
	case l == netip.IPv4Unspecified():
		return a.Is4()
	case l == netip.IPv6Unspecified():
		return true
	}
	return false
}

// owners reports whether, among socks, a socket of uid receives what is
// sent to target, and whether one of another user's does.
func owners(socks []udpSocket, target netip.AddrPort, uid int) (mine, others bool) {
	for _, s := range socks {
		if !holds(s.Local, target) {
			continue
		}
		if int64(s.UID) == int64(uid) {
			mine = true
		} else {
			others = true
		}
	}
	return mine, others
}

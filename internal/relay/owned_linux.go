package relay

import (
	"errors"
	"io/fs"
	"net/netip"
	"os"
)

// OwnedPort reports whether the datagrams sent to target reach a UDP
// socket of the user uid and no other user's: the sockets bound to
// target's port on its address or on every address, as /proc/net/udp and
// /proc/net/udp6 list them, are all uid's, and there is one. (Whether an
// IPv6 socket on every address takes IPv4 too cannot be read there: one
// of uid's on [::] and another user's on 0.0.0.0 and the same port make
// the port not uid's.)
func OwnedPort(target netip.AddrPort, uid int) (bool, error) {
	mine, others := false, false
	for _, table := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		b, err := os.ReadFile(table)
		if errors.Is(err, fs.ErrNotExist) {
			continue // no IPv6
		}
		if err != nil {
			return false, err
		}
		socks, err := parseProcNetUDP(b)
		if err != nil {
			return false, err
		}
		m, o := owners(socks, target, uid)
		mine, others = mine || m, others || o
	}
	return mine && !others, nil
}

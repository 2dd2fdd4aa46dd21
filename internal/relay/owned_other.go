//go:build !linux

package relay

import (
	"errors"
	"net/netip"
)

// OwnedPort reports an error: only Linux tells which user's socket holds a
// port (/proc/net/udp), and here no port counts as the user's.
func OwnedPort(target netip.AddrPort, uid int) (bool, error) {
	return false, errors.ErrUnsupported
}

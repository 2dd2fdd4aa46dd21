package relay

import (
	"fmt"
	"net"
	"net/netip"
)

// CheckTarget reports whether the relay may forward to target: an address
// of this host, either a loopback address or one assigned to one of its
// interfaces, and a port other than 0. Unspecified addresses (0.0.0.0,
// ::) are refused: they name no host in particular. An IPv4-mapped IPv6
// address counts as its IPv4 address.
//
// The check keeps the relay from forwarding UDP to other hosts, which an
// SSH server that allows no port forwarding would not let a user do.
func CheckTarget(target netip.AddrPort) error {
	a := target.Addr().Unmap().WithZone("")
	switch {
	case !a.IsValid():
		return fmt.Errorf("relay: no target address")
	case a.IsUnspecified():
		return fmt.Errorf("relay: target %v is the unspecified address, not this host's", target)
	case target.Port() == 0:
		return fmt.Errorf("relay: target %v has port 0", target)
	case a.IsLoopback():
		return nil
	}
	local, err := isLocal(a)
	if err != nil {
		return err
	}
	if !local {
		return fmt.Errorf("relay: target %v is not an address of this host", target)
	}
	return nil
}

// isLocal reports whether a (unmapped, without a zone) is assigned to one
// of this host's interfaces.
func isLocal(a netip.Addr) (bool, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false, fmt.Errorf("relay: listing this host's addresses: %w", err)
	}
	for _, ia := range addrs {
		var ip net.IP
		switch ia := ia.(type) {
		case *net.IPNet:
			ip = ia.IP
		case *net.IPAddr:
			ip = ia.IP
		}
		if b, ok := netip.AddrFromSlice(ip); ok && b.Unmap() == a {
			return true, nil
		}
	}
	return false, nil
}

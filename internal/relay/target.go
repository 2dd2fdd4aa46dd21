package relay

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// CheckTarget reports whether the relay may forward to target: an address
// of this host, either a loopback address or one assigned to one of its
// interfaces, and a port other than 0. Unspecified addresses (0.0.0.0,
// ::) are refused: they name no host in particular. An IPv4-mapped IPv6
// address counts as its IPv4 address.
//
// A zone (fe80::1%eth0) names the interface the datagrams leave by, and
// the address must be one of that interface's: the same link-local
// address on another link is another host. A link-local IPv6 address
// needs a zone (without one it names no link); another address may have
// none, and then any interface's will do.
//
// The check keeps the relay from forwarding UDP to other hosts, which an
// SSH server that allows no port forwarding would not let a user do.
// Which of this host's ports the relay may reach is the [Server]'s Allow.
func CheckTarget(target netip.AddrPort) error {
	a := target.Addr().Unmap()
	zone := a.Zone()
	a = a.WithZone("")
	switch {
	case !a.IsValid():
		return fmt.Errorf("relay: no target address")
	case a.IsUnspecified():
		return fmt.Errorf("relay: target %v is the unspecified address, not this host's", target)
	case target.Port() == 0:
		return fmt.Errorf("relay: target %v has port 0", target)
	case a.Is6() && (a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast()) && zone == "":
		return fmt.Errorf("relay: target %v is a link-local address without a zone (%%interface)", target)
	case a.IsLoopback() && zone == "":
		return nil
	}
	local, err := isLocal(a, zone)
	if err != nil {
		return err
	}
	if !local {
		if zone != "" {
			return fmt.Errorf("relay: target %v is not an address of this host's interface %s", target, zone)
		}
		return fmt.Errorf("relay: target %v is not an address of this host", target)
	}
	return nil
}

// isLocal reports whether a (unmapped, without a zone) is assigned to one
// of this host's interfaces: to the one zone names (by name or index),
// when zone is not empty.
func isLocal(a netip.Addr, zone string) (bool, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return false, fmt.Errorf("relay: listing this host's interfaces: %w", err)
	}
	for _, ifc := range ifaces {
		if zone != "" && zone != ifc.Name && zone != strconv.Itoa(ifc.Index) {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			return false, fmt.Errorf("relay: listing the addresses of %s: %w", ifc.Name, err)
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
	}
	return false, nil
}

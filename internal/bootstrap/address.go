package bootstrap

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// chooseAddr picks the UDP target. A direct TCP connection's peer address
// is authoritative. Otherwise (ProxyJump, ProxyCommand, system ssh) the host
// name is resolved here, as mosh's wrapper does, preferring the address the
// server reports in SSH_CONNECTION when it is among the results, and using
// that address alone when the name does not resolve here.
func chooseAddr(ctx context.Context, reached netip.Addr, hostname, family, serverIP string) (netip.Addr, error) {
	if reached.IsValid() {
		return reached, nil
	}
	remote, _ := netip.ParseAddr(strings.TrimPrefix(strings.ToLower(serverIP), "::ffff:"))
	remote = remote.Unmap()
	addrs, lookupErr := lookupHost(ctx, hostname, family)
	for _, a := range addrs {
		if a == remote {
			return a, nil
		}
	}
	if len(addrs) > 0 {
		return addrs[0], nil
	}
	if remote.IsValid() && familyOK(remote, family) {
		return remote, nil
	}
	return netip.Addr{}, fmt.Errorf("bootstrap: no %saddress for %s to send UDP to: %v", familyWord(family), hostname, lookupErr)
}

// lookupHost resolves name (or parses a literal) into addresses of family.
func lookupHost(ctx context.Context, name, family string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(name); err == nil {
		if !familyOK(a.Unmap(), family) {
			return nil, fmt.Errorf("%s is not an %saddress", name, familyWord(family))
		}
		return []netip.Addr{a.Unmap()}, nil
	}
	network := "ip"
	switch family {
	case "inet":
		network = "ip4"
	case "inet6":
		network = "ip6"
	}
	got, err := net.DefaultResolver.LookupNetIP(ctx, network, name)
	var out []netip.Addr
	for _, a := range got {
		if a = a.Unmap(); familyOK(a, family) {
			out = append(out, a)
		}
	}
	return out, err
}

func familyOK(a netip.Addr, family string) bool {
	switch family {
	case "inet":
		return a.Is4()
	case "inet6":
		return a.Is6()
	}
	return a.IsValid()
}

func familyWord(family string) string {
	switch family {
	case "inet":
		return "IPv4 "
	case "inet6":
		return "IPv6 "
	}
	return ""
}

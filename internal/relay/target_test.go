package relay

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

func TestCheckTarget(t *testing.T) {
	tests := []struct {
		target string
		ok     bool
	}{
		{"127.0.0.1:60001", true},
		{"127.1.2.3:60001", true},
		{"[::1]:60001", true},
		{"[::ffff:127.0.0.1]:60001", true},
		{"127.0.0.1:0", false},
		{"0.0.0.0:60001", false},
		{"[::]:60001", false},
		{"192.0.2.1:60001", false},     // TEST-NET-1, never this host's
		{"[2001:db8::1]:60001", false}, // documentation prefix
		{"224.0.0.1:60001", false},     // multicast
		{"255.255.255.255:60001", false},
	}
	for _, tc := range tests {
		err := CheckTarget(netip.MustParseAddrPort(tc.target))
		if (err == nil) != tc.ok {
			t.Errorf("CheckTarget(%s) = %v, want ok %v", tc.target, err, tc.ok)
		}
	}
	if err := CheckTarget(netip.AddrPort{}); err == nil {
		t.Errorf("CheckTarget(zero) = nil, want an error")
	}
}

// TestCheckTargetInterfaces: every address of this host's interfaces is a
// target, with the zone of its interface (needed for a link-local one);
// with another interface's zone it is not.
func TestCheckTargetInterfaces(t *testing.T) {
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatalf("no interfaces: %v", err)
	}
	linkLocal := 0
	for _, ifc := range ifaces {
		addrs, _ := ifc.Addrs()
		for _, ia := range addrs {
			ipnet, ok := ia.(*net.IPNet)
			if !ok {
				continue
			}
			a, _ := netip.AddrFromSlice(ipnet.IP)
			a = a.Unmap()
			target := netip.AddrPortFrom(a, 60001)
			ll := a.Is6() && a.IsLinkLocalUnicast()
			if err := CheckTarget(target); (err == nil) == ll {
				t.Errorf("CheckTarget(%v) = %v; want ok unless link-local", target, err)
			}
			if !a.Is6() {
				continue
			}
			if ll {
				linkLocal++
			}
			for _, zone := range []string{ifc.Name, strconv.Itoa(ifc.Index)} {
				if err := CheckTarget(netip.AddrPortFrom(a.WithZone(zone), 60001)); err != nil {
					t.Errorf("CheckTarget(%v%%%s) = %v, want nil (an address of %s)", a, zone, err, ifc.Name)
				}
			}
			for _, other := range ifaces {
				if other.Index == ifc.Index || hasAddr(other, a) {
					continue
				}
				target := netip.AddrPortFrom(a.WithZone(other.Name), 60001)
				err := CheckTarget(target)
				if err == nil || !strings.Contains(err.Error(), "not an address of this host's interface "+other.Name) {
					t.Errorf("CheckTarget(%v) = %v, want a refusal naming %s", target, err, other.Name)
				}
			}
		}
	}
	if linkLocal == 0 {
		t.Log("no link-local IPv6 address here: the zone was checked on other IPv6 addresses only")
	}
	for _, target := range []string{"[fe80::1]:60001", "[fe80::1%nosuchif]:60001", "[::1%nosuchif]:60001"} {
		if err := CheckTarget(netip.MustParseAddrPort(target)); err == nil {
			t.Errorf("CheckTarget(%s) = nil, want a refusal", target)
		}
	}
}

func hasAddr(ifc net.Interface, a netip.Addr) bool {
	addrs, _ := ifc.Addrs()
	for _, ia := range addrs {
		if ipnet, ok := ia.(*net.IPNet); ok {
			if b, _ := netip.AddrFromSlice(ipnet.IP); b.Unmap() == a {
				return true
			}
		}
	}
	return false
}

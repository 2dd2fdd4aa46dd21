package relay

import (
	"net"
	"net/netip"
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
// target.
func TestCheckTargetInterfaces(t *testing.T) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatalf("no interface addresses: %v", err)
	}
	for _, ia := range addrs {
		ipnet, ok := ia.(*net.IPNet)
		if !ok {
			continue
		}
		a, _ := netip.AddrFromSlice(ipnet.IP)
		target := netip.AddrPortFrom(a.Unmap(), 60001)
		if err := CheckTarget(target); err != nil {
			t.Errorf("CheckTarget(%v) = %v, want nil (an address of %v)", target, err, ipnet)
		}
	}
}

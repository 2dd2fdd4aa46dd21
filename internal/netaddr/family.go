package netaddr

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/gosh-term/gosh/internal/enum"
)

// Family says which addresses a name may resolve to, and in which order
// they are tried: mosh's --family (-4, -6) and ssh_config's AddressFamily.
type Family int

// The address families.
const (
	// AnyFamily accepts IPv4 and IPv6 addresses, in the resolver's order
	// (mosh --family=auto or all; ssh AddressFamily any).
	AnyFamily Family = iota
	// IPv4 accepts only IPv4 addresses (mosh -4, ssh AddressFamily inet).
	IPv4
	// IPv6 accepts only IPv6 addresses (mosh -6, ssh AddressFamily inet6).
	IPv6
	// PreferIPv4 accepts both, IPv4 ones first (mosh's default,
	// --family=prefer-inet).
	PreferIPv4
	// PreferIPv6 accepts both, IPv6 ones first (--family=prefer-inet6).
	PreferIPv6
)

var familyNames = enum.Names[Family]{
	List:    []string{AnyFamily: "any", IPv4: "inet", IPv6: "inet6", PreferIPv4: "prefer-inet", PreferIPv6: "prefer-inet6"},
	Aliases: map[string]Family{"auto": AnyFamily, "all": AnyFamily},
	Type:    "family",
	Bad:     "bad address family %[1]q (want inet, inet6, auto, all, prefer-inet or prefer-inet6)",
}

// String returns the family's name as [ParseFamily] accepts it.
func (f Family) String() string { return familyNames.String(f) }

// ParseFamily parses a family name: "inet", "inet6", "prefer-inet",
// "prefer-inet6", or "any", "auto" and "all" (the resolver's order).
func ParseFamily(s string) (Family, error) { return familyNames.Parse(s) }

// Set parses s into f (flag.Value).
func (f *Family) Set(s string) error { return familyNames.Set(f, s) }

// Type names the flag's value type in usage messages (pflag.Value).
func (f *Family) Type() string { return familyNames.Type }

// Only reports whether f admits a single family (IPv4 or IPv6).
func (f Family) Only() bool { return f == IPv4 || f == IPv6 }

// Match reports whether a is an address of family f.
func (f Family) Match(a netip.Addr) bool {
	switch f {
	case IPv4:
		return a.Unmap().Is4()
	case IPv6:
		return a.Unmap().Is6()
	}
	return a.IsValid()
}

// Order sorts addrs in place in f's order of preference (stable).
func (f Family) Order(addrs []netip.Addr) {
	first := func(a netip.Addr) int {
		switch {
		case f == PreferIPv4 && !a.Is4(), f == PreferIPv6 && a.Is4():
			return 1
		}
		return 0
	}
	slices.SortStableFunc(addrs, func(a, b netip.Addr) int { return cmp.Compare(first(a), first(b)) })
}

// network is the Go network name for resolving f: "ip", "ip4" or "ip6".
func (f Family) network() string {
	switch f {
	case IPv4:
		return "ip4"
	case IPv6:
		return "ip6"
	}
	return "ip"
}

// word is the family for error messages: "IPv4 ", "IPv6 " or "".
func (f Family) word() string {
	switch f {
	case IPv4:
		return "IPv4 "
	case IPv6:
		return "IPv6 "
	}
	return ""
}

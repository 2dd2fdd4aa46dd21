package netaddr

import "net"

// The host:port helpers and the closed-connection error of package net,
// for the packages that may not import net themselves (the session loops,
// whose sockets and listeners are injected: internal/deps_test.go).
var (
	// SplitHostPort is [net.SplitHostPort].
	SplitHostPort = net.SplitHostPort
	// JoinHostPort is [net.JoinHostPort].
	JoinHostPort = net.JoinHostPort
	// ErrClosed is [net.ErrClosed]: what a closed listener's Accept
	// returns, wrapped.
	ErrClosed = net.ErrClosed
)

package sshlink

import "gvisor.dev/gvisor/pkg/tcpip"

// The emulated network: two hosts on one IPv4 subnet, one NIC each.
var (
	// clientAddr is the client host's address, 10.0.0.1.
	clientAddr = tcpip.AddrFrom4([4]byte{10, 0, 0, 1})
	// serverAddr is the server host's address, 10.0.0.2.
	serverAddr = tcpip.AddrFrom4([4]byte{10, 0, 0, 2})
)

// Implementation constants of the TCP network.
const (
	// MTU is each link's maximum transmission unit in bytes (Ethernet's),
	// so TCP segments carry at most 1460 bytes of payload.
	MTU = 1500

	// congestionControl is the algorithm both stacks use: Linux's default.
	congestionControl = "cubic"

	// nicID names the single NIC of each stack.
	nicID tcpip.NICID = 1

	// prefixLen is the subnet's prefix length in bits (10.0.0.0/24).
	prefixLen = 24

	// outQueueLen is how many outbound packets a stack may queue for its
	// pump goroutine before it drops them. It is larger than any window
	// the tests or the benchmark produce, so that the only losses are the
	// link's.
	outQueueLen = 4096
)

// Implementation constants of the SSH pair.
const (
	// sshUser is the user name the client presents; the server ignores it.
	sshUser = "gosh-bench"

	// defaultCols and defaultRows size the terminal when the client sends
	// no pty-req.
	defaultCols, defaultRows = 80, 24
)

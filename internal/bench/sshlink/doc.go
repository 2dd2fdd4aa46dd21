// Package sshlink is the SSH baseline of "gosh bench typing": an SSH
// session over real TCP, both ends in one unprivileged process, across the
// same emulated packet links that gosh's own datagrams cross.
//
// # The network
//
// [NewNet] builds two userspace TCP/IP hosts with gVisor's network stack
// (only gvisor.dev/gvisor/pkg/tcpip and its subpackages):
//
//	  client 10.0.0.1                                 server 10.0.0.2
//	+------------------+      up   Link.Send(b)     +------------------+
//	| gVisor stack     | ---> pump ---> [link] ---> | gVisor stack     |
//	|   link/channel   |                  deliver   |   link/channel   |
//	|   NIC 1          | <--- [link] <--- pump <--- |   NIC 1          |
//	+------------------+ deliver    down            +------------------+
//	   Net.Dial                                         Net.Listen
//
// Each stack writes its outbound IPv4 packets into a link/channel
// endpoint; one pump goroutine per stack blocks reading that endpoint and
// hands every packet, as a fresh byte slice, to the [Link] for its
// direction. The link delivers it (after its delay, or never) by calling
// the deliver function it was built with, which injects the packet into
// the far stack. There is no link-layer header and no ARP: a packet is a
// whole IPv4 datagram of at most [MTU] bytes.
//
// TCP is configured like a Linux host's: SACK on, [Net.CongestionControl]
// set explicitly to "cubic" (Linux's default; gVisor's own default is
// "reno"), and RACK loss detection (gVisor's default, as on Linux).
// Nagle's algorithm is off on every endpoint (the stacks' TCPDelayEnabled
// option is set to false), which is what OpenSSH does for an interactive
// session by setting TCP_NODELAY: a keystroke leaves at once instead of
// waiting for the previous segment's acknowledgement.
//
// # The SSH pair
//
// [StartServer] serves SSH (golang.org/x/crypto/ssh) on a listener, with
// a freshly generated ed25519 host key and no client authentication: the
// server and its only client live in the same process for the length of a
// benchmark, so there is nothing to protect and [Dial] accepts any host
// key. A session's "pty-req", "env", "window-change" and "shell" requests
// run the configured program in a pseudo-terminal (internal/pty, so Unix
// only; elsewhere [StartServer] returns an error wrapping
// errors.ErrUnsupported). [Dial] opens one such session and exposes the
// terminal as [Client.Stdin] and [Client.Stdout].
//
// # Measuring echo
//
// A program run as "stty raw -echo; exec cat" echoes each byte from user
// space as soon as it arrives, like a shell's line editor, so the time
// from writing a key to [Client.Stdin] until it appears on [Client.Stdout]
// is one round trip of the emulated network plus SSH and pty processing.
// (Plain cat in a cooked terminal works too: the terminal echoes in the
// kernel, and the echo still crosses the network back.)
//
// # Where gVisor's TCP differs from Linux's
//
// Two differences show under loss. A retransmitted SYN or SYN-ACK keeps
// the timestamp of the first one, so when the handshake loses a packet,
// both ends take the time since the first SYN as the first round-trip
// sample (a second or more) and start with a retransmission timeout of
// several seconds, which decays over tens of round trips; Linux stamps
// each retransmission afresh. And an endpoint sends no SACK blocks once
// it has sent its FIN. A benchmark that wants the steady state can
// connect before it turns loss on.
//
// Older gVisor (before google/gvisor#13958, August 2026) also let CUBIC's
// per-ACK update lower the congestion window, which a run of congestion
// events (reordering, or late timers on a loaded machine) drove to zero:
// a sender with nothing in flight then never sent again. go.mod requires
// a gVisor with the fix, and TestStreamReordered fails without it.
//
// sshlink is an I/O package: its goroutines are the pumps, the server's
// accept loop and one set per connection and session. Close on [Net],
// [Server] and [Client] stops them.
package sshlink

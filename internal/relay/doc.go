// Package relay carries a session's UDP datagrams over a byte stream, for
// networks that block UDP: the gosh client runs "gosh server relay" on the
// server host through SSH, and the SSH channel's standard input and output
// become the path between the client and the server's UDP port.
//
//	gosh client                    SSH channel                 server host
//	[Conn] ── frames on stdin ─────────────────▶ [Serve] ── UDP ──▶ gosh server
//	[Conn] ◀─ frames on stdout ───────────────── [Serve] ◀─ UDP ─── gosh server
//
// The datagrams are the session's SSP datagrams, already sealed with the
// session key: the relay neither knows the key nor looks inside, and the
// SSH channel encrypts them once more on the way. The server sees every
// relayed datagram come from the relay's UDP socket and, as it does with
// any authenticated datagram, sends its replies there.
//
// # Framing
//
// Both directions carry the same frames, back to back: a 2-byte big-endian
// length, then that many bytes of datagram.
//
//	 0                   1
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 ...
//	+-------------------------------+-----------------------
//	|        length (uint16)        |  datagram (length bytes) ...
//	+-------------------------------+-----------------------
//
// A datagram holds at most [MaxDatagram] (65535) bytes, the most a UDP
// datagram can. A frame of length 0 carries no datagram: readers skip it,
// and a writer may send one as a keepalive. There is no other header, no
// version and no handshake; the stream ends when the channel closes.
// [AppendFrame] and [WriteFrame] write frames and a [Reader] reads them.
//
// # The two ends
//
// [Serve] is the server end, behind "gosh server relay": it forwards each
// frame it reads as one UDP datagram to the server's port, and frames each
// datagram it receives from there. It forwards only to an address of the
// host it runs on ([CheckTarget]), so that it cannot be made into a UDP
// forwarder to other hosts where the SSH server allows no forwarding, and
// only to a port its Allow accepts (by default one that only this user's
// UDP sockets hold, [OwnedPort]; gosh server relay also accepts the ports
// of the user's gosh sessions), so that it cannot reach the host's other
// UDP services. A
// datagram that cannot be sent (the server not listening for a moment) is
// lost, as it would be on UDP; SSP retransmits.
//
// [Conn] is the client end: a [net.PacketConn] over the channel's stdio,
// which the session sends on and reads from as it would a UDP socket.
//
// A stream is reliable and ordered, so datagrams on it are never lost or
// reordered, but one that is slow holds up those behind it (head-of-line
// blocking): the relay is a fallback for when UDP does not get through.
package relay

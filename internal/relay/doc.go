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
// and a writer may send one as a keepalive. The stream ends when the
// channel closes. [AppendFrame] and [WriteFrame] write frames and a
// [Reader] reads them.
//
// # The version frame
//
// Each end's first frame, in both directions, is the version frame
// ([AppendHello]): the 10 bytes "GOSH-RELAY" and the 2-byte big-endian
// [Version], 1. Each end writes its own without waiting for the other's,
// and reads the other's first ([Reader.ReadHello]); a first frame that is
// not a version frame (an end that predates it, or something that is no
// relay) or another version ends the stream with one line saying so.
// The frame is 12 bytes, shorter than any sealed datagram, so an older
// end that takes it for a datagram passes on something the session
// drops, and still gives a clear line: a new client against an older
// gosh server relay reads a datagram where the version frame should be,
// and an older client against a new relay gets the relay's refusal as
// the stream's end (what the relay said on its standard error).
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
// which the session sends on and reads from as it would a UDP socket. Like
// one, its WriteTo never blocks: a goroutine of its own writes the
// stream, a few datagrams wait for it ([WriteQueue]) and the others are
// dropped while the stream takes none (an SSH connection whose network
// went away), so that the session's loop goes on painting the screen and
// reading the escape key.
//
// A stream is reliable and ordered, so datagrams on it are never lost or
// reordered, but one that is slow holds up those behind it (head-of-line
// blocking): the relay is a fallback for when UDP does not get through.
package relay

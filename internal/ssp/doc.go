// Package ssp implements the State Synchronization Protocol of Mosh 1.4
// (the Mosh paper, section 2), wire-compatible with stock mosh-server and
// mosh-client: a datagram layer and a transport layer that keep the
// peer's copy of a state object in sync over an unreliable, roaming UDP
// path by sending idempotent diffs, skipping intermediate states.
//
// # Layers
//
//	session loop (internal/session)       owns everything below, one goroutine
//	 │   Current() mutated in place; Tick(now) → datagrams; Receive(now, d, from)
//	 ▼
//	Transport[L, R]            transport.go   pure core, no clock, no I/O
//	 ├─ sender[L]              sender.go      what to send, when, from which base
//	 ├─ receiver[R]            receiver.go    which states to keep, what applies
//	 ├─ Instruction            instruction.go protobuf codec (by hand, protowire)
//	 ├─ compressor             compress.go    zlib, 4 MiB inflate cap
//	 ├─ Fragmenter, Assembly   fragment.go    ids, budgets, reassembly
//	 └─ link                   link.go        seq, timestamps, RTT (rtt.go), roaming
//	     └─ sspcrypto.Session                 AES-128-OCB (internal/sspcrypto)
//	Conn                       conn.go        the only I/O: UDP sockets, readers, hops
//
// Only conn*.go reads the clock or starts goroutines. Everything else
// takes `now` and returns datagrams and a deadline; see [Transport] for
// the loop's contract.
//
// # Datagram layout
//
// Big-endian throughout (docs/protocol.md sections 2 to 4). Sizes in bytes.
//
//	 0               8                                        len-16      len
//	+---------------+-------------------------------------------+-----------+
//	| nonce tail    |  ciphertext of the plaintext below        | OCB tag   |
//	+---------------+-------------------------------------------+-----------+
//	 nonce tail: bit 63 = direction (0 to server, 1 to client), bits 0-62 =
//	 sequence number: one counter per process, from 0, never reset (port
//	 hops included). The 12-byte OCB nonce is 4 zero bytes + the tail.
//
//	plaintext:
//	 0       2       4               12      14
//	+-------+-------+---------------+-------+------------------------------+
//	| ts    | ts    | instruction   |F| num | fragment body: a slice of    |
//	|       | reply | id            | (15)  | zlib(Instruction)            |
//	+-------+-------+---------------+-------+------------------------------+
//	 ts: sender's clock in ms mod 65536, never 0xFFFF (0xFFFF = none).
//	 ts reply: the peer's last ts plus how long it was held; sent at most
//	 once, only within 1 s; else 0xFFFF.
//	 F: final fragment flag; num: fragment number from 0.
//
//	Instruction (TransportBuffers.Instruction, proto2), every field always
//	present and in this order, as Mosh writes it:
//	 08 protocol_version=2  10 old_num  18 new_num  20 ack_num
//	 28 throwaway_num  32 diff (UserMessage or HostMessage)  3A chaff (0-16
//	 random bytes)  [40 gosh_caps, gosh's field 8, only when non-zero]
//
// Budgets: a datagram is at most 1252 bytes over IPv4 and 1216 over IPv6
// (a 1280-byte path MTU; 500 after EMSGSIZE), so a fragment body is at
// most 1214 or 1178 bytes. Nothing longer than 2048 bytes is sent or
// accepted; an instruction inflates to at most 4 MiB.
//
// # Transport rules
//
// The sender keeps the states it sent: the oldest is the known receiver
// state (acknowledged), the newest the last sent; the assumed receiver
// state is the newest one that, like every unacknowledged state before
// it, went out less than RTO + 100 ms ago. Each frame is a diff from the
// assumed state (or from the known state when that is at most 100 bytes
// longer and under 1000 bytes: the prospective resend; or, with
// [Config.KnownStateProbability] λ, from the known state with probability
// λ). throwaway_num is the known state's number, so the receiver may forget
// everything older.
//
// Timing (docs/protocol.md section 7): a change is sent SEND_MINDELAY after it
// happens (8 ms on the server, 1 ms on the client) but no sooner than one
// frame interval, clamp(ceil(SRTT/2), 20 ms, 250 ms), after the previous
// frame; unacknowledged data is resent from the known state after
// RTO + 100 ms while the peer was heard within 10 s, else only with the
// heartbeat; a new state with a non-empty diff is acked within 100 ms;
// with nothing to say each side sends an empty instruction every 3 s. An
// ack, and a heartbeat, is a new state number with an empty diff. The
// RTT estimator is RFC 6298's (initial SRTT 1 s, RTTVAR 0.5 s), samples
// of 5 s or more ignored, RTO clamped to [50 ms, 1 s].
//
// The receiver keeps the states the peer may still diff from, applies an
// instruction only to the state named by old_num (on a clone: a bad diff
// never damages a held state), ignores what it cannot use, and acks the
// newest state it holds. Shutdown: the initiator sends state 2^64-1 every
// frame interval until it is acknowledged, or 16 tries or 10 s pass; the
// other side acks it once and may exit.
//
// Roaming: the server retargets to the source of an authentic datagram
// with a sequence number above every earlier one, and only then; it
// forgets the client after 40 s of silence. The client opens a new local
// port ([Conn.Hop]) when 10 s passed both since its last port choice and
// since the send time of its newest acknowledged state
// ([Transport.PortHopDue]).
//
// # Where gosh differs from Mosh
//
// Stock Mosh aborts on some authentic but malformed input (docs/protocol.md
// section 15); gosh drops and counts it ([Stats], [DropError]) and never
// sends it: a plaintext fragment under 10 bytes, an instruction that does
// not parse, a diff that does not apply, inconsistent fragments, a
// throwaway_num above old_num. A fragment of another instruction from a
// datagram older than the newest seen (a straggler or a replay) does not
// abandon an incomplete set that is still growing. Small instructions
// are deflated at level 1 or stored rather than at level 6 (any valid zlib
// stream is accepted). The server's 40 s detach happens at the first Tick
// after the limit instead of after one more send.
//
// # References
//
//   - K. Winstein, H. Balakrishnan, "Mosh: An Interactive Remote Shell for
//     Mobile Clients", USENIX ATC 2012, section 2 (SSP).
//   - docs/protocol.md in this repository, sections 2-8 and 12-15: the
//     wire format and timing rules, established from Mosh 1.4.0's
//     source and checked against its binaries.
//   - RFC 7253 (OCB), RFC 6298 (RTO), RFC 1950 and RFC 1951 (zlib,
//     DEFLATE), the protobuf encoding specification.
package ssp

// Package stream is a reliable, ordered, congestion-controlled byte
// stream over datagrams: the bulk channel that two gosh ends run beside
// SSP's state synchronisation for forwarded connections
// (docs/protocol.md section 12.6). It is a pure core: it takes the time
// as an argument, returns packets and deadlines, and does no I/O; the
// session seals its packets with the session's key and sequence numbers
// (internal/ssp, Transport.SealAux) and sends them on the session's
// socket.
//
// # Packets
//
// A packet is its number and frames, each at most once:
//
//	packet  = number:uvarint frame*
//	Ack     = 0x01 largest:uvarint delay:uvarint(µs) queue:uvarint(µs)
//	               extra:uvarint first:uvarint (gap:uvarint len:uvarint){extra}
//	Data    = 0x02 offset:uvarint length:uvarint bytes
//	Ping    = 0x03
//	Time    = 0x04 sent:uvarint(µs since the sender's stream started)
//
// Packet numbers count up from 0 in each direction and are never reused;
// a retransmission carries the lost bytes in a new packet, so every
// acknowledgement names one transmission. Ack frames are QUIC's: the
// largest number received, how long its acknowledgement was held, the
// run of numbers ending at it, then for each further run below, the
// count of missing numbers before it less one and its length less one;
// at most MaxAckRanges runs. Queue is the one-way queueing delay the
// receiver measured for the largest: its delay (arrival less the Time it
// carries, both clocks' offset included) above the least one seen. Data
// and Ping frames ask for an acknowledgement; an Ack alone does not.
//
// # Reliability
//
// The receiver acknowledges every second packet that asks, at once when
// one arrives out of order or twice, and any within MaxAckDelay. The
// sender declares a packet lost when three later packets are
// acknowledged, or nine eighths of a round trip passed since it was sent
// while a later one was acknowledged (RFC 9002), and sends its bytes
// again, less any that another packet delivered (selective
// acknowledgement): only what was lost goes twice. With nothing
// acknowledged for a probe timeout (the round trip, four deviations and
// the ack delay, doubling, at most maxProbeTimeout) it sends probes, so a
// stream resumes within a second of a path's return, however long the
// outage. A receiver takes bytes up to Window beyond the first it lacks.
//
// # Congestion control
//
// The screen comes first: its frames cross the same bottleneck, and a
// keystroke's echo must not wait behind the stream's data. The controller
// (cc.go) is delay-based and paced: it holds the queue the stream builds
// at the bottleneck near Config.Target (3 ms by default), measured one
// way, so that a transfer in the other direction does not count, while
// sending at the path's rate. Random loss does not slow it.
package stream

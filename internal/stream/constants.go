package stream

import "time"

// Protocol: what both ends of a stream assume.
const (
	// Window is how far beyond the first byte it has not received a
	// receiver takes stream bytes; a sender never sends beyond what the
	// peer acknowledged in order plus Window. It bounds what a receiver
	// holds out of order.
	Window = 4 << 20

	// MaxAckRanges bounds the ranges of one Ack frame; a receiver drops
	// a packet with more.
	MaxAckRanges = 32

	// MaxAckDelay is the longest a receiver holds an acknowledgement of
	// a packet that asks for one (unless a second such packet comes
	// first, which is acknowledged at once).
	MaxAckDelay = 10 * time.Millisecond

	// maxAckDelayField caps the delay and the queue a peer may claim in
	// an Ack frame, and maxTimeField a packet's send time (a stream of
	// 2^40 microseconds is 12 days old).
	maxAckDelayField = time.Second
	maxTimeField     = 1 << 40 * time.Microsecond

	// owdWindow is how long the least one-way delay stands as the
	// path's, without a queue (half of it to a whole: two buckets).
	owdWindow = 10 * time.Second
)

// Implementation.
const (
	// fullPacket is about the size of a full packet: an IPv4 datagram's
	// budget less the session's sealing (the windows below count in it).
	fullPacket = 1200

	// initialWindow over the round trip the session already measured is
	// the rate startup starts from; paced at startupGain times it, the
	// first round trip sends about 2.9 times this many bytes.
	initialWindow = 32 * fullPacket

	// minWindow is the least the congestion window falls to.
	minWindow = 4 * fullPacket

	// ackEvery: a receiver acknowledges at once every second packet
	// that asks for it.
	ackEvery = 2

	// packetThreshold and timeThreshold declare a packet lost (RFC 9002
	// section 6.1): three later packets acknowledged, or nine eighths of
	// the round trip since it was sent while a later one was.
	packetThreshold = 3
	timeThresholdN  = 9
	timeThresholdD  = 8

	// maxProbeTimeout bounds the probe timeout's exponential back-off,
	// so that a stream resumes within it after an outage of any length.
	maxProbeTimeout = time.Second

	// maxRecvRanges bounds the received packet-number ranges a receiver
	// remembers (and acknowledges): the newest.
	maxRecvRanges = MaxAckRanges

	// maxSegments bounds the runs of bytes a receiver holds out of
	// order; a packet that would need more is dropped unacknowledged.
	maxSegments = 4096

	// burstTime and burstPackets bound how far behind its pacing a
	// sender may fall and still catch up, sending at once what the pacing
	// let go since: the longer of the two, at the rate now. A loop's timer
	// fires late (by a millisecond on Linux, more on a loaded machine);
	// without the catching up each late packet would cost the rate its
	// lateness, and the rate, estimated from what was delivered, would
	// settle where the controller's gain only makes up for it (a third of
	// CS244's 3G link for a loop 3 ms late).
	burstTime    = 2 * time.Millisecond
	burstPackets = 2

	// minRTTWindow is how long the smallest round trip stands as the
	// path's delay without queueing.
	minRTTWindow = 10 * time.Second

	// bwRounds is how many round trips the delivery rate's maximum
	// spans.
	bwRounds = 10
)

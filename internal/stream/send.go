package stream

import (
	"sort"
	"time"
)

// sentPacket is what a sender remembers of a packet that asked for an
// acknowledgement, until it is acknowledged or lost.
type sentPacket struct {
	pn   uint64
	at   time.Time
	size int    // on the wire, overhead included
	off  uint64 // its data: [off, off+n)
	n    int
	// The delivery-rate state when it was sent (BBR's rate sample).
	delivered   uint64
	deliveredAt time.Time
	firstAt     time.Time
	appLimited  bool
	state       int8 // inFlight, acked, lost
	// The largest number of the Ack frame it carried, if it did (hasAck):
	// once it is acknowledged, the peer knows what that frame said.
	ackLargest uint64
	hasAck     bool
	sentAfter  uint64 // the controller's sent count after it
}

const (
	inFlight int8 = iota
	acked
	lost
)

// sender is the sending half of a stream: the bytes not yet
// acknowledged, the packets in flight, loss recovery, pacing and the
// congestion controller.
//
// sender is not safe for concurrent use.
type sender struct {
	cfg *Config

	buf     []byte // the bytes from base on (buf[head:])
	head    int
	base    uint64 // every byte below is acknowledged
	next    uint64 // the first byte never sent
	ackData ranges // bytes acknowledged beyond base
	resend  ranges // bytes lost, to send again

	nextPN       uint64
	pkts         []sentPacket // by packet number; the first may be done
	inflight     int          // bytes of packets in flight
	largestAcked uint64
	anyAcked     bool
	lastSentAt   time.Time // of the newest packet in flight
	lastAckAt    time.Time // when an acknowledgement last acknowledged something
	lossAt       time.Time
	ptoCount     int
	probes       int

	delivered       uint64
	deliveredAt     time.Time
	firstAt         time.Time
	appLimitedUntil uint64

	start    time.Time // the stream's clock starts here (packets' send times)
	rtt      rttStats
	cc       *controller
	nextSend time.Time // pacing
	ccSince  time.Time // when the congestion control started again (silence, a new path)
	// The largest packet number of ours that an Ack frame the peer
	// received named (ackSeen: there is one); the receiver need not name
	// the packets below it again.
	ackSeenLargest uint64
	ackSeen        bool
	maxSize        int // the largest packet sent, overhead included
}

func (s *sender) init(cfg *Config, now time.Time) {
	s.cfg = cfg
	s.rtt = rttStats{srtt: cfg.RTT, rttvar: cfg.RTT / 2}
	s.cc = newController(cfg.Target, cfg.RTT)
	s.deliveredAt, s.firstAt, s.start = now, now, now
}

// buffered returns the bytes written and not acknowledged in order.
func (s *sender) buffered() int { return len(s.buf) - s.head }

// end returns the offset after the last byte written.
func (s *sender) end() uint64 { return s.base + uint64(s.buffered()) }

func (s *sender) write(b []byte) { s.buf = append(s.buf, b...) }

// bytes returns the buffered bytes [off, off+n).
func (s *sender) bytes(off uint64, n int) []byte {
	i := s.head + int(off-s.base)
	return s.buf[i : i+n]
}

// fill puts into p what may go at now: data (lost bytes first, then new
// ones) within room bytes, if the window and the pacing allow or a probe
// is owed; a Ping for a probe with nothing to carry.
func (s *sender) fill(now time.Time, p *Packet, room int, st *Stats) {
	probe := s.probes > 0
	// The pacing never waits longer than two packets take at the rate now:
	// a gap set at a rate since raised would hold the stream back.
	if gap := now.Add(s.gap(2 * (room + s.cfg.Overhead))); s.nextSend.After(gap) {
		s.nextSend = gap
	}
	if s.inflight == 0 {
		s.nextSend = minTime(s.nextSend, now) // after a pause, a request goes at once
	}
	if !probe && (!s.windowOpen() || now.Before(s.nextSend)) {
		return
	}
	if room <= 0 {
		return
	}
	off, n, again := s.pick(room)
	if n == 0 && probe {
		off, n, again = s.oldest(room)
	}
	switch {
	case n > 0:
		p.HasData, p.Data = true, Data{Offset: off, Bytes: s.bytes(off, n)}
		st.BytesSent += uint64(n)
		if again {
			st.BytesRetransmitted += uint64(n)
		}
	case probe:
		p.Ping = true
	default:
		// Short of data with room in the window: rate samples until
		// what is in flight now is delivered understate the path.
		s.appLimitedUntil = s.delivered + uint64(s.inflight) + 1
	}
}

// pick chooses the next data to send: lost bytes first, then new ones
// within the peer's window.
func (s *sender) pick(room int) (off uint64, n int, again bool) {
	s.resend.dropBelow(s.base)
	if sp, ok := s.resend.first(); ok {
		n = int(min(uint64(room), sp.hi-sp.lo))
		s.resend.remove(sp.lo, sp.lo+uint64(n))
		return sp.lo, n, true
	}
	limit := min(s.end(), s.base+Window)
	if s.next < limit {
		n = int(min(uint64(room), limit-s.next))
		off = s.next
		s.next += uint64(n)
	}
	return off, n, false
}

// oldest chooses, for a probe, the data of the oldest packet in flight.
func (s *sender) oldest(room int) (off uint64, n int, again bool) {
	for i := range s.pkts {
		p := &s.pkts[i]
		if p.state == inFlight && p.n > 0 && p.off+uint64(p.n) > s.base {
			off = max(p.off, s.base)
			return off, min(room, int(p.off+uint64(p.n)-off)), true
		}
	}
	return 0, 0, false
}

// sent records packet p, of size bytes, sent at now.
func (s *sender) sent(now time.Time, p *Packet, size int, st *Stats) {
	s.nextPN++
	if !p.elicits() {
		return
	}
	size += s.cfg.Overhead
	s.maxSize = max(s.maxSize, size)
	if s.inflight == 0 {
		s.firstAt, s.deliveredAt = now, now // the rate sample starts afresh after idle
	}
	s.cc.onSent(size)
	sp := sentPacket{pn: p.Number, at: now, size: size, delivered: s.delivered, deliveredAt: s.deliveredAt,
		firstAt: s.firstAt, appLimited: s.appLimitedUntil > s.delivered, sentAfter: s.cc.sent}
	if p.HasData {
		sp.off, sp.n = p.Data.Offset, len(p.Data.Bytes)
	}
	sp.ackLargest, sp.hasAck = p.Ack.Largest, p.HasAck
	s.pkts = append(s.pkts, sp)
	s.inflight += size
	s.lastSentAt = now
	if s.probes > 0 {
		s.probes--
		return // probes are not paced
	}
	s.nextSend = maxTime(s.nextSend, now.Add(-s.slack())).Add(s.gap(size))
}

// slack returns how far behind its pacing the sender may fall and still
// catch up (burstTime, burstPackets).
func (s *sender) slack() time.Duration {
	return max(burstTime, s.gap(burstPackets*(fullPacket+s.cfg.Overhead)))
}

// gap returns how long size bytes take at the pacing rate.
func (s *sender) gap(size int) time.Duration {
	return time.Duration(float64(size) / max(s.cc.rate, 1) * 1e9)
}

// onAck processes an acknowledgement received at now.
func (s *sender) onAck(now time.Time, a *Ack, st *Stats) {
	if a.Largest >= s.nextPN {
		st.BadAcks++ // names a packet never sent
		return
	}
	var newest *sentPacket
	ackedBytes := 0
	for _, r := range a.Ranges {
		i := sort.Search(len(s.pkts), func(i int) bool { return s.pkts[i].pn >= r.Lo })
		for ; i < len(s.pkts) && s.pkts[i].pn <= r.Hi; i++ {
			p := &s.pkts[i]
			if p.state == acked {
				continue
			}
			if p.state == inFlight {
				s.inflight -= p.size
			} else {
				st.Spurious++
			}
			p.state = acked
			ackedBytes += p.size
			if p.hasAck && (!s.ackSeen || p.ackLargest > s.ackSeenLargest) {
				s.ackSeenLargest, s.ackSeen = p.ackLargest, true
			}
			s.delivered += uint64(p.size)
			s.deliveredAt = now
			// A probe's bytes may be below base already (the packet it
			// copied was acknowledged first): only those beyond count.
			if end := p.off + uint64(p.n); p.n > 0 && end > s.base {
				s.ackData.add(max(p.off, s.base), end)
				s.resend.remove(p.off, end)
			}
			if newest == nil || p.pn > newest.pn {
				newest = p
			}
		}
	}
	if newest == nil {
		return
	}
	if !s.anyAcked || a.Largest > s.largestAcked {
		s.largestAcked, s.anyAcked = a.Largest, true
	}
	timed := newest.pn == a.Largest // the Ack's delay and queue are newest's
	// The peer measures the queue of packets about as large as the largest
	// (recv.go); a full packet's arrival is known to it. For a smaller one
	// the Ack repeats the last full packet's queue.
	full := timed && newest.size+owdSizeSlack >= s.maxSize
	if timed {
		s.rtt.update(now.Sub(newest.at), a.Delay)
		s.cc.onRTT(now, s.rtt.latest, s.rtt.srtt)
		s.cc.onQueue(now, newest.at, a.Queue, full)
	}
	if s.ptoCount >= 2 && now.Sub(s.lastAckAt) > max(silentPath, 4*s.rtt.srtt) {
		// The path was silent through probe timeouts (an outage, a
		// move): what the controller knew of it may no longer hold, and
		// its samples across the silence are meaningless. Start again.
		s.cc.reset(s.rtt.srtt)
		s.ccSince = now
	}
	s.ptoCount, s.lastAckAt = 0, now
	s.advance()
	rs := s.rateSample(now, newest)
	rs.acked, rs.empty = ackedBytes, s.inflight == 0
	if full {
		rs.measured, rs.left, rs.sentAfter = true, newest.at.Add(a.Queue), newest.sentAfter
	}
	if full && a.Queue >= busyQueue {
		rs.arrival, rs.busy = newest.at.Sub(s.start)+a.Queue, true
	}
	s.detectLost(now, st)
	s.cc.onAck(rs)
	s.trim()
}

// rateSample is the delivery rate up to now of the newest packet
// acknowledged (BBR's: over the longer of its send and ack intervals).
func (s *sender) rateSample(now time.Time, p *sentPacket) sample {
	s.firstAt = p.at
	rs := sample{prior: p.delivered, delivered: s.delivered, appLimited: p.appLimited, now: now, sentAt: p.at}
	interval := max(p.at.Sub(p.firstAt), now.Sub(p.deliveredAt))
	if interval >= time.Millisecond/10 && s.delivered > p.delivered {
		rs.rate = float64(s.delivered-p.delivered) / interval.Seconds()
	}
	return rs
}

// advance moves base past the bytes acknowledged in order, freeing them.
func (s *sender) advance() {
	sp, ok := s.ackData.first()
	if !ok || sp.lo > s.base || sp.hi <= s.base {
		return
	}
	n := int(sp.hi - s.base)
	s.head += n
	s.base = sp.hi
	s.ackData.dropBelow(s.base)
	s.resend.dropBelow(s.base)
	if s.head == len(s.buf) {
		s.buf, s.head = s.buf[:0], 0
	} else if s.head > 64<<10 && s.head > len(s.buf)/2 {
		s.buf = append(s.buf[:0], s.buf[s.head:]...)
		s.head = 0
	}
}

// detectLost declares lost the packets in flight sent before the largest
// acknowledged one by packetThreshold packets or by the time threshold,
// and arms the loss timer for the others (RFC 9002 section 6.1).
func (s *sender) detectLost(now time.Time, st *Stats) {
	s.lossAt = time.Time{}
	if !s.anyAcked {
		return
	}
	delay := max(s.rtt.srtt, s.rtt.latest) * timeThresholdN / timeThresholdD
	delay = max(delay, time.Millisecond)
	lostBytes := 0
	for i := range s.pkts {
		p := &s.pkts[i]
		if p.pn >= s.largestAcked {
			break
		}
		if p.state != inFlight {
			continue
		}
		if s.largestAcked >= p.pn+packetThreshold || !now.Before(p.at.Add(delay)) {
			p.state = lost
			s.inflight -= p.size
			if !p.at.Before(s.ccSince) {
				lostBytes += p.size // what the controller sent: older losses (an outage's) are not its path's
			}
			st.PacketsLost++
			s.lose(p)
			continue
		}
		if t := p.at.Add(delay); s.lossAt.IsZero() || t.Before(s.lossAt) {
			s.lossAt = t
		}
	}
	if lostBytes > 0 {
		s.cc.onLoss(lostBytes)
	}
}

// lose queues the bytes of lost packet p that are not acknowledged.
func (s *sender) lose(p *sentPacket) {
	lo, hi := max(p.off, s.base), p.off+uint64(p.n)
	for lo < hi {
		i := s.ackData.search(lo + 1)
		if i < len(s.ackData.r) && s.ackData.r[i].lo <= lo {
			lo = s.ackData.r[i].hi // acknowledged from here
			continue
		}
		end := hi
		if i < len(s.ackData.r) && s.ackData.r[i].lo < end {
			end = s.ackData.r[i].lo
		}
		s.resend.add(lo, end)
		lo = end
	}
}

// trim forgets the packets at the front that are no longer in flight.
func (s *sender) trim() {
	k := 0
	for k < len(s.pkts) && s.pkts[k].state != inFlight {
		k++
	}
	if k > 0 {
		s.pkts = append(s.pkts[:0], s.pkts[k:]...)
	}
}

// pto returns the probe timeout after ptoCount back-offs.
func (s *sender) pto() time.Duration {
	d := s.rtt.srtt + max(4*s.rtt.rttvar, time.Millisecond) + MaxAckDelay
	for range s.ptoCount {
		d *= 2
		if d >= maxProbeTimeout {
			break
		}
	}
	return min(d, maxProbeTimeout)
}

// timers runs the loss and probe timeouts due at now.
func (s *sender) timers(now time.Time, st *Stats) {
	if !s.lossAt.IsZero() && !now.Before(s.lossAt) {
		s.detectLost(now, st)
		s.trim()
	}
	if s.inflight > 0 && s.probes == 0 && !now.Before(s.lastSentAt.Add(s.pto())) {
		s.ptoCount++
		s.probes = 2
		st.Probes++
	}
}

// deadline returns when the sender next has something to do without an
// event: a loss or probe timeout, or the pacing of data waiting to go.
func (s *sender) deadline() time.Time {
	var d time.Time
	add := func(t time.Time) {
		if !t.IsZero() && (d.IsZero() || t.Before(d)) {
			d = t
		}
	}
	add(s.lossAt)
	if s.inflight > 0 {
		add(s.lastSentAt.Add(s.pto()))
	}
	if s.waiting() > 0 && s.windowOpen() {
		add(s.nextSend)
	}
	return d
}

// waiting returns how many bytes wait to go, up to a full packet: lost
// ones, else new ones within the peer's window.
func (s *sender) waiting() int {
	var n uint64
	if sp, ok := s.resend.first(); ok {
		n = sp.hi - sp.lo
	}
	if limit := min(s.end(), s.base+Window); s.next < limit {
		n += limit - s.next
	}
	return int(min(n, fullPacket))
}

// windowOpen reports whether the congestion window lets the next packet
// go: what waits, up to a full packet, so that a small message is not
// held back for the room a full one would need. (Poll and NextDeadline
// ask the same question, so that a deadline never comes that Poll
// refuses.)
func (s *sender) windowOpen() bool {
	return s.inflight+s.waiting()+s.cfg.Overhead <= s.cc.cwnd
}

// pathChanged starts the congestion control again on a new path.
func (s *sender) pathChanged(now time.Time) {
	s.cc.reset(s.rtt.srtt)
	s.nextSend, s.ccSince = now, now
}

// busyQueue is the least queueing delay a packet reported that shows the
// bottleneck busy when it arrived.
const busyQueue = time.Millisecond

// silentPath is how long without an acknowledgement, probes going
// unanswered, makes the congestion control start again.
const silentPath = 2 * time.Second

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// rttStats estimates the round trip as RFC 9002 section 5 does.
type rttStats struct {
	srtt, rttvar, latest, min time.Duration
	sampled                   bool
}

// update folds in a sample whose acknowledgement the peer held delay.
func (r *rttStats) update(sample, delay time.Duration) {
	if sample <= 0 {
		sample = time.Microsecond
	}
	r.latest = sample
	if !r.sampled || sample < r.min {
		r.min = sample
	}
	adj := sample
	if sample-delay >= r.min {
		adj = sample - delay
	}
	if !r.sampled {
		r.srtt, r.rttvar, r.sampled = adj, adj/2, true
		return
	}
	d := r.srtt - adj
	if d < 0 {
		d = -d
	}
	r.rttvar = (3*r.rttvar + d) / 4
	r.srtt = (7*r.srtt + adj) / 8
}

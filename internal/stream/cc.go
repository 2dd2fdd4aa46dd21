package stream

import "time"

// The congestion controller's modes.
const (
	modeStartup = iota // grow the rate by startupGain a round trip until a queue forms
	modeDrain          // empty the queue that startup built
	modeCruise         // hold the bottleneck's queue near the target delay
)

const (
	startupGain = 2.89 // 2/ln 2: the rate doubles each round trip
	drainGain   = 0.5
	cruiseCwnd  = 2.0 // the window is a safety, not the control: the rate is
	maxCruise   = 1.25
	minCruise   = 0.5
	// plateauGrowth and plateauRounds end startup on a path that has no
	// queue to show (a shallow buffer that drops instead).
	plateauGrowth = 1.25
	plateauRounds = 3
	// idleRounds: in cruise, this many round trips in a row with almost no
	// queue and the sender not short of data mean that the path can carry
	// more than the rate found: back to startup.
	idleRounds = 1 << 30 // never: cruise's gain finds a faster path itself
	// quietRounds: after this many such round trips cruise probes at
	// maxCruise until a queue shows.
	quietRounds = 2
	// startupExit is the least queue that ends startup: in its first
	// round trips a sample comes every few tens of milliseconds, and a
	// path's jitter (EV-DO's 0 to 10 ms each way) alone would pass a
	// smaller target.
	startupExit = 25 * time.Millisecond
	// Cruise's dips (controller.dipping): every dipEvery, within half the
	// peer's owdWindow so that each of its windows holds a delay without
	// a queue, the rate falls to dipGain for dipTargets times the target
	// or dipPackets packets' time, whichever is longer.
	dipEvery   = 4 * time.Second
	dipGain    = 0.5
	dipTargets = 8
	dipPackets = 4
	// heavyLoss is the loss, in a round trip, that the controller takes
	// for an overflowing queue rather than the path's random loss.
	heavyLoss = 0.2
)

// controller is the stream's congestion control: delay-based and paced,
// so that the screen's frames, which share the bottleneck, find its
// queue short. It estimates the path's rate as the largest delivery rate
// of the last bwRounds round trips and its round trip as the smallest of
// the last minRTTWindow (both as in BBR), and the queue on the way to
// the peer from the one-way delays the peer measures: each packet
// carries its send time, and the peer reports how much longer than the
// shortest it has seen the packet took (LEDBAT's signal, blind to the
// queue of the way back, which the peer's own stream may fill). The
// queue is the least of those reports over the last half round trip. In cruise
// it sends at the estimated rate times a gain that moves the queue
// toward the target delay within about two round trips: above 1 while
// the queue is shorter, below while it is longer. Random loss, which a
// cellular or Wi-Fi link has without any queue, changes nothing; a
// round trip that loses a fifth of what it sent lowers the rate.
//
// controller is not safe for concurrent use.
type controller struct {
	target time.Duration // the queueing delay to hold
	mode   int

	srtt     time.Duration
	minRTT   time.Duration
	minRTTAt time.Time
	// The least queueing delay the peer reported in the current and the
	// previous bucket of half the standing window.
	curQ, prevQ       time.Duration
	haveCur, havePrev bool
	bucketAt          time.Time

	bw       [bwRounds]float64 // the largest delivery rate of each of the last rounds
	bwSlot   int
	seedRate float64 // bytes/s before any delivery sample
	// lastRate is what the last round trip delivered, per second.
	lastRate   float64
	delivered  uint64    // the delivered count of the latest acknowledgement
	roundAt    time.Time // when the current round started
	roundStart uint64    // the delivered count then
	roundSent  time.Time // when the packet that ended the previous round was sent
	drainRate  float64   // the most a round of drain delivered
	// The bottleneck's rate while drain empties its queue: the bytes
	// delivered since an anchor over the time they took to arrive at the
	// peer (their send times plus the queueing delays the peer reported;
	// the acknowledgements' own timing, bunched on a loaded way back,
	// would overstate it).
	busyAt   time.Duration // the anchor's arrival, in the sender's stream clock
	busyFrom uint64        // the delivered count then
	haveBusy bool
	busyRate float64
	// The latest packet whose queue the peer measured, in drain (lastBusy:
	// when it left the bottleneck, as sample.left; lastSent: the sent
	// count after it), and sent, the bytes sent so far: while drain
	// empties the queue, what was sent after that packet is still queued,
	// leaving at busyRate (queueNow). The peer's reports of the queue come a one-way
	// delay and the way back's queue late, and drain waiting for them
	// would leave the bottleneck idle that long.
	lastBusy  time.Time
	lastSent  uint64
	haveLast  bool
	lastEmpty bool // that packet met no queue
	empty     bool // nothing is in flight: no queue of ours stands
	sent      uint64
	// fresh: the queue the peer reports matters only for packets sent
	// from then on (drain ended on queueNow: earlier reports are of the
	// queue it emptied).
	fresh time.Time

	// Rounds: one ends when a packet sent after the previous end is
	// acknowledged (delivered counts bytes acknowledged).
	roundEnd   uint64
	rounds     uint64
	roundLimit bool // some sample of this round was short of data
	roundAcked int
	roundLost  int
	fullBW     float64
	fullCount  int
	quietCount int
	roundQ     time.Duration // the peer's queue reports this round: their sum
	roundQN    int           // and count
	// rr are the delivery rates of the last round trips, each over the
	// whole round: cruise's estimate of the path's rate is their
	// largest, which single samples' noise does not bias up as it does
	// the largest of those.
	rr [bwRounds]float64

	// Cruise lowers its rate for a moment every dipEvery (dipAt), so
	// that the bottleneck's queue empties and the peer sees the path's
	// one-way delay without it again: a queue that never empties would
	// become, window after window, part of the delay the peer measures
	// from (owdWindow), and grow unseen.
	now      time.Time // of the latest acknowledgement
	dipAt    time.Time // when the next dip starts
	dipUntil time.Time

	rate float64 // pacing rate, bytes per second
	cwnd int
}

// newController returns a controller in startup, for a path whose round
// trip is about srtt.
func newController(target, srtt time.Duration) *controller {
	c := &controller{target: target}
	c.reset(srtt)
	return c
}

// reset starts again on a path of round trip srtt (the path changed).
func (c *controller) reset(srtt time.Duration) {
	*c = controller{target: c.target, srtt: srtt, sent: c.sent}
	c.seedRate = float64(initialWindow) / max(srtt, time.Millisecond).Seconds()
	c.update()
}

// bandwidth returns the estimated rate of the path in bytes per second.
func (c *controller) bandwidth() float64 {
	m := 0.0
	for _, b := range c.bw {
		m = max(m, b)
	}
	if c.mode == modeStartup {
		m = max(m, c.seedRate)
	}
	return m
}

// roundBW returns the largest delivery rate of the last round trips,
// each over its whole round (0 before a round ended).
func (c *controller) roundBW() float64 {
	m := 0.0
	for _, r := range c.rr {
		m = max(m, r)
	}
	return m
}

// queue returns the standing queueing delay: the least the peer
// reported over the last half round trip or so.
func (c *controller) queue() time.Duration {
	switch {
	case !c.haveCur && !c.havePrev:
		return 0
	case !c.havePrev:
		return c.curQ
	case !c.haveCur:
		return c.prevQ
	}
	return min(c.curQ, c.prevQ)
}

// onRTT folds in a round-trip sample taken at now; srtt is the smoothed
// round trip after it.
func (c *controller) onRTT(now time.Time, rtt, srtt time.Duration) {
	c.srtt = srtt
	if c.minRTT == 0 || rtt <= c.minRTT || now.Sub(c.minRTTAt) > minRTTWindow {
		c.minRTT, c.minRTTAt = rtt, now
	}
	if c.mode == modeStartup {
		// The first round trip's rate is the initial window over the
		// path's round trip, as measured: the one the stream started with
		// may be a guess (a session's first, before any sample, is 1 s).
		c.seedRate = float64(initialWindow) / max(c.minRTT, time.Millisecond).Seconds()
	}
}

// onQueue folds in the queueing delay the peer measured, at now, on the
// way to it (the one-way delay of a packet above the least it saw), for a
// packet sent at sentAt; measured false: the peer did not measure it (a
// small packet), and q is stale.
func (c *controller) onQueue(now, sentAt time.Time, q time.Duration, measured bool) {
	c.now = now
	if !measured || sentAt.Before(c.fresh) {
		c.update()
		return
	}
	half := max(c.srtt/4, time.Millisecond) // the standing window is half a round trip
	if c.mode == modeStartup {
		half = max(c.srtt/16, time.Millisecond)
	}
	if now.Sub(c.bucketAt) >= half {
		c.prevQ, c.havePrev = c.curQ, c.haveCur
		c.haveCur, c.bucketAt = false, now
	}
	if !c.haveCur || q < c.curQ {
		c.curQ, c.haveCur = q, true
	}
	c.roundQ += q
	c.roundQN++
	c.update()
}

// sample is what an acknowledgement tells the controller.
type sample struct {
	rate       float64 // delivery rate, bytes per second; 0 for none
	appLimited bool    // the sender was short of data when it sent the packet
	prior      uint64  // the delivered count when the packet was sent
	delivered  uint64  // the delivered count now
	acked      int     // bytes newly acknowledged
	now        time.Time
	sentAt     time.Time // when the packet was sent
	// arrival is when the packet reached the peer, in the sender's stream
	// clock less the path's base delay; busy says it is known (a full
	// packet, whose queueing delay the peer reported) and that it met a
	// queue at the bottleneck.
	arrival time.Duration
	busy    bool
	// With measured (a full packet's queue, reported): when the packet
	// left the bottleneck, in the sender's clock less the path's base
	// delay, and the sent count after it.
	measured  bool
	empty     bool // nothing is in flight now
	left      time.Time
	sentAfter uint64
}

// onAck folds in an acknowledgement.
func (c *controller) onAck(s sample) {
	c.now, c.delivered, c.empty = s.now, s.delivered, s.empty
	c.roundAcked += s.acked
	if c.mode == modeDrain && s.busy {
		switch {
		case !c.haveBusy:
			c.busyAt, c.busyFrom, c.haveBusy = s.arrival, s.delivered, true
		case s.delivered >= c.busyFrom+busyBytes && s.arrival > c.busyAt:
			c.busyRate = float64(s.delivered-c.busyFrom) / (s.arrival - c.busyAt).Seconds()
		}
	}
	if c.mode == modeDrain && s.measured && (!c.haveLast || s.left.After(c.lastBusy)) {
		c.lastBusy, c.lastSent, c.haveLast, c.lastEmpty = s.left, s.sentAfter, true, !s.busy
	}
	c.roundLimit = c.roundLimit || s.appLimited
	if s.rate > 0 && (!s.appLimited || s.rate > c.bandwidth()) {
		c.bw[c.bwSlot] = max(c.bw[c.bwSlot], s.rate)
	}
	if s.prior >= c.roundEnd && s.delivered > c.roundEnd {
		c.roundEnd = s.delivered
		// Over the longer of the round's ack and send intervals: acks that
		// come bunched (the way back's queue draining) overstate it.
		// In drain the queue keeps the bottleneck busy all round, and the
		// acks come at its rate, however slowly the stream sends.
		interval := max(s.now.Sub(c.roundAt), s.sentAt.Sub(c.roundSent))
		if c.mode == modeDrain {
			interval = s.now.Sub(c.roundAt)
		}
		if !c.roundAt.IsZero() && interval > 0 {
			c.lastRate = float64(s.delivered-c.roundStart) / interval.Seconds()
			c.rr[c.bwSlot] = max(c.rr[c.bwSlot], c.lastRate) // cruise's seed may be there
			if c.mode == modeDrain {
				c.drainRate = max(c.drainRate, c.lastRate)
			}
		}
		c.roundAt, c.roundStart, c.roundSent = s.now, s.delivered, s.sentAt
		c.endRound()
	}
	c.update()
}

// onSent counts size bytes sent.
func (c *controller) onSent(size int) { c.sent += uint64(size) }

// queueNow estimates, in drain, the bottleneck's queue now: what was
// sent after the latest packet whose queue the peer measured, at the
// bottleneck's rate from then on; 0 when it must have emptied; ok false
// while unknown.
func (c *controller) queueNow() (time.Duration, bool) {
	rate := c.busyRate
	if rate <= 0 && c.lastEmpty {
		// The queue was empty when the packet arrived: at most what was
		// sent since then stands there, at about the rate estimated.
		rate = c.bandwidth()
	}
	if !c.haveLast || rate <= 0 {
		return 0, false
	}
	left := c.lastBusy.Add(time.Duration(float64(c.sent-c.lastSent) / rate * 1e9))
	return max(0, left.Sub(c.now)), true
}

// onLoss counts bytes declared lost.
func (c *controller) onLoss(bytes int) { c.roundLost += bytes }

// endRound runs once a round trip: the mode changes.
func (c *controller) endRound() {
	c.rounds++
	bw := c.bandwidth()
	heavy := c.roundLost > 2*fullPacket && float64(c.roundLost) > heavyLoss*float64(c.roundLost+c.roundAcked)
	switch {
	case heavy:
		for i := range c.bw {
			c.bw[i] *= 0.75
			c.rr[i] *= 0.75
		}
		if c.mode == modeStartup {
			c.drain()
		}
	case c.mode == modeStartup && !c.roundLimit:
		if bw >= c.fullBW*plateauGrowth {
			c.fullBW, c.fullCount = bw, 0
		} else if c.fullCount++; c.fullCount >= plateauRounds {
			c.drain()
		}
	case c.mode == modeCruise:
		if c.roundQN > 0 && c.roundQ/time.Duration(c.roundQN) < c.target/4 && !c.roundLimit {
			c.quietCount++
		} else {
			c.quietCount = 0
		}
		if c.quietCount >= idleRounds {
			c.mode, c.fullBW, c.fullCount, c.quietCount = modeStartup, 0, 0, 0
			c.seedRate = c.roundBW()
		}
	}
	// A round the sender was short of data for says little of the path
	// (its rates are what the sender had), unless a queue formed: the
	// estimates' windows count only rounds that tested the path, so that
	// a stream that carries requests now and then keeps the rate it found
	// and sends them at once. (The queue must have been measured this
	// round: a report of another round's is stale, and a small packet's
	// carries the last full one's.)
	if !c.roundLimit || c.roundQN > 0 && c.queue() >= c.target {
		c.bwSlot = (c.bwSlot + 1) % bwRounds
		c.bw[c.bwSlot], c.rr[c.bwSlot] = 0, 0
	}
	c.roundLimit, c.roundAcked, c.roundLost = false, 0, 0
	c.roundQ, c.roundQN = 0, 0
}

// dipping reports whether cruise lowers its rate now to empty the
// queue, starting a dip every dipEvery; a dip lasts long enough to
// empty what the target lets stand and to send a few packets into the
// empty queue at rate bw.
func (c *controller) dipping(bw float64) bool {
	switch {
	case c.now.IsZero():
		return false
	case c.dipAt.IsZero():
		c.dipAt = c.now.Add(dipEvery)
	case !c.now.Before(c.dipAt):
		d := max(dipTargets*c.target, time.Duration(dipPackets*fullPacket/max(bw, 1)*1e9))
		c.dipAt, c.dipUntil = c.now.Add(dipEvery), c.now.Add(d)
	}
	return c.now.Before(c.dipUntil)
}

// drain starts draining the queue startup built.
func (c *controller) drain() {
	c.mode, c.drainRate = modeDrain, 0
	c.haveBusy, c.busyRate = false, 0
}

// drained reports whether drain's estimate of the queue now (queueNow)
// is down to half the target.
func (c *controller) drained() bool {
	q, ok := c.queueNow()
	return c.empty || ok && q <= c.target/2
}

// busyBytes is the least a bottleneck's rate is measured over.
const busyBytes = 8 * fullPacket

// update sets the mode's rate and window from the estimates.
func (c *controller) update() {
	q := c.queue()
	switch {
	case c.mode == modeStartup && q > max(c.target, startupExit):
		c.drain()
	case c.mode == modeDrain && (q <= c.target/2 || c.drained()):
		// Cruise starts from the bottleneck's rate while it drained,
		// else what a round of drain delivered, or three quarters of the
		// largest rate startup measured (inflated by the bunched acks of
		// its burst), whichever is more.
		if q > c.target/2 {
			// Drained by the estimate: the reports still to come are of
			// the queue drain emptied.
			c.fresh, c.haveCur, c.havePrev = c.now, false, false
			q = 0
		}
		c.mode, c.quietCount = modeCruise, 0
		c.rr = [bwRounds]float64{}
		// The round under way began in startup: its rate is the burst's,
		// not the path's. The first of cruise begins with what it sends.
		c.roundEnd, c.roundAt = c.delivered, time.Time{}
		c.rr[c.bwSlot] = max(c.drainRate, 0.75*c.bandwidth())
		if c.busyRate > 0 {
			c.rr[c.bwSlot] = c.busyRate
		}
		if c.rr[c.bwSlot] <= 0 {
			c.rr[c.bwSlot] = c.seedRate // no sample yet: the first round trip's rate
		}
	}
	// The gain's time constant is the path's round trip without its
	// queue: a round trip swollen by the queue would weaken the
	// correction as the queue grows.
	bw, rtt := c.bandwidth(), max(c.minRTT, time.Millisecond)
	if c.minRTT == 0 {
		rtt = max(c.srtt, time.Millisecond)
	}
	gain, cwndGain := startupGain, startupGain
	switch c.mode {
	case modeDrain:
		gain, cwndGain = drainGain, cruiseCwnd
	case modeCruise:
		// Down gently (the queue is measured a round trip late), up
		// faster while there is almost none (the path is not full).
		k := 2 * rtt
		switch {
		case q < c.target/4:
			k = rtt / 2
		case q < c.target/2:
			k = rtt
		}
		gain = 1 + float64(c.target-q)/float64(k)
		if c.quietCount >= quietRounds && q < c.target/4 {
			// Rounds in a row with data to send and almost no queue: the
			// rate estimate is below the path's (it was measured while
			// the stream was short of data), and the gain above would
			// take tens of round trips to find it.
			gain = maxCruise
		}
		gain, cwndGain = min(max(gain, minCruise), maxCruise), cruiseCwnd
		if r := c.roundBW(); r > 0 {
			bw = r
		}
		if c.dipping(bw) {
			gain = min(gain, dipGain)
		}
	}
	c.rate = bw * gain
	// The window is a safety against a path that stops acknowledging, not
	// the control: over the round trip the acknowledgements take (the
	// peer's loop, busy with the transfer, answers late), so that it
	// never holds the pacing back.
	c.cwnd = max(minWindow, int(cwndGain*bw*max(rtt, c.srtt).Seconds()))
	if c.mode == modeStartup {
		c.cwnd = max(c.cwnd, initialWindow)
	}
}

package ssp

import "time"

// sender is the sending half of SSP (docs/protocol.md section 7): it decides
// when to send, which peer state to diff from, and which state numbers to
// use, and turns that into instructions. It does not compress, fragment
// or seal; [Transport] does.
//
// The first entry of its sent states is the known receiver state (the
// newest one the peer acknowledged), the last is the last state sent, and
// the assumed receiver state is the newest entry sent recently enough
// (within RTO + AckDelay, without a stale entry in between) that the peer
// probably has it.
//
// All times are the caller's `now`; a zero time.Time means "never".
// A sender is not safe for concurrent use.
type sender[S State[S]] struct {
	current  S
	sent     []sentState[S] // never empty; ascending numbers
	assumed  int            // index into sent
	rtt      *RTT
	path     pathDelay // PacingGosh's flood gap
	minDelay time.Duration
	pacing   Pacing
	policy   float64 // probability of diffing from the known state
	rand     *randSource

	nextAck       time.Time // never zero
	nextSend      time.Time
	mindelayClock time.Time // first unsent change, if any
	lastData      time.Time // the last frame with a non-empty diff
	quick         int       // data frames in a run sent at once (see countRun)
	idleSend      bool      // new data goes out at once on an idle path (PacingGosh)
	sentIdle      bool      // the last Tick's new data went out at once on an idle path
	sentUrgent    bool      // the last Tick's new data holds an urgent change (Urgent)
	server        bool      // a server's sender: it probes the tail (tailProbe) and answers input (AnswerWindow)
	answerUntil   time.Time // frames are paced at SendIntervalMin until then (AnswerWindow)
	tail          tailProbe // the last paced frame, while its probe is pending
	tailProbes    uint64    // frames sent again by tailProbe (Stats.TailProbes)

	ackNum         uint64 // newest peer state received
	lastAckSent    uint64 // AckNum of the last instruction
	pendingDataAck bool
	lastHeard      time.Time // a new peer state last arrived

	shutdown      bool
	shutdownTries int
	shutdownStart time.Time
}

// sentState is one version of the local state the sender has sent, or the
// initial state.
type sentState[S any] struct {
	at    time.Time // when it was (last) sent
	num   uint64
	size  int    // the diff's bytes when it was (last) sent
	cum   uint64 // the running total of wire bytes sent, after it was (last) sent
	state S
}

// newSender returns a sender whose live state is initial (it is used, not
// copied) and whose state 0 is a clone of it. rtt supplies the RTO and
// frame interval; minDelay is SEND_MINDELAY; policy is the probability of
// diffing from the known receiver state (see [Config]).
func newSender[S State[S]](initial S, now time.Time, rtt *RTT, minDelay time.Duration, pacing Pacing, policy float64, rs *randSource) *sender[S] {
	return &sender[S]{
		current:  initial,
		sent:     []sentState[S]{{at: now, num: 0, state: initial.Clone()}},
		rtt:      rtt,
		minDelay: minDelay,
		pacing:   pacing,
		policy:   policy,
		rand:     rs,
		nextAck:  now, // the first opportunity sends
		nextSend: now,
	}
}

// Current returns the live local state.
func (s *sender[S]) Current() S { return s.current }

// Tick sends an instruction if one is due at now: new data after the
// collection delay and frame interval, a retransmission, a delayed ack, a
// heartbeat, or a shutdown try. The instruction's Chaff and GoshCaps are
// left for the caller.
func (s *sender[S]) Tick(now time.Time) (Instruction, bool) {
	s.calculateTimers(now)
	defer s.calculateTimers(now)
	if in, ok := s.tailProbe(now); ok {
		return in, true
	}
	ackDue, sendDue := !now.Before(s.nextAck), due(now, s.nextSend)
	if !ackDue && !sendDue {
		return Instruction{}, false
	}
	if s.assumed != 0 && s.policy > 0 && s.rand.float64() < s.policy {
		s.assumed = 0 // the λ policy: diff from the acknowledged state
	}
	diff := s.current.Diff(s.sent[s.assumed].state)
	diff = s.prospectiveResend(diff)
	s.sentIdle = len(diff) > 0 && s.idleSend
	s.sentUrgent = len(diff) > 0 && s.pacing == PacingGosh && s.urgent()
	if len(diff) > 0 {
		s.countRun(now)
		s.mindelayClock = time.Time{}
		return s.sendData(now, diff), true
	}
	if sendDue && !s.current.Equal(s.sent[len(s.sent)-1].state) {
		// The live state went back to the base state (a window resized
		// and resized back before the peer acknowledged the first
		// resize): the diff is empty, but the peer may hold the newer
		// state sent since. An empty diff from the base under a new
		// number names the live state; without it the change would
		// stay due, and on an idle path due at once, in a loop.
		s.mindelayClock = time.Time{}
		return s.sendEmptyAck(now), true
	}
	if sendDue {
		s.nextSend, s.mindelayClock = time.Time{}, time.Time{}
	}
	if !ackDue {
		return Instruction{}, false
	}
	s.mindelayClock = time.Time{}
	return s.sendEmptyAck(now), true
}

// probe makes the heartbeat due now (Transport.Probe).
func (s *sender[S]) probe(now time.Time) {
	if s.nextAck.After(now) {
		s.nextAck = now
	}
}

// NextDeadline returns when Tick next has something to do, as of
// the last Tick or event.
func (s *sender[S]) NextDeadline() time.Time {
	d := s.nextAck
	if !s.nextSend.IsZero() && s.nextSend.Before(d) {
		d = s.nextSend
	}
	if !s.tail.at.IsZero() && s.tail.at.Before(d) {
		d = s.tail.at
	}
	return d
}

// calculateTimers refreshes the assumed receiver state, drops the known
// prefix from every held state, and recomputes the ack and send times
// (docs/protocol.md section 7.3).
func (s *sender[S]) calculateTimers(now time.Time) {
	s.updateAssumed(now)
	s.rationalize()
	if s.pendingDataAck && s.nextAck.After(now.Add(AckDelay)) {
		s.nextAck = now.Add(AckDelay)
	}
	last := &s.sent[len(s.sent)-1]
	interval := s.rtt.SendInterval()
	s.idleSend = false
	heard := !s.lastHeard.IsZero() && now.Before(s.lastHeard.Add(ActiveRetryTimeout))
	switch {
	case !s.current.Equal(last.state):
		if s.mindelayClock.IsZero() {
			s.mindelayClock = now
		}
		switch {
		case s.pacing != PacingGosh:
			s.nextSend = later(s.mindelayClock.Add(s.minDelay), last.at.Add(interval))
		case s.shown():
			// Keys the user already sees wait for a frame that goes
			// anyway (the ack of the peer's next frame), or two frame
			// intervals.
			s.nextSend = s.mindelayClock.Add(ShownWaitIntervals * interval)
		case s.deferrable():
			s.nextSend = later(s.mindelayClock.Add(s.minDelay), last.at.Add(interval))
		case now.Before(s.answerUntil) && !s.pathIdle(now, interval):
			// Output that may answer the peer's input: no flood gap.
			s.nextSend = later(s.mindelayClock.Add(s.minDelay), last.at.Add(SendIntervalMin))
		case s.pathIdle(now, interval):
			s.nextSend = s.mindelayClock
			s.idleSend = true
		case s.path.windowFull():
			// Wait for an ack (which recalculates), or resend when the
			// assumed state lapses.
			s.nextSend = later(s.mindelayClock.Add(s.minDelay), last.at.Add(max(s.path.floodGap(interval), s.rtt.RTO()+AckDelay)))
		default:
			s.nextSend = later(s.mindelayClock.Add(s.minDelay), last.at.Add(s.path.floodGap(interval)))
		}
	case heard && !s.current.Equal(s.sent[s.assumed].state):
		s.nextSend = last.at.Add(interval)
		if !s.mindelayClock.IsZero() {
			s.nextSend = later(s.nextSend, s.mindelayClock.Add(s.minDelay))
		}
	case heard && !s.current.Equal(s.sent[0].state):
		s.nextSend = last.at.Add(s.rtt.RTO() + AckDelay)
	default:
		s.nextSend = time.Time{}
	}
	if s.shutdown || s.ackNum == ShutdownNum {
		s.nextAck = last.at.Add(interval)
	}
}

// updateAssumed makes the assumed receiver state the newest sent state
// such that it and every sent state before it (after the known one) went
// out less than RTO + AckDelay ago.
func (s *sender[S]) updateAssumed(now time.Time) {
	s.assumed = 0
	window := s.rtt.RTO() + AckDelay
	for i := 1; i < len(s.sent) && now.Sub(s.sent[i].at) < window; i++ {
		s.assumed = i
	}
}

// rationalize subtracts the known receiver state from the live state and
// from every sent state, itself last.
func (s *sender[S]) rationalize() {
	known := s.sent[0].state
	s.current.Subtract(known)
	for i := len(s.sent) - 1; i >= 0; i-- {
		s.sent[i].state.Subtract(known)
	}
}

// prospectiveResend switches to diffing from the known receiver state when
// that diff is no longer than diff, or longer by less than
// prospectiveSlack bytes and shorter than prospectiveLimit: a receiver
// that lost the assumed state can still use it.
func (s *sender[S]) prospectiveResend(diff []byte) []byte {
	if s.assumed == 0 {
		return diff
	}
	resend := s.current.Diff(s.sent[0].state)
	if len(resend) <= len(diff) || (len(resend) < prospectiveLimit && len(resend)-len(diff) < prospectiveSlack) {
		s.assumed = 0
		return resend
	}
	return diff
}

// sendData sends the live state as a diff from the assumed state: a new
// state number if it changed since the last send, otherwise a
// retransmission of the last number.
func (s *sender[S]) sendData(now time.Time, diff []byte) Instruction {
	last := &s.sent[len(s.sent)-1]
	newNum := last.num
	if !s.current.Equal(last.state) {
		newNum++
	}
	if s.shutdown {
		newNum = ShutdownNum
	}
	oldNum := s.sent[s.assumed].num
	if newNum == last.num {
		last.at, last.size = now, len(diff)
	} else {
		s.addSent(now, newNum)
		s.sent[len(s.sent)-1].size = len(diff)
	}
	in := s.instruction(oldNum, newNum, diff)
	s.assumed = len(s.sent) - 1
	s.lastData = now
	s.tail = tailProbe{}
	if s.server && s.pacing == PacingGosh && !s.sentIdle && !s.shutdown {
		s.tail = tailProbe{at: now.Add(TailProbeDelay), num: newNum, base: oldNum}
	}
	s.nextAck, s.nextSend = now.Add(AckInterval), time.Time{}
	return in
}

// sendEmptyAck sends a new state number with an empty diff: an ack of the
// peer's newest state, and a heartbeat.
func (s *sender[S]) sendEmptyAck(now time.Time) Instruction {
	newNum := s.sent[len(s.sent)-1].num + 1
	if s.shutdown {
		newNum = ShutdownNum
	}
	oldNum := s.sent[s.assumed].num
	s.addSent(now, newNum)
	s.nextAck, s.nextSend = now.Add(AckInterval), time.Time{}
	return s.instruction(oldNum, newNum, nil)
}

// addSent records a clone of the live state as sent state num. Past
// sentStatesLimit entries it drops the sentStatesCut-th from the back, as
// Mosh does; and while the states held exceed senderBudget (a peer that
// never acknowledges large screens), it drops the oldest unacknowledged
// ones, keeping the known receiver state and the newest.
func (s *sender[S]) addSent(now time.Time, num uint64) {
	s.sent = append(s.sent, sentState[S]{at: now, num: num, state: s.current.Clone()})
	if len(s.sent) > sentStatesLimit {
		s.cutSent(len(s.sent) - sentStatesCut)
	}
	held := 0
	for i := range s.sent {
		held += s.sent[i].state.Footprint()
	}
	for held > senderBudget && len(s.sent) > 2 {
		held -= s.sent[1].state.Footprint()
		s.cutSent(1)
	}
}

// cutSent drops sent state i (not the known one, index 0).
func (s *sender[S]) cutSent(i int) {
	s.sent = append(s.sent[:i], s.sent[i+1:]...)
	clear(s.sent[len(s.sent):cap(s.sent)][:1])
	if s.assumed >= i {
		s.assumed = max(s.assumed-1, 0)
	}
}

// instruction builds the instruction for one send.
func (s *sender[S]) instruction(oldNum, newNum uint64, diff []byte) Instruction {
	if newNum == ShutdownNum {
		s.shutdownTries++
	}
	s.pendingDataAck = false
	s.lastAckSent = s.ackNum
	return Instruction{
		ProtocolVersion: ProtocolVersion,
		OldNum:          oldNum,
		NewNum:          newNum,
		AckNum:          s.ackNum,
		ThrowawayNum:    s.sent[0].num,
		Diff:            diff,
	}
}

// wireSent records that the last instruction took n bytes on the wire.
func (s *sender[S]) wireSent(n int) {
	s.path.sentWire += uint64(n)
	s.sent[len(s.sent)-1].cum = s.path.sentWire
}

// ackArrived is processAck for an ack that arrived at now: it also feeds
// the delivery rate.
func (s *sender[S]) ackArrived(now time.Time, num uint64) {
	if i := s.sentIndex(num); i >= 0 {
		s.path.acked(now, s.sent[i].cum)
		s.dropSent(i)
	}
}

// sentIndex returns the index of sent state num, or -1.
func (s *sender[S]) sentIndex(num uint64) int {
	for i := range s.sent {
		if s.sent[i].num == num {
			return i
		}
	}
	return -1
}

// processAck handles the peer's acknowledgement of state num: if num is a
// held sent state, it becomes the known receiver state and older ones are
// dropped. Unknown numbers are ignored.
func (s *sender[S]) processAck(num uint64) {
	if i := s.sentIndex(num); i >= 0 {
		s.dropSent(i)
	}
}

// dropSent drops the first n sent states.
func (s *sender[S]) dropSent(n int) {
	if n == 0 {
		return
	}
	kept := copy(s.sent, s.sent[n:])
	clear(s.sent[kept:])
	s.sent = s.sent[:kept]
	s.assumed = max(s.assumed-n, 0)
}

// peerState records that the peer's state num is now the newest held, at
// now; dataAck says its diff was non-empty and must be acked soon.
func (s *sender[S]) peerState(now time.Time, num uint64, dataAck bool) {
	s.ackNum = num
	s.lastHeard = now
	if dataAck {
		s.pendingDataAck = true
		if s.server {
			s.answerUntil = now.Add(AnswerWindow)
		}
	}
}

// startShutdown freezes the live state and makes every later instruction
// carry state number ShutdownNum.
func (s *sender[S]) startShutdown(now time.Time) {
	if !s.shutdown {
		s.shutdown, s.shutdownStart = true, now
	}
}

// shutdownAckTimedOut reports whether the initiator should give up on the
// peer's acknowledgement of its shutdown.
func (s *sender[S]) shutdownAckTimedOut(now time.Time) bool {
	return s.shutdown && (s.shutdownTries >= ShutdownRetries || now.Sub(s.shutdownStart) >= ActiveRetryTimeout)
}

// due reports whether the deadline t is set and has come.
func due(now, t time.Time) bool { return !t.IsZero() && !now.Before(t) }

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

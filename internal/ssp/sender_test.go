package ssp

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/statesync"
)

const ms = time.Millisecond

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// senderHarness drives a Sender[*ssptest.Log] with a synthetic clock.
type senderHarness struct {
	t   *testing.T
	s   *sender[*ssptest.Log]
	rtt RTT
	now time.Time
}

func newSenderHarness(t *testing.T, minDelay time.Duration, policy float64) *senderHarness {
	h := &senderHarness{t: t, rtt: NewRTT(), now: t0}
	h.s = newSender(ssptest.NewLog(), t0, &h.rtt, minDelay, PacingMosh, policy, newRandSource(bytes.NewReader(nil)))
	return h
}

// fastRTT gives the sender a 10 ms SRTT: frame interval 20 ms, RTO 50 ms.
func (h *senderHarness) fastRTT() { h.rtt.Update(10 * ms) }

// tick ticks at now and returns the instruction, if any.
func (h *senderHarness) tick() (Instruction, bool) { return h.s.Tick(h.now) }

// runUntilSend advances the clock deadline by deadline until the sender
// sends, at most limit ahead, and returns what it sent and when.
func (h *senderHarness) runUntilSend(limit time.Duration) (Instruction, time.Time) {
	h.t.Helper()
	end := h.now.Add(limit)
	for {
		if in, ok := h.tick(); ok {
			return in, h.now
		}
		next := h.s.NextDeadline()
		if !next.After(h.now) {
			h.t.Fatalf("at %v: deadline %v does not advance and nothing was sent", h.now.Sub(t0), next.Sub(t0))
		}
		if next.After(end) {
			h.t.Fatalf("nothing sent within %v of %v (next deadline %v)", limit, end.Add(-limit).Sub(t0), next.Sub(t0))
		}
		h.now = next
	}
}

func TestSenderFirstTickSendsEmptyAck(t *testing.T) {
	h := newSenderHarness(t, ServerSendMinDelay, 0)
	in, ok := h.tick()
	if !ok || in.OldNum != 0 || in.NewNum != 1 || len(in.Diff) != 0 || in.ProtocolVersion != ProtocolVersion {
		t.Fatalf("first Tick = %+v, %v; want an empty ack 0->1", in, ok)
	}
	if got := h.s.NextDeadline(); got != t0.Add(AckInterval) {
		t.Errorf("next deadline %v after the first ack, want %v", got.Sub(t0), AckInterval)
	}
}

// TestSenderPacing checks Mosh's timing rules with a synthetic clock.
func TestSenderPacing(t *testing.T) {
	t.Run("first frame SEND_MINDELAY after a change", func(t *testing.T) {
		for _, minDelay := range []time.Duration{ServerSendMinDelay, ClientSendMinDelay} {
			h := newSenderHarness(t, minDelay, 0)
			h.fastRTT()
			h.tick()
			h.now = t0.Add(time.Second)
			h.s.Current().Append([]byte("x"))
			in, at := h.runUntilSend(time.Second)
			if got := at.Sub(t0.Add(time.Second)); got != minDelay {
				t.Errorf("minDelay %v: frame at +%v, want +%v", minDelay, got, minDelay)
			}
			if len(in.Diff) == 0 || in.NewNum != 2 {
				t.Errorf("frame = %+v, want data for state 2", in)
			}
		}
	})
	t.Run("collection: changes within the delay ride one frame", func(t *testing.T) {
		h := newSenderHarness(t, ServerSendMinDelay, 0)
		h.fastRTT()
		h.tick()
		h.now = t0.Add(time.Second)
		for i := 0; i < 5; i++ {
			h.s.Current().Append([]byte{byte('a' + i)})
			if _, ok := h.tick(); ok {
				t.Fatalf("sent at +%v, inside the collection delay", h.now.Sub(t0.Add(time.Second)))
			}
			h.now = h.now.Add(time.Millisecond)
		}
		in, _ := h.runUntilSend(time.Second)
		if !bytes.HasSuffix(in.Diff, []byte("abcde")) {
			t.Errorf("frame diff %q, want all five bytes", in.Diff)
		}
	})
	t.Run("at most one frame per send interval", func(t *testing.T) {
		for _, sample := range []time.Duration{10 * ms, 100 * ms, 300 * ms, 900 * ms} {
			h := newSenderHarness(t, ServerSendMinDelay, 0)
			h.rtt.Update(sample)
			interval := h.rtt.SendInterval()
			h.tick()
			var last time.Time
			frames := 0
			for step := 0; step < 3000; step++ {
				h.now = h.now.Add(time.Millisecond)
				h.s.Current().Append([]byte("k"))
				// The peer acks everything at once, so only pacing limits.
				in, ok := h.tick()
				if !ok {
					continue
				}
				if !last.IsZero() && h.now.Sub(last) < interval {
					t.Fatalf("SRTT %v: frames %v apart, interval %v", sample, h.now.Sub(last), interval)
				}
				last = h.now
				frames++
				h.s.processAck(in.NewNum)
			}
			if min := int(3*time.Second/interval) - 1; frames < min {
				t.Errorf("SRTT %v: %d frames in 3 s, want at least %d", sample, frames, min)
			}
		}
	})
	t.Run("data ack within ACK_DELAY", func(t *testing.T) {
		h := newSenderHarness(t, ServerSendMinDelay, 0)
		h.tick()
		h.now = t0.Add(500 * ms)
		h.s.peerState(h.now, 7, true)
		in, at := h.runUntilSend(time.Second)
		if at.Sub(t0.Add(500*ms)) != AckDelay || in.AckNum != 7 || len(in.Diff) != 0 {
			t.Errorf("ack %+v at +%v, want an empty ack of 7 at +%v", in, at.Sub(t0.Add(500*ms)), AckDelay)
		}
	})
	t.Run("empty peer state is acked only by the heartbeat", func(t *testing.T) {
		h := newSenderHarness(t, ServerSendMinDelay, 0)
		h.tick()
		h.now = t0.Add(500 * ms)
		h.s.peerState(h.now, 7, false)
		_, at := h.runUntilSend(4 * time.Second)
		if at != t0.Add(AckInterval) {
			t.Errorf("ack at %v, want the heartbeat at %v", at.Sub(t0), AckInterval)
		}
	})
	t.Run("heartbeats every ACK_INTERVAL, each a new state number", func(t *testing.T) {
		h := newSenderHarness(t, ServerSendMinDelay, 0)
		first, _ := h.tick()
		prev := first.NewNum
		for i := 1; i <= 4; i++ {
			in, at := h.runUntilSend(4 * time.Second)
			if at != t0.Add(time.Duration(i)*AckInterval) || in.NewNum != prev+1 || len(in.Diff) != 0 {
				t.Fatalf("heartbeat %d: %+v at %v, want new state %d at %v", i, in, at.Sub(t0), prev+1, time.Duration(i)*AckInterval)
			}
			prev = in.NewNum
		}
	})
}

func TestSenderRetransmitsFromKnownState(t *testing.T) {
	h := newSenderHarness(t, ServerSendMinDelay, 0)
	h.fastRTT() // RTO 50 ms (clamped), interval 20 ms
	h.tick()
	h.s.processAck(1)
	h.now = t0.Add(time.Second)
	h.s.peerState(h.now, 1, false) // the peer is alive
	h.s.Current().Append([]byte("hello"))
	first, sentAt := h.runUntilSend(time.Second)
	if first.OldNum != 1 || first.NewNum != 2 {
		t.Fatalf("first send %+v, want 1->2", first)
	}
	// No ack arrives. After RTO + ACK_DELAY the state is no longer assumed
	// received; it is resent from the known state 1, same number.
	again, at := h.runUntilSend(time.Second)
	if wait := at.Sub(sentAt); wait < h.rtt.RTO()+AckDelay {
		t.Errorf("resent after %v, before RTO + ACK_DELAY = %v", wait, h.rtt.RTO()+AckDelay)
	}
	if again.OldNum != 1 || again.NewNum != 2 || !bytes.Equal(again.Diff, first.Diff) {
		t.Errorf("resend %+v, want 1->2 with the same diff", again)
	}
}

func TestSenderSilentPeerSlowsToHeartbeats(t *testing.T) {
	h := newSenderHarness(t, ServerSendMinDelay, 0)
	h.fastRTT()
	h.tick()
	h.now = t0.Add(time.Second) // never heard from the peer
	h.s.Current().Append([]byte("x"))
	_, first := h.runUntilSend(time.Second)
	_, second := h.runUntilSend(5 * time.Second)
	if second.Sub(first) != AckInterval {
		t.Errorf("unheard peer: resend after %v, want %v", second.Sub(first), AckInterval)
	}
}

func TestSenderProspectiveResend(t *testing.T) {
	// With a state assumed received, the sender still diffs from the known
	// state when that costs less than 100 extra bytes (Mosh's rule).
	h := newSenderHarness(t, ServerSendMinDelay, 0)
	h.fastRTT()
	h.tick()
	h.s.processAck(1)
	h.now = t0.Add(time.Second)
	h.s.peerState(h.now, 1, false)
	h.s.Current().Append([]byte("ab"))
	a, _ := h.runUntilSend(time.Second)
	h.s.Current().Append([]byte("cd"))
	b, _ := h.runUntilSend(time.Second)
	if a.OldNum != 1 || b.OldNum != 1 || !bytes.HasSuffix(b.Diff, []byte("abcd")) {
		t.Errorf("short diffs: %+v then %+v; want both from known state 1", a, b)
	}
	// A big unacknowledged state makes the known-state diff too long:
	// then the diff starts from the assumed state.
	h.s.Current().Append(bytes.Repeat([]byte("x"), 2000))
	big, _ := h.runUntilSend(time.Second)
	h.s.Current().Append([]byte("y"))
	c, _ := h.runUntilSend(time.Second)
	if c.OldNum != big.NewNum || !bytes.HasSuffix(c.Diff, []byte("xy")[1:]) || len(c.Diff) > 100 {
		t.Errorf("after a big state: %+v (diff %d bytes); want a diff from the assumed state", c, len(c.Diff))
	}
}

func TestSenderKnownStatePolicy(t *testing.T) {
	// λ = 1: every diff starts from the acknowledged state, however long.
	h := newSenderHarness(t, ServerSendMinDelay, 1)
	h.s.rand = newRandSource(rand.NewChaCha8([32]byte{1}))
	h.fastRTT()
	h.tick()
	h.s.processAck(1)
	h.now = t0.Add(time.Second)
	h.s.peerState(h.now, 1, false)
	for i := 0; i < 3; i++ {
		h.s.Current().Append(bytes.Repeat([]byte("x"), 2000))
		in, _ := h.runUntilSend(time.Second)
		if in.OldNum != 1 || in.ThrowawayNum != 1 {
			t.Fatalf("send %d: %+v, want a diff from known state 1", i, in)
		}
	}
}

func TestSenderAckProcessing(t *testing.T) {
	h := newSenderHarness(t, ServerSendMinDelay, 0)
	h.fastRTT()
	for i := 0; i < 5; i++ {
		h.s.Current().Append([]byte{byte('a' + i)})
		h.runUntilSend(time.Second)
	}
	last := h.s.sent[len(h.s.sent)-1].num
	h.s.processAck(999) // unknown: ignored
	if h.s.sent[0].num != 0 {
		t.Fatalf("unknown ack moved the known state to %d", h.s.sent[0].num)
	}
	h.s.processAck(3)
	if h.s.sent[0].num != 3 || h.s.sent[len(h.s.sent)-1].num != last {
		t.Errorf("after ack 3: known %d, last %d; want 3, %d", h.s.sent[0].num, h.s.sent[len(h.s.sent)-1].num, last)
	}
	in, _ := h.runUntilSend(4 * time.Second)
	if in.ThrowawayNum != 3 {
		t.Errorf("throwaway_num %d after ack 3, want 3", in.ThrowawayNum)
	}
	// Rationalized: every held state forgot the acknowledged prefix.
	if h.s.sent[0].state.Tail() != nil && len(h.s.sent[0].state.Tail()) != 0 {
		t.Errorf("known state still holds %q", h.s.sent[0].state.Tail())
	}
}

func TestSenderQueueLimit(t *testing.T) {
	h := newSenderHarness(t, ServerSendMinDelay, 0)
	h.fastRTT()
	for i := 0; i < 40; i++ {
		h.s.Current().Append([]byte{byte(i)})
		h.runUntilSend(time.Second)
	}
	if len(h.s.sent) != sentStatesLimit {
		t.Fatalf("holding %d sent states, want %d", len(h.s.sent), sentStatesLimit)
	}
	// The known state and the newest 15 are never culled.
	if h.s.sent[0].num != 0 {
		t.Errorf("known state culled: front is %d", h.s.sent[0].num)
	}
	for i := 1; i < len(h.s.sent); i++ {
		if h.s.sent[i].num <= h.s.sent[i-1].num {
			t.Fatalf("sent states out of order at %d: %d after %d", i, h.s.sent[i].num, h.s.sent[i-1].num)
		}
	}
	last := h.s.sent[len(h.s.sent)-1].num
	if got := h.s.sent[len(h.s.sent)-15].num; got != last-14 {
		t.Errorf("the newest 15 states are not consecutive: %d..%d", got, last)
	}
}

func TestSenderShutdown(t *testing.T) {
	h := newSenderHarness(t, ServerSendMinDelay, 0)
	h.fastRTT()
	h.tick()
	h.now = t0.Add(time.Second)
	h.s.startShutdown(h.now)
	var sent []time.Time
	for len(sent) < ShutdownRetries {
		in, at := h.runUntilSend(time.Second)
		if in.NewNum != ShutdownNum {
			t.Fatalf("shutdown instruction %+v, want new_num 2^64-1", in)
		}
		if len(sent) > 0 && at.Sub(sent[len(sent)-1]) != h.rtt.SendInterval() {
			t.Errorf("shutdown tries %v apart, want the send interval %v", at.Sub(sent[len(sent)-1]), h.rtt.SendInterval())
		}
		sent = append(sent, at)
		if h.s.shutdownAckTimedOut(h.now) != (len(sent) >= ShutdownRetries) {
			t.Fatalf("after %d tries: timed out = %v", len(sent), !(len(sent) >= ShutdownRetries))
		}
	}
	// The acknowledgement of 2^64-1 completes the handshake.
	h.s.processAck(ShutdownNum)
	if h.s.sent[0].num != ShutdownNum {
		t.Errorf("known state %d after the shutdown ack", h.s.sent[0].num)
	}

	// The 10 s limit applies when tries are slow (unheard peer).
	h2 := newSenderHarness(t, ServerSendMinDelay, 0)
	h2.s.startShutdown(t0)
	if h2.s.shutdownAckTimedOut(t0.Add(ActiveRetryTimeout-ms)) || !h2.s.shutdownAckTimedOut(t0.Add(ActiveRetryTimeout)) {
		t.Error("shutdown did not time out exactly at 10 s")
	}
}

func TestSenderAcksPeerShutdownPromptly(t *testing.T) {
	h := newSenderHarness(t, ServerSendMinDelay, 0)
	h.fastRTT()
	h.tick()
	h.now = t0.Add(time.Second)
	h.s.peerState(h.now, ShutdownNum, false)
	in, at := h.runUntilSend(time.Second)
	if in.AckNum != ShutdownNum || at.Sub(t0.Add(time.Second)) > SendIntervalMin {
		t.Errorf("ack of the peer's shutdown: %+v at +%v", in, at.Sub(t0.Add(time.Second)))
	}
	if h.s.lastAckSent != ShutdownNum {
		t.Error("lastAckSent not recorded")
	}
}

// TestSenderShownKeys: under PacingGosh, keys the user already sees wait
// ShownWaitIntervals frame intervals, or less when an ack goes anyway;
// a key the user does not see takes them along at once. PacingMosh
// ignores the difference.
func TestSenderShownKeys(t *testing.T) {
	var rtt RTT
	newS := func(p Pacing) *sender[*statesync.UserStream] {
		rtt = NewRTT()
		rtt.Update(500 * ms) // frame interval 250 ms
		s := newSender(statesync.NewUserStream(), t0, &rtt, ClientSendMinDelay, p, 0, newRandSource(bytes.NewReader(nil)))
		s.Tick(t0) // the first empty ack
		return s
	}
	// sendAt returns when s next sends from now on (within 2 s), acking it.
	sendAt := func(s *sender[*statesync.UserStream], now time.Time) (Instruction, time.Duration) {
		t.Helper()
		start := now
		for now.Sub(start) < 2*time.Second {
			if in, ok := s.Tick(now); ok {
				s.processAck(in.NewNum)
				return in, now.Sub(start)
			}
			next := s.NextDeadline()
			if !next.After(now) {
				t.Fatalf("deadline %v does not advance", next.Sub(t0))
			}
			now = next
		}
		t.Fatal("nothing sent within 2 s")
		return Instruction{}, 0
	}

	s := newS(PacingGosh)
	now := t0.Add(time.Second)
	s.Current().PushShownKeys([]byte("a"))
	if in, d := sendAt(s, now); d != ShownWaitIntervals*250*ms || !bytes.HasSuffix(in.Diff, []byte("a")) {
		t.Errorf("a shown key left after %v in %x, want after %v", d, in.Diff, ShownWaitIntervals*250*ms)
	}

	now = t0.Add(3 * time.Second)
	s.Current().PushShownKeys([]byte("b"))
	s.peerState(now, 7, true) // the peer's frame must be acked within AckDelay
	if in, d := sendAt(s, now); d != AckDelay || in.AckNum != 7 || !bytes.HasSuffix(in.Diff, []byte("b")) {
		t.Errorf("a shown key with an ack due left after %v (ack %d, diff %x), want with the ack of 7 after %v", d, in.AckNum, in.Diff, AckDelay)
	}

	now = t0.Add(5 * time.Second)
	s.Current().PushShownKeys([]byte("c"))
	s.Tick(now)
	now = now.Add(5 * ms)
	s.Current().PushKeys([]byte("\r"))
	if in, d := sendAt(s, now); d != 0 || !bytes.HasSuffix(in.Diff, []byte("c\r")) {
		t.Errorf("Enter after a shown key left after %v in %x, want at once with both", d, in.Diff)
	}

	s = newS(PacingMosh)
	now = t0.Add(time.Second)
	s.Current().PushShownKeys([]byte("a"))
	if _, d := sendAt(s, now); d != ClientSendMinDelay {
		t.Errorf("PacingMosh: a shown key left after %v, want SEND_MINDELAY %v", d, ClientSendMinDelay)
	}
}

// TestSenderStateBackToBase: the live state goes back to the acknowledged
// state while a newer one is in flight (a window resized and resized
// back). The diff from the base is empty, but the peer may hold the newer
// state, so the sender must name the live state under a new number, and
// then rest: before the fix an idle path kept the change due at once and
// Tick spun at one instant, sending nothing.
func TestSenderStateBackToBase(t *testing.T) {
	for _, p := range []Pacing{PacingGosh, PacingMosh} {
		rtt := NewRTT()
		rtt.Update(50 * ms)
		host := ssptest.NewHost(80, 24)
		s := newSender(host, t0, &rtt, ServerSendMinDelay, p, 0, newRandSource(bytes.NewReader(nil)))
		now := t0
		first, _ := s.Tick(now) // state 1: 80×24, acknowledged
		s.processAck(first.NewNum)

		now = now.Add(time.Second)
		host.SetSize(100, 30)
		var grown Instruction
		for end := now.Add(time.Second); ; now = s.NextDeadline() {
			if in, ok := s.Tick(now); ok && len(in.Diff) > 0 {
				grown = in
				break
			}
			if now.After(end) {
				t.Fatalf("%v: the resize was never sent", p)
			}
		}
		host.SetSize(80, 24) // back, before state 2 is acknowledged
		var back Instruction
		sent := false
		for i := 0; i < 1000 && !sent; i++ {
			back, sent = s.Tick(now)
			if !sent {
				next := s.NextDeadline()
				if !next.After(now) {
					t.Fatalf("%v: nothing sent and the deadline does not advance (at %v)", p, now.Sub(t0))
				}
				now = next
			}
		}
		if !sent || back.NewNum <= grown.NewNum || back.OldNum != first.NewNum || len(back.Diff) != 0 {
			t.Fatalf("%v: sent %v: old %d new %d diff %d bytes; want the live state as an empty diff from state %d under a number above %d",
				p, sent, back.OldNum, back.NewNum, len(back.Diff), first.NewNum, grown.NewNum)
		}
		if in, ok := s.Tick(now); ok || !s.NextDeadline().After(now) {
			t.Errorf("%v: after naming the live state the sender still sends (%v, %+v) or is due at once", p, ok, in)
		}
	}
}

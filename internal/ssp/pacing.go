package ssp

import (
	"time"

	"github.com/gosh-term/gosh/internal/enum"
)

// Pacing selects when a sender sends a changed state.
//
// Mosh's rule (PacingMosh) waits SEND_MINDELAY after the first change (8 ms
// on a server, 1 ms on a client) and at least one frame interval (half the
// smoothed RTT, 20 to 250 ms) after the previous frame. That collects output
// and keeps queues short under a flood, but it costs every keystroke that
// prediction cannot show: about 10 ms over a LAN, and up to a frame interval
// (250 ms) per direction over a long path with a continuous typist.
//
// gosh's rule (PacingGosh) has three parts.
//
// On an idle path it sends at once, without a collection delay; and when
// a twentieth or more of the peer's datagrams are lost on the way
// (redundantLoss), a frame that fits one datagram goes out twice, as a
// retransmission would but without waiting for the timeout. The path is
// idle when no frame with data went out within the flood gap (below; at
// least SendIntervalMin), unless fewer than PaceQuickFrames did, each at
// once and less than SendIntervalMin after the one before (so a
// command's output follows the echo of its Enter at once, while a stream
// of output, or a fast typist's burst, is paced), and fewer than
// PaceIdleFrames frames and PaceIdleBytes bytes sent in the last
// RTO + AckDelay are still unacknowledged. A keystroke or its echo is a
// datagram of a hundred bytes or so; a few of them in flight cannot build
// a queue on any path a terminal is used over.
//
// Otherwise (output that keeps coming, a fast typist) frames are paced by
// the path's queue, not its length: a frame goes out SendMinDelay after
// the first change and at least the flood gap after the previous frame.
// The gap starts at Mosh's frame interval and follows the queueing delay,
// the newest round-trip sample above the smallest of the last
// minRTTWindow: it doubles when that delay exceeds the queue target (a
// quarter of the smallest round trip, at least SendIntervalMin) and
// shrinks by a quarter with each sample under it, between
// SendIntervalMin (50 frames a second) and maxFloodGap. (This is the
// delay signal of Sprout, TCP Vegas and BBR's min-RTT.) Unacknowledged
// bytes also stay within what the path delivered in its smallest round
// trip plus the ack delay (pathDelay.window), BBR's cap on data in
// flight. A flood thus still collapses into a frame per gap, skipping
// the screens between, but the frame after a Ctrl-C waits a gap, not
// half a round trip; and a link too slow for the frames shows a queue,
// which widens the gap.
//
// For AnswerWindow after the client's input arrives, a server paces its
// frames at SendIntervalMin instead of the flood gap and the window, so
// that the frame answering a keystroke (the prompt after a Ctrl-C in a
// flood) waits no gap a queue widened.
//
// The last frame of paced output is sent again TailProbeDelay after it if
// nothing newer follows (a server's; tailProbe): nothing else would
// repair its loss before the retransmission timeout, and it holds what
// the screen settles on, such as the prompt after a Ctrl-C in a flood.
// Urgent changes (see [Urgent]: the client's interrupt keys) go out
// twice at once.
//
// Keys the user already sees (see [Shown]) wait up to
// ShownWaitIntervals frame intervals, or for a frame that goes anyway.
// Changes worth no frame of their own (the server's echo ack, see
// [Deferrable]) and retransmissions keep Mosh's timing.
//
// Nothing changes on the wire: a stock peer sees frames sooner, nothing
// else.
//
// PacingGosh is the default (the zero value); PacingMosh keeps Mosh's
// exact timing, for comparison.
type Pacing int

// The pacing rules.
const (
	PacingGosh Pacing = iota // the zero value
	PacingMosh
)

const (
	// An idle path has no collection delay: a keystroke comes in one
	// read of the terminal; output that comes in more reads goes in the
	// next frame of the run (PaceQuickFrames). A timer under a
	// millisecond would cost a whole one (measured over the lan link: a
	// 500 µs delay gave a 3.0 ms median echo, as 1 ms did; none gives
	// 2.0 ms, ssh 1.8 ms). The server holds a program's answer to input
	// until the pty is quiet (internal/session's answer.go), so that one
	// answer written in pieces reaches the client in one frame.

	// PaceIdleFrames and PaceIdleBytes bound what PacingGosh may have in
	// flight (sent within RTO + AckDelay and unacknowledged) and still
	// call the path idle.
	PaceIdleFrames = 4
	PaceIdleBytes  = 4096

	// PaceQuickFrames is how many data frames in a row PacingGosh sends
	// at once less than SendIntervalMin apart: a command's output follows
	// the echo of its Enter by the few milliseconds the program takes to
	// start, and waits for no frame interval; a third frame is paced.
	PaceQuickFrames = 2

	// redundantLoss is the loss of the peer's datagrams from which
	// PacingGosh sends a small frame twice on an idle path; it stands in
	// for the loss of ours, which the sender cannot see. At 29 % each way
	// (the Mosh paper's 50 % round-trip loss) a keystroke and its echo
	// both arrive half the time; sent twice each, 84 % of the time. At 8 %
	// (CS244's Wi-Fi), 85 % and 99 %: a lost echo otherwise waits for the
	// retransmission timeout and the ack delay, some 170 ms on a 30 ms
	// path, where Mosh's echo ack, a frame of its own 50 ms later, often
	// carries it again (diffed from the acknowledged state).
	redundantLoss = 0.05

	// minRTTWindow is how long the smallest round-trip sample stands as
	// the path's delay without queueing.
	minRTTWindow = 10 * time.Second

	// AnswerWindow is how long after the client's input arrives a server
	// paces its frames at SendIntervalMin, whatever the flood gap: long
	// enough for a program to answer a keystroke, and for what a Ctrl-C
	// leaves in the pty to be read (some 64 KiB, 16 ms at the server's
	// output rate).
	AnswerWindow = 100 * time.Millisecond

	// TailProbeDelay is how long after the last frame of paced output
	// PacingGosh sends it again if nothing newer went out (tailProbe):
	// a frame interval of a flood, so that a lost frame that ends one
	// costs this, not the retransmission timeout (some 600 ms over
	// CS244's 3G link).
	TailProbeDelay = SendIntervalMin

	// maxFloodGap bounds PacingGosh's flood gap: beyond Mosh's
	// SendIntervalMax, for screens whose frames take longer than that
	// to cross the link.
	maxFloodGap = time.Second
)

var pacingNames = enum.Names[Pacing]{
	List: []string{PacingGosh: "gosh", PacingMosh: "mosh"},
	Type: "pacing",
	Bad:  "unknown pacing %[1]q: want one of %[2]s",
}

// String names the rule as --pacing takes it.
func (p Pacing) String() string { return pacingNames.String(p) }

// Set parses a --pacing value (pflag.Value).
func (p *Pacing) Set(s string) error { return pacingNames.Set(p, s) }

// Type names the flag's value type (pflag.Value).
func (p *Pacing) Type() string { return pacingNames.Type }

// Urgent is implemented by states some of whose changes must not wait for
// a retransmission if their datagram is lost: the client's interrupt keys
// (Ctrl-C, Ctrl-\, Ctrl-Z), typed to stop a program that floods the
// screen while the flood keeps the path busy. PacingGosh sends a frame
// that carries one and fits a datagram twice.
type Urgent[S any] interface {
	// Urgent reports whether the state's change from sent is such.
	Urgent(sent S) bool
}

// urgent reports whether the live state's change from the last sent
// state is urgent.
func (s *sender[S]) urgent() bool {
	u, ok := any(s.current).(Urgent[S])
	return ok && u.Urgent(s.sent[len(s.sent)-1].state)
}

// tailProbe is the last frame a server sent paced (not at once on an idle
// path): state num diffed from base, sent again at at unless something
// newer went out.
type tailProbe struct {
	at        time.Time
	num, base uint64
}

// tailProbe returns the last paced frame again once its probe is due, if
// the live state is still the one it carried and the peer has not
// acknowledged it: the frame that ends paced output has no later frame
// to repair its loss. The probe is dropped when due, whatever happens.
func (s *sender[S]) tailProbe(now time.Time) (Instruction, bool) {
	if !due(now, s.tail.at) {
		return Instruction{}, false
	}
	t := s.tail
	s.tail = tailProbe{}
	i := s.sentIndex(t.num)
	if i < 1 || !s.current.Equal(s.sent[i].state) {
		return Instruction{}, false // acknowledged, or newer output goes
	}
	b := s.sentIndex(t.base)
	if b < 0 || b >= i {
		b = 0 // its base was acknowledged since (or dropped): from the known state
	}
	s.sentIdle, s.sentUrgent = false, false
	s.tailProbes++
	return s.instruction(s.sent[b].num, t.num, s.current.Diff(s.sent[b].state)), true
}

// Deferrable is implemented by states some of whose changes are worth no
// frame of their own (the server's echo ack, which only helps the
// client's prediction engine): PacingGosh sends those with Mosh's timing,
// in the next frame interval, instead of at once.
type Deferrable[S any] interface {
	// Deferrable reports whether the state differs from sent only in
	// such a way.
	Deferrable(sent S) bool
}

// deferrable reports whether the live state's change from the last sent
// state may wait.
func (s *sender[S]) deferrable() bool {
	d, ok := any(s.current).(Deferrable[S])
	return ok && d.Deferrable(s.sent[len(s.sent)-1].state)
}

// Shown is implemented by states some of whose changes the user already
// sees: the client's keystrokes that its prediction engine displays.
// Their echo only confirms the screen, so PacingGosh lets them wait for
// a frame that goes anyway (the ack of the peer's next frame, a key the
// user does not see) or ShownWaitIntervals frame intervals, whichever
// comes first: a typist's keys then share datagrams, and so do their
// echoes. Keys that prediction does not show (Enter, the first keys of a
// new line, every key with prediction off) go at once.
type Shown[S any] interface {
	// Shown reports whether the state differs from sent only by such
	// changes.
	Shown(sent S) bool
}

// ShownWaitIntervals is how many frame intervals (half the smoothed RTT,
// SendIntervalMin to SendIntervalMax) a change the user already sees may
// wait under PacingGosh: about a round trip, 40 to 500 ms. Measured over
// the evdo link (500 ms RTT) with the shell workload's typist (a key
// every 239 ms on average), one interval gave 204 to 209 wire bytes per
// key and two gave 143 to 145; sending such keys at once, 306.
const ShownWaitIntervals = 2

// shown reports whether the live state's change from the last sent state
// is one the user already sees.
func (s *sender[S]) shown() bool {
	d, ok := any(s.current).(Shown[S])
	return ok && d.Shown(s.sent[len(s.sent)-1].state)
}

// countRun counts a data frame about to be sent at now into the run of
// frames sent at once (PacingGosh): a run starts with a change that began
// SendIntervalMin or more after the last data frame (a keystroke, its
// echo) and goes on with frames sent at once less than SendIntervalMin
// apart (the output of the command that Enter started). Anything else (a
// paced frame, or one whose change began right after the last frame, as
// in a flood) ends it.
func (s *sender[S]) countRun(now time.Time) {
	switch {
	case !s.sentIdle:
		s.quick = 0
	case s.lastData.IsZero() || (!s.mindelayClock.IsZero() && s.mindelayClock.Sub(s.lastData) >= SendIntervalMin):
		s.quick = 1
	case s.quick > 0 && now.Sub(s.lastData) < SendIntervalMin:
		s.quick++
	default:
		s.quick = 0
	}
}

// pathIdle reports whether the path is idle (PacingGosh): no data frame
// sent within the flood gap (and SendIntervalMin), unless the last was
// sent within SendIntervalMin in a run (countRun) of fewer than
// PaceQuickFrames; and few and small frames sent within
// RTO + AckDelay and not yet acknowledged. interval is Mosh's frame
// interval.
func (s *sender[S]) pathIdle(now time.Time, interval time.Duration) bool {
	if !s.lastData.IsZero() {
		since := now.Sub(s.lastData)
		quick := s.quick > 0 && s.quick < PaceQuickFrames && since < SendIntervalMin
		if since < max(SendIntervalMin, s.path.floodGap(interval)) && !quick {
			return false
		}
	}
	window := s.rtt.RTO() + AckDelay
	frames, bytes := 0, 0
	for i := len(s.sent) - 1; i >= 1 && now.Sub(s.sent[i].at) < window; i-- {
		if s.sent[i].size > 0 { // empty acks carry nothing that could queue
			frames++
			bytes += s.sent[i].size
		}
	}
	return frames < PaceIdleFrames && bytes < PaceIdleBytes
}

// pathDelay follows what PacingGosh paces by: the smallest round trip of
// the last minRTTWindow and the flood gap.
type pathDelay struct {
	minRTT time.Duration
	minAt  time.Time     // when minRTT was sampled; zero before any sample
	gap    time.Duration // zero before any sample

	// The delivery rate, from the peer's acks: wire bytes sent (the
	// running total), acknowledged, and the fastest rate at which they
	// were acknowledged within minRTTWindow.
	sentWire, ackedWire uint64
	ackedAt             time.Time
	rate                float64 // bytes per second; 0 before a sample
	rateAt              time.Time
}

// sample folds in a round-trip sample taken at now; interval is Mosh's
// frame interval, where the gap starts.
func (p *pathDelay) sample(now time.Time, rtt, interval time.Duration) {
	if p.minAt.IsZero() || rtt <= p.minRTT || now.Sub(p.minAt) > minRTTWindow {
		p.minRTT, p.minAt = rtt, now
	}
	if p.gap == 0 {
		p.gap = interval
	}
	target := max(SendIntervalMin, p.minRTT/4)
	switch {
	case rtt-p.minRTT <= target:
		p.gap = max(SendIntervalMin, p.gap*3/4)
	default:
		p.gap = min(maxFloodGap, 2*p.gap)
	}
}

// acked records at now that the peer has everything sent up to the
// running total cum: a delivery-rate sample over the time since the
// previous ack that moved it.
func (p *pathDelay) acked(now time.Time, cum uint64) {
	if cum <= p.ackedWire {
		return
	}
	if !p.ackedAt.IsZero() {
		if dt := now.Sub(p.ackedAt); dt >= SendIntervalMin {
			r := float64(cum-p.ackedWire) / dt.Seconds()
			if r >= p.rate || now.Sub(p.rateAt) > minRTTWindow {
				p.rate, p.rateAt = r, now
			}
		}
	}
	p.ackedWire, p.ackedAt = cum, now
}

// window returns how many unacknowledged bytes PacingGosh lets a flood
// have in flight: what the path delivers in its smallest round trip plus
// the peer's ack delay; at least PaceIdleBytes. Frames beyond it would
// only wait in the bottleneck's queue.
func (p *pathDelay) window() uint64 {
	w := p.rate * (p.minRTT + AckDelay).Seconds()
	return max(PaceIdleBytes, uint64(w))
}

// windowFull reports whether a flood's next frame must wait for an ack.
func (p *pathDelay) windowFull() bool {
	return p.rate > 0 && p.sentWire-p.ackedWire >= p.window()
}

// floodGap returns the least time between two frames when the path is
// not idle (PacingGosh); interval is Mosh's frame interval, which stands
// until the first round-trip sample.
func (p *pathDelay) floodGap(interval time.Duration) time.Duration {
	if p.gap == 0 {
		return interval
	}
	return p.gap
}

package ssp

import (
	"fmt"
	"strings"
	"time"
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
// gosh's rule (PacingGosh, opt-in for now: see below) sends at once, after a short
// collection delay (IdleSendDelayServer, IdleSendDelayClient), when the path
// is idle: no frame with data went out in the last SendIntervalMin (so a
// stream of output, or a fast typist's burst, is paced as before), and
// fewer than PaceIdleFrames frames and PaceIdleBytes bytes sent in the last
// RTO + AckDelay are still unacknowledged. A keystroke or its echo
// is a datagram of a hundred bytes or so; a few of them in flight cannot
// build a queue on any path a terminal is used over. Otherwise (output that
// keeps coming, a screen repaint, loss) it follows Mosh's rule, so a flood
// still collapses into a frame per interval, skipping the screens between;
// and so does a change worth no frame of its own (the server's echo ack,
// see [Deferrable]).
// Nothing changes on the wire: a stock peer sees frames sooner, nothing
// else.
//
// PacingMosh stays the default until one end-to-end failure is understood:
// under a loaded CI machine, a command typed right after Ctrl-C (tmux sends
// both at once) was twice lost with gosh's pacing, which sends the Ctrl-C
// in a datagram of its own where Mosh's rule sends both together.
type Pacing int

// The pacing rules.
const (
	PacingMosh Pacing = iota
	PacingGosh
)

const (
	// IdleSendDelayServer and IdleSendDelayClient are the collection
	// delays of PacingGosh on an idle path: a server's output for one
	// keystroke comes in one read of the pty, a command's in a few within
	// a millisecond; a client's keystrokes come one read each.
	IdleSendDelayServer = time.Millisecond
	IdleSendDelayClient = 0

	// PaceIdleFrames and PaceIdleBytes bound what PacingGosh may have in
	// flight (sent within RTO + AckDelay and unacknowledged) and still
	// call the path idle.
	PaceIdleFrames = 4
	PaceIdleBytes  = 4096
)

var pacingNames = [...]string{PacingMosh: "mosh", PacingGosh: "gosh"}

// String names the rule as --pacing takes it.
func (p Pacing) String() string {
	if p >= 0 && int(p) < len(pacingNames) {
		return pacingNames[p]
	}
	return fmt.Sprintf("Pacing(%d)", int(p))
}

// Set parses a --pacing value (pflag.Value).
func (p *Pacing) Set(s string) error {
	for i, n := range pacingNames {
		if s == n {
			*p = Pacing(i)
			return nil
		}
	}
	return fmt.Errorf("unknown pacing %q: want one of %s", s, strings.Join(pacingNames[:], ", "))
}

// Type names the flag's value type (pflag.Value).
func (p *Pacing) Type() string { return "pacing" }

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

// pathIdle reports whether the path is idle (PacingGosh): no data frame
// sent within SendIntervalMin, and few and small frames sent within
// RTO + AckDelay and not yet acknowledged.
func (s *sender[S]) pathIdle(now time.Time) bool {
	if !s.lastData.IsZero() && now.Sub(s.lastData) < SendIntervalMin {
		return false
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

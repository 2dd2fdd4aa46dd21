package session

import (
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
)

// The program's answer to input (PacingGosh) is held until it settles:
// fed to the screen once the pty has been quiet for answerQuiet, or
// answerMax after its first output, whichever comes first. A program may
// answer one read of input in several writes (vim, reading "po" and
// Escape at once, first clears "-- INSERT --" and moves the cursor, then
// draws "po" in a second write microseconds later); the frame that
// carries the echo ack must carry all of them, or the client judges its
// predictions against a screen the program was still drawing.
// answerMax is Mosh's collection delay (SEND_MINDELAY), the most an echo
// waits. Only output that follows input on a quiet pty (none read, and
// the reader not paused by the output budget, for answerIdle before it)
// is held: a flood, the program's output while Ctrl-C reaches it, or
// output nobody asked for goes at once as before. And only over a path
// whose frame interval (half the SRTT) is above SendIntervalMin, where
// the client may show predictions (it shows them from a 30 ms interval
// and keeps them down to 20 ms): on a shorter one the echo is on the
// screen before a prediction would be, and the hold would cost every echo
// 2 ms (measured over the lan link: 2.2 ms median echo without it, 4.5
// ms with it).
const (
	answerQuiet = 2 * time.Millisecond
	answerMax   = 8 * time.Millisecond
	answerIdle  = ssp.SendIntervalMin
)

// answer is output that answers input, held until it settles, with the
// echo ack it vouches for.
type answer struct {
	held   []byte    // pty output not yet fed to the screen
	ack    uint64    // the client state whose input it answers
	hasAck bool      // ack is set
	until  time.Time // answerMax after its first output
	due    time.Time // when it is fed; zero: nothing is held
	last   time.Time // when the pty's output was last read
}

// output takes a chunk of the program's output read at now: fed at once,
// or held with the answer it belongs to.
func (s *server) output(b []byte, now time.Time) {
	a := &s.answer
	quiet := now.Sub(a.last) >= answerIdle && now.Sub(time.Unix(0, s.ptyPaused.Load())) >= answerIdle
	a.last = now
	hold := quiet && s.tr.SendInterval() > ssp.SendIntervalMin
	if s.inputDone && s.cfg.Pacing == ssp.PacingGosh && !s.tr.ShutdownInProgress() {
		// All input is written and output follows: it is the answer,
		// and the echo ack of that input goes with it (echoAcker.Answered)
		// rather than in a frame of its own 50 ms later.
		s.inputDone = false
		if a.due.IsZero() && hold {
			a.until = now.Add(answerMax)
			a.due = a.until
		}
		if n, ok := s.echo.Answered(); ok && !a.due.IsZero() {
			a.ack, a.hasAck = max(a.ack, n), true
		} else if ok {
			s.term.SetEchoAck(n)
		}
	}
	if a.due.IsZero() {
		s.feed(b)
		return
	}
	a.held = append(a.held, b...)
	a.due = now.Add(answerQuiet)
	if a.due.After(a.until) {
		a.due = a.until
	}
}

// settle feeds the held answer to the screen and sets its echo ack, if
// it is due at now; the zero now settles it whatever the time (before a
// resize, or when the program's terminal is gone).
func (s *server) settle(now time.Time) {
	a := &s.answer
	if a.due.IsZero() || (!now.IsZero() && now.Before(a.due)) {
		return
	}
	s.feed(a.held)
	if a.hasAck && !s.tr.ShutdownInProgress() && a.ack > s.term.EchoAck() {
		s.term.SetEchoAck(a.ack)
	}
	held := a.held[:0]
	if cap(held) > ptyReadSize {
		held = nil // a flood's worth: not kept for an idle session
	}
	*a = answer{held: held, last: a.last}
}

// feed gives the program's output to the screen, and the terminal's
// replies (to the program's queries) back to the program.
func (s *server) feed(b []byte) {
	s.reply = s.term.Feed(b, s.reply[:0])
	if len(s.reply) > 0 {
		s.enqueue(append([]byte(nil), s.reply...))
	}
}

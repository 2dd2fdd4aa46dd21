package session

import "time"

// echoAckDelay is how long user input must have been with the host
// application before the server vouches, through the echo ack, that any
// echo of it would be on the screen by now (docs/protocol.md section 8.3).
const echoAckDelay = 50 * time.Millisecond

// echoAcker tracks the client states whose input the server has passed to
// the application, and says when each becomes old enough to acknowledge,
// or (Answered) that the application has answered all of it.
// Unlike mosh-server, which only wakes up for this while two batches are
// pending, it asks to be woken for every batch, so the echo ack of an
// isolated keystroke is not delayed until the next frame.
//
// echoAcker is not safe for concurrent use.
type echoAcker struct {
	pending []echoEntry // oldest first
}

type echoEntry struct {
	num uint64    // client state number
	at  time.Time // when its input was written to the application
}

// Record notes that the input of client state num reached the application
// at now.
func (e *echoAcker) Record(num uint64, now time.Time) {
	e.pending = append(e.pending, echoEntry{num, now})
}

// Take returns the newest recorded state whose input is at least
// echoAckDelay old at now, forgetting it and everything older; ok is false
// if none is.
func (e *echoAcker) Take(now time.Time) (num uint64, ok bool) {
	n := 0
	for n < len(e.pending) && !now.Before(e.pending[n].at.Add(echoAckDelay)) {
		num, ok = e.pending[n].num, true
		n++
	}
	e.pending = e.pending[:copy(e.pending, e.pending[n:])]
	return num, ok
}

// Answered returns the newest recorded state, forgetting all of them; ok
// is false if none is recorded. The server calls it when the application
// wrote output after all recorded input was written to it: that output
// is the echo, if there is one, and it goes in the same frame as the echo
// ack instead of a frame of its own 50 ms later.
func (e *echoAcker) Answered() (num uint64, ok bool) {
	if len(e.pending) == 0 {
		return 0, false
	}
	num = e.pending[len(e.pending)-1].num
	e.pending = e.pending[:0]
	return num, true
}

// NextDeadline is when the oldest pending entry becomes acknowledgeable,
// or the zero time.
func (e *echoAcker) NextDeadline() time.Time {
	if len(e.pending) == 0 {
		return time.Time{}
	}
	return e.pending[0].at.Add(echoAckDelay)
}

package session

import (
	"fmt"
	"time"
)

// capExit is bit 34 of gosh_caps (docs/protocol.md section 12.5): a
// client sets it to say it takes how the server's program ended, a server
// to say it sends it. The server sends it (GoshExit) only to a client that
// set it.
const capExit = 1 << 34

// ExitReporter is a [PTY] that can tell how its program ended
// (internal/pty's Program is one). A server whose PTY is one passes the
// program's exit status to a gosh client.
type ExitReporter interface {
	// Exited is closed once the program has exited.
	Exited() <-chan struct{}
	// ExitStatus is how the program ended, once Exited is closed: its
	// exit status, or, when signal is above 0, the signal that killed it.
	ExitStatus() (code, signal int)
}

// exitWait bounds how long a server whose program's terminal is gone
// waits for the program's exit status (the terminal closes as the
// program exits, a moment before its parent learns of it) before it ends
// the session without one.
const exitWait = time.Second

// The kinds of a GoshExit value, in its second byte; the first holds the
// number.
const (
	exitKindStatus = 0x100 // exited with the status in the low byte
	exitKindSignal = 0x200 // killed by the signal in the low byte
)

// encodeExit is the GoshExit value for a program that ended with code or,
// signal above 0, was killed by signal; 0 (none) for what does not fit.
func encodeExit(code, signal int) uint64 {
	switch {
	case signal > 0 && signal < 0x100:
		return exitKindSignal | uint64(signal)
	case signal == 0 && code >= 0 && code < 0x100:
		return exitKindStatus | uint64(code)
	}
	return 0
}

// decodeExit is RunClient's result for a GoshExit value: nil for none, an
// exit with status 0, or a value it does not know (another kind, signal
// 0).
func decodeExit(v uint64) error {
	n := int(v & 0xff)
	switch v &^ 0xff {
	case exitKindStatus:
		if n != 0 {
			return &ExitError{Code: n}
		}
	case exitKindSignal:
		if n != 0 {
			return &ExitError{Signal: n}
		}
	}
	return nil
}

// ExitError is what RunClient returns when the server's program ended
// with a status other than 0, or was killed by a signal, and the server
// said so (a gosh server; a stock mosh-server never does). The session
// itself ended cleanly.
type ExitError struct {
	// Code is the program's exit status; Signal, when above 0, the
	// number of the signal that killed it (Code is then 0).
	Code   int
	Signal int
}

func (e *ExitError) Error() string {
	if e.Signal > 0 {
		return fmt.Sprintf("session: the remote program was killed by signal %d", e.Signal)
	}
	return fmt.Sprintf("session: the remote program exited with status %d", e.Code)
}

// ExitCode is the status for the client's own exit: the program's, or
// 128 plus the signal's number for a program killed by a signal, as a
// shell reports it (at most 255).
func (e *ExitError) ExitCode() int {
	if e.Signal > 0 {
		return min(128+e.Signal, 255)
	}
	return e.Code
}

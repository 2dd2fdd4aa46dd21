package session

import (
	"fmt"
	"io"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
)

// Terminal is the user's terminal as the client loop uses it. The binary
// uses internal/tty's; tests use sessiontest's, which renders what the
// client paints.
type Terminal interface {
	// Write paints bytes on the terminal.
	io.Writer
	// Input delivers what the user types, in order. It is closed when the
	// terminal is gone (end of file or a read error).
	Input() <-chan []byte
	// Size returns the window size in cells.
	Size() (cols, rows int)
	// MakeRaw puts the terminal in raw mode. The client calls it when it
	// starts and again after a suspend.
	MakeRaw() error
	// Restore returns the terminal to the mode it had before the first
	// MakeRaw. It is idempotent.
	Restore() error
	// Suspend stops the client's process as a shell's job control would
	// (Ctrl-Z) and returns once the process continues. The client has
	// restored the terminal before it calls Suspend.
	Suspend()
}

// PTY is the program's pseudo-terminal as the server loop uses it. The
// binary uses internal/pty's; tests use sessiontest's, with an in-memory
// program on the other side.
type PTY interface {
	// Read returns the program's output. It returns io.EOF once the
	// program's side of the terminal is gone, or after Close.
	Read(p []byte) (int, error)
	// Write sends input to the program. It may block while the program
	// does not read; the server calls it from a goroutine of its own.
	Write(p []byte) (int, error)
	// Resize sets the window size, which signals the program (SIGWINCH).
	Resize(cols, rows int) error
	// Close hangs up the terminal and ends the program: pending and later
	// Reads and Writes return, and Close returns once the program has
	// exited (a real one is killed if it lingers).
	Close() error
}

// Signal is a process event that a loop acts on. The caller translates
// the operating system's signals into these and sends them on the loop's
// Signals channel.
type Signal int

// The signals the loops handle.
const (
	// SignalQuit ends the session cleanly (SIGTERM, SIGINT, SIGPIPE on
	// the client; SIGTERM, SIGINT on the server).
	SignalQuit Signal = iota + 1
	// SignalResize says the user's terminal changed size (the client's
	// SIGWINCH).
	SignalResize
	// SignalContinue says the client's process was continued after a
	// stop it did not ask for (SIGCONT): the terminal is set up again.
	SignalContinue
	// SignalEndIfIdle ends the server's session if its client has been
	// silent for the configured signal timeout, or at once when no timeout
	// is set (the server's SIGUSR1, MOSH_SERVER_SIGNAL_TMOUT).
	SignalEndIfIdle
	// SignalNetworkChange says the client's network changed: an interface
	// came up or went down, an address or a route changed, or the machine
	// woke from sleep (internal/netwatch). The client sends at once rather
	// than at its next heartbeat, so a link that returns is used within a
	// round trip.
	SignalNetworkChange
	// SignalHangup says the user's terminal is gone (the client's SIGHUP:
	// a closed window or tab, a dropped SSH connection to the machine,
	// tmux kill-window; on Windows a closed console). With a gosh server
	// the client detaches and the session goes on, resumable; with a
	// stock mosh-server it ends the session, as mosh-client does. The
	// client does the same when the terminal's input ends.
	SignalHangup
)

var signalNames = [...]string{SignalQuit: "quit", SignalResize: "resize", SignalContinue: "continue", SignalEndIfIdle: "end-if-idle",
	SignalNetworkChange: "network-change", SignalHangup: "hangup"}

// String names the signal.
func (s Signal) String() string {
	if s > 0 && int(s) < len(signalNames) {
		return signalNames[s]
	}
	return fmt.Sprintf("Signal(%d)", int(s))
}

// wake finds the earliest of a loop's deadlines.
type wake struct{ at time.Time }

// add considers t; the zero time means no deadline.
func (w *wake) add(t time.Time) {
	if !t.IsZero() && (w.at.IsZero() || t.Before(w.at)) {
		w.at = t
	}
}

// after returns how long from now until the earliest deadline, at most an
// hour (the loops always arm their one timer).
func (w wake) after(now time.Time) time.Duration {
	if w.at.IsZero() {
		return time.Hour
	}
	return min(max(w.at.Sub(now), 0), time.Hour)
}

// flush writes what tr has to send at now to conn, to the transport's
// remote address. A datagram the path refuses as too long (EMSGSIZE)
// lowers the datagram budget to ssp.FallbackDatagram, as mosh does. It
// returns the last write error, which is not fatal, and a transport error,
// which is.
func flush[L ssp.State[L], R ssp.State[R]](tr *ssp.Transport[L, R], conn *ssp.Conn, now time.Time) (writeErr, err error) {
	out, err := tr.Tick(now)
	if err != nil {
		return nil, err
	}
	to, ok := tr.RemoteAddr()
	if !ok {
		return nil, nil
	}
	for _, d := range out {
		if err := conn.WriteTo(d, to); err != nil {
			if ssp.IsMessageTooLong(err) {
				_ = tr.SetMaxDatagram(ssp.FallbackDatagram)
			}
			writeErr = err
		}
	}
	return writeErr, nil
}

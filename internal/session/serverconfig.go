package session

// What the server is given: its configuration, and the bounds of the
// terminal size it accepts.

import (
	"io"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/vt"
)

// ServerConfig is one server session: the socket, the key, the program's
// terminal and the server's lifetime rules.
type ServerConfig struct {
	// Conn is the bound server socket; Serve closes it.
	Conn *ssp.Conn
	// Key is the session key the client was given.
	Key sspcrypto.Key
	// PTY is the program's terminal, already started at Cols×Rows (see
	// [ClampSize]); Serve closes it.
	PTY PTY
	// Cols and Rows are the terminal's size at the start.
	Cols, Rows int
	// Signals delivers SignalQuit and SignalEndIfIdle.
	Signals <-chan Signal
	// MOTD is shown on the screen before the program's output (the login
	// message of the day).
	MOTD []byte
	// NetworkTimeout, when positive, ends the session after that long
	// without a new state from the client (MOSH_SERVER_NETWORK_TMOUT).
	NetworkTimeout time.Duration
	// SignalTimeout, when positive, makes SignalEndIfIdle end the session
	// only if the client has been silent that long
	// (MOSH_SERVER_SIGNAL_TMOUT); otherwise the signal always ends it.
	SignalTimeout time.Duration
	// Pacing is when screen updates are sent (ssp.Pacing; the zero value
	// is gosh's).
	Pacing ssp.Pacing
	// Agent, if not nil, is the socket the program's SSH_AUTH_SOCK names:
	// its connections are forwarded to the client's agent (a gosh client
	// asked with -A). The server closes it when the session ends.
	Agent Listener
	// Dial, if not nil, connects to a TCP "host:port" for a channel the
	// client opens (gosh connect -L and -D); nil refuses them.
	Dial func(hostPort string) (io.ReadWriteCloser, error)
	// Listen, if not nil, listens on a TCP "host:port" for a listening
	// channel the client opens (gosh connect -R); nil refuses them.
	Listen func(hostPort string) (Listener, error)
	// Forwarding is what forwarding the server allows (Dial and Listen
	// permitting): the zero value allows -L, -D and -R, and listens for
	// -R on the loopback address only.
	Forwarding ForwardPolicy
	// Scrollback is how many lines that scrolled off the screen the
	// server keeps for a gosh client's scrollback (the zero value:
	// DefaultScrollback).
	Scrollback Scrollback
	// SessionID is the session's ID on its host (8 lowercase hex digits,
	// the daemon's, as gosh sessions lists it), which the server tells a
	// gosh client that takes it (docs/protocol.md section 12.4); ""
	// tells none.
	SessionID string
	// Control, if not nil, delivers requests from the daemon's control
	// socket (gosh sessions, gosh connect --attach): see [ControlRequest].
	Control <-chan ControlRequest
	// Logf receives the server's log; nil discards it.
	Logf logf.Func

	// stock, set only by this package's tests (export_test.go), makes the
	// server look like a stock mosh-server to its client: it advertises
	// no gosh_caps and ignores the client's.
	stock bool
}

// ClampSize keeps a requested terminal size within what the emulator
// supports, defaulting to 80×24.
func ClampSize(cols, rows int) (int, int) {
	if cols <= 0 || rows <= 0 {
		return 80, 24
	}
	return min(cols, vt.MaxCols), min(rows, vt.MaxRows)
}

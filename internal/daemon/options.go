package daemon

import (
	"net/netip"

	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// Options is what "gosh server new" was asked to do: mosh-server's
// options, parsed once at the command line. The same type reaches the
// daemon inside its configuration.
type Options struct {
	// BindSSH binds to the local address of $SSH_CONNECTION (-s).
	BindSSH bool
	// BindIP is the local address to bind (-i); the zero Addr binds any.
	BindIP netip.Addr
	// Ports is the UDP port or range to try (-p); the zero PortRange tries
	// netaddr.DefaultPorts.
	Ports netaddr.PortRange
	// Colors is the client terminal's colour count (-c); 256 or more
	// selects TERM=xterm-256color, and terminfo.TrueColor (24-bit
	// colour) adds COLORTERM=truecolor.
	Colors int
	// Locale holds NAME=VALUE settings to use when the server's own locale
	// is not UTF-8 (-l, repeatable).
	Locale []string
	// Verbose is the -v count: a verbose daemon logs to the starter's
	// stderr.
	Verbose int
	// Command replaces the login shell when non-empty.
	Command []string
	// Pacing is when screen updates are sent (--pacing; ssp.Pacing).
	Pacing ssp.Pacing
	// ForwardAgent gives the program an SSH_AUTH_SOCK whose connections a
	// gosh client forwards to its agent (--forward-agent; gosh connect -A),
	// if Forwarding allows.
	ForwardAgent bool
	// Forwarding is what forwarding the server allows its client
	// (--allow-tcp-forwarding, --gateway-ports, --allow-agent-forwarding
	// and their GOSH_ variables); the zero value is sshd's defaults.
	Forwarding session.ForwardPolicy
	// Scrollback is how many lines that scrolled off the screen the
	// server keeps for a gosh client's own scrollback (--scrollback); the
	// zero value is session.DefaultScrollback.
	Scrollback session.Scrollback
}

// Started is what [Start] reports: the daemon's UDP port, the session key,
// the daemon's process id, and the session's ID (what [ListSessions]
// lists; "" if the daemon could not make its control socket).
type Started struct {
	Port    uint16
	Key     sspcrypto.Key
	PID     int
	Session string
}

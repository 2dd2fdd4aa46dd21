package session

import (
	"errors"
	"net/netip"
	"time"

	gcrypto "github.com/gosh-term/gosh/internal/crypto"
)

// ControlOp is what a [ControlRequest] asks of a running server.
type ControlOp int

// The requests a server's control socket passes to its session loop.
const (
	// ControlInfo asks for the session's [SessionInfo].
	ControlInfo ControlOp = iota + 1
	// ControlAttach hands the session over to a new client: the server
	// makes a new key, answers with it, and from then on talks only to a
	// client holding it. A previous client is told that the session was
	// taken over from ControlRequest.From, and exits.
	ControlAttach
	// ControlKill ends the session as a signal would.
	ControlKill
)

// ControlRequest is a request to a running server session, from the
// daemon's control socket (a unix socket only the server's user can
// reach). The loop answers on Reply, which must have room for one
// answer.
type ControlRequest struct {
	Op ControlOp
	// From is who takes the session over (ControlAttach): the new
	// client's address as the SSH connection that asked saw it, shown to
	// the previous client.
	From string
	// Reply receives exactly one answer.
	Reply chan<- ControlReply
}

// ControlReply answers a [ControlRequest].
type ControlReply struct {
	// Info is the session's state (every request).
	Info SessionInfo
	// Key is the new session key (ControlAttach).
	Key gcrypto.Key
	// Err, if not nil, says why the request was refused.
	Err error
}

// SessionInfo is what a server tells about its session.
type SessionInfo struct {
	// Started is when the session started.
	Started time.Time
	// LastContact is when the newest authentic datagram arrived (zero:
	// never), and Client where it came from.
	LastContact time.Time
	Client      netip.AddrPort
	// Cols and Rows are the terminal's size.
	Cols, Rows int
	// Attached reports whether a client is talking to the session now
	// (heard from within the last [AttachedWithin]).
	Attached bool
}

// AttachedWithin is how recently a server must have heard from its client
// to call the session attached: two of the client's heartbeats (3 s
// apart) may be lost.
const AttachedWithin = 10 * time.Second

// ErrAttachUnsupported is the answer to ControlAttach while a session
// cannot be handed over.
var ErrAttachUnsupported = errors.New("session: this server cannot hand its session over")

// control answers a request from the control socket; it reports whether
// the session must end at once (as signal does).
func (s *server) control(req ControlRequest, now time.Time) (exitNow bool) {
	reply := ControlReply{Info: s.info(now)}
	switch req.Op {
	case ControlInfo:
	case ControlKill:
		s.logf("Ended by gosh sessions --kill.")
		exitNow = s.startShutdown(now)
	case ControlAttach:
		reply.Err = ErrAttachUnsupported
	default:
		reply.Err = errors.New("session: unknown control request")
	}
	select {
	case req.Reply <- reply:
	default: // the asker gave no room: its loss
	}
	return exitNow
}

// info is the session's state for the control socket.
func (s *server) info(now time.Time) SessionInfo {
	fb := s.term.Framebuffer()
	in := SessionInfo{Started: s.start, LastContact: s.tr.LastDatagram(), Cols: fb.Width(), Rows: fb.Height()}
	in.Client, _ = s.tr.RemoteAddr() // the last one, also when detached
	in.Attached = !in.LastContact.IsZero() && now.Sub(in.LastContact) < AttachedWithin
	return in
}

package session

import (
	"errors"
	"net/netip"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
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
	Key sspcrypto.Key
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

// control answers a request from the control socket; it reports whether
// the session must end at once (as signal does).
func (s *server) control(req ControlRequest, now time.Time) (exitNow bool) {
	reply := ControlReply{Info: s.info(now)}
	switch req.Op {
	case ControlInfo:
	case ControlKill:
		s.logf.Printf("Ended by gosh sessions --kill.")
		exitNow = s.startShutdown(now)
	case ControlAttach:
		reply.Key, reply.Err = s.attach(req.From, now)
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

// takenOverLinger is how long a server keeps the transport of a client
// whose session was taken over, to tell it so: the notice goes at once,
// and again with each of the heartbeats in this time.
const takenOverLinger = 10 * time.Second

// epochStates are the canonical initial states of an epoch above 0
// (docs/protocol.md section 12.4): a blank 80×24 screen with empty logs
// and an empty input stream. A client that resumes or takes over a
// session starts from them too, whatever its size: its first event is
// its size, and the server's first diff carries the whole screen.
func epochStates() (*statesync.Complete, *statesync.UserStream) {
	return statesync.NewComplete(80, 24), statesync.NewUserStream()
}

// epochStatesClient are epochStates as a client holds them: its
// initial user stream, and the server's initial screen.
func epochStatesClient() (*statesync.UserStream, *statesync.Complete) {
	remote, local := epochStates()
	return local, remote
}

// attach hands the session over to a new client: a new key, a new
// transport from the canonical initial states (the client starts in
// epoch 1), and the previous client's transport kept a while, frozen,
// to tell it who took the session.
func (s *server) attach(from string, now time.Time) (sspcrypto.Key, error) {
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		return sspcrypto.Key{}, err
	}
	tr, err := ssp.NewTransport(s.transportConfig(key), s.term, statesync.NewUserStream(), now)
	if err != nil {
		return sspcrypto.Key{}, err
	}
	tr.SetEpochStates(epochStates)
	tr.Restart(now)
	old := s.tr
	if old.PeerCaps() != 0 { // a stock mosh-client is not told: it would ignore it
		old.Freeze()
		old.SetNotice(now, "session taken over from "+from)
		s.oldTr, s.oldUntil = old, now.Add(takenOverLinger)
	}
	s.tr = tr
	s.logf.Printf("Session taken over from %s.", from)
	s.newClient(now)
	return key, nil
}

// newClient forgets what the session knew of its client when a new one
// starts (a takeover, or a client that resumed in a new epoch): the input
// events, the echo ack, the channels and the scrollback log start again,
// and the scrollback resumes where the client says its terminal is.
func (s *server) newClient(now time.Time) {
	s.epoch = s.tr.Epoch()
	s.input, s.remoteNum = statesync.NewUserStream(), 0
	s.echo = echoAcker{}
	s.term.SetEchoAck(0)
	s.chans.reset()
	s.term.ResetChannels()
	s.cstream = nil // the new client's stream starts afresh
	s.term.ResetScroll()
	s.histPos = s.tr.ResumeFrom()
	s.attachedAt = now
}

// lastHeard is when the client was last heard from, or the session taken
// over if later (a new transport has heard nothing yet).
func (s *server) lastHeard() time.Time {
	if t := s.tr.LastHeard(); t.After(s.attachedAt) {
		return t
	}
	return s.attachedAt
}

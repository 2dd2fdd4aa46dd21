package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/resume"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"golang.org/x/term"
)

// savedSession is the saved record (internal/resume) of the session a
// gosh connect runs: a new one it made, or one it resumes. Its methods do
// nothing on a nil receiver: a run without a record (no state directory,
// or a stock mosh-server) goes on without one.
type savedSession struct {
	file     *resume.File
	dir      string        // the records' directory (resume.Dir)
	resumed  bool          // this run resumes the session (a new epoch)
	flushed  time.Time     // the scrollback position was last written
	gone     atomic.Bool   // nothing listens at the server's port any more (watchGone)
	answered chan struct{} // closed at the server's first state (configure)
	answer   sync.Once
}

// scrollFlushEvery bounds how often the scrollback position is written
// on its own (it also goes with every reservation): after a client is
// killed, its successor may get again the lines of up to this long.
const scrollFlushEvery = time.Second

// pickResume decides whether this run resumes a saved session: the one
// --resume names, or, without --new, a detached one for the host that the
// user accepts when asked. It returns nil for a new session.
func pickResume(o *ConnectOptions, stdin *os.File) (*savedSession, error) {
	if !o.Resume && (o.New || o.Direct || o.Local || o.Attach != "" || len(o.Command) > 0 || !term.IsTerminal(int(stdin.Fd()))) {
		return nil, nil
	}
	dir, err := resume.Dir()
	if err != nil {
		if o.Resume {
			return nil, fmt.Errorf("connect: %w", err)
		}
		return nil, nil
	}
	recs, err := resume.List(dir, o.Destination)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	pick := pickRecord(recs, o.ResumeID)
	switch {
	case pick == nil && o.ResumeID != "":
		return nil, fmt.Errorf("connect: no saved session %s on this machine (gosh connect --attach %s HOST takes over one that gosh sessions HOST lists)", o.ResumeID, o.ResumeID)
	case pick == nil && o.Resume:
		what := "no detached session to resume"
		if o.Destination != "" {
			what += " for " + o.Destination
		}
		return nil, fmt.Errorf("connect: %s (start one with gosh connect HOST)", what)
	case pick == nil:
		return nil, nil
	case !pick.Gosh:
		if !o.Resume {
			return nil, nil
		}
		fmt.Fprintf(o.Stderr, "gosh: session %s is with a stock mosh-server, which cannot resume a session; starting a new one\n", pick.Name())
		if o.Destination == "" {
			o.Destination = pick.Host
		}
		o.Resume = false
		return nil, nil
	}
	if !o.Resume {
		yes, err := resume.AskResume(stdin, o.Stdout, *pick) // on the terminal, as the other prompts
		if err != nil || !yes {
			return nil, nil
		}
	}
	f, err := resume.Claim(dir, pick.ID)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	o.Destination = pick.Host
	return &savedSession{file: f, dir: dir, resumed: true, answered: make(chan struct{})}, nil
}

// pickRecord is the saved session to resume from recs (newest first):
// without a name the newest detached one; with one, the newest detached
// one the user knows by that name ([resume.Record.Name]), else the newest
// of that name (which a live client holds: claiming it says so). nil if
// there is none.
func pickRecord(recs []resume.Record, name string) *resume.Record {
	var held *resume.Record
	for i := range recs {
		r := &recs[i]
		switch {
		case name != "" && r.Name() != name:
		case r.Detached:
			return r
		case name != "" && held == nil:
			held = r
		}
	}
	return held
}

// target is the saved server address and key.
func (s *savedSession) target() (netip.AddrPort, sspcrypto.Key, error) {
	r := s.file.Record()
	addr, err := netip.ParseAddrPort(r.Server)
	if err != nil {
		return netip.AddrPort{}, sspcrypto.Key{}, fmt.Errorf("connect: session %s: bad server address: %w", r.ID, err)
	}
	key, err := sspcrypto.ParseKey(r.Key)
	if err != nil {
		return netip.AddrPort{}, sspcrypto.Key{}, fmt.Errorf("connect: session %s: %w", r.ID, err)
	}
	return addr, key, nil
}

// saveSession saves a new session's record under the server's session ID
// (id; "" if the server told none), so that a later gosh connect can
// resume it if this client dies. It returns nil (and logs why) if it
// cannot.
func saveSession(o *ConnectOptions, server netip.AddrPort, key sspcrypto.Key, id string, logf logf.Func) *savedSession {
	dir, err := resume.Dir()
	if err != nil {
		logf.Printf("not saving the session for resuming: %v", err)
		return nil
	}
	host := o.Destination
	switch {
	case o.Local:
		host = "--local"
	case o.Direct:
		host = o.DirectHost
	}
	if id != "" {
		forgetSession(dir, host, id)
	}
	rec := resume.Record{
		Session: id,
		Host:    host, Server: server.String(), Key: key.Base64(),
		Gosh:    !strings.Contains(o.Server, "mosh-server"),
		Epoch:   attachEpoch(o),
		Started: time.Now(), Command: strings.Join(o.Command, " "),
	}
	f, err := resume.Create(dir, rec)
	if err != nil {
		logf.Printf("not saving the session for resuming: %v", err)
		return nil
	}
	return &savedSession{file: f, dir: dir}
}

// forgetSession removes the detached records of session id on host: the
// session was taken over (--attach gave it a new key) or has ended (a new
// one has its ID), so they can no longer resume it. A record a live client
// holds is left to that client, which is told when it is taken over.
func forgetSession(dir, host, id string) {
	recs, err := resume.List(dir, host)
	if err != nil {
		return
	}
	for _, r := range recs {
		if r.Session != id || !r.Detached {
			continue
		}
		if f, err := resume.Claim(dir, r.ID); err == nil {
			_ = f.Remove()
		}
	}
}

// configure gives the client the record's sequence-number reservation,
// its scrollback position, and for a resumed session its new epoch.
func (s *savedSession) configure(cfg *session.ClientConfig) {
	if s == nil {
		return
	}
	r := s.file.Record()
	cfg.FirstSeq, cfg.ReserveSeq = r.Seq, s.file.Reserve
	if s.resumed {
		cfg.Epoch, cfg.ResumeFrom = r.Epoch, r.Scroll
	}
	cfg.ScrollPushed = func(next uint64) {
		s.file.SetScroll(next)
		if now := time.Now(); now.Sub(s.flushed) >= scrollFlushEvery {
			s.flushed = now
			_ = s.file.Flush()
		}
	}
	cfg.GoshServer = func(gosh bool) {
		if s.answered != nil {
			s.answer.Do(func() { close(s.answered) })
		}
		s.file.SetGosh(gosh)
		_ = s.file.Flush()
	}
	cfg.SessionID = s.named
}

// named records the session's ID on its host as its server told it (a
// --direct client never sees the detach notice that names it), so that
// the session is known by one ID here as there; detached records of the
// same session, which a takeover left stale, are forgotten.
func (s *savedSession) named(id string) {
	r := s.file.Record()
	if r.Session == id || s.file.SetSession(id) != nil {
		return
	}
	_ = s.file.Flush()
	forgetSession(s.dir, r.Host, id)
}

// end settles the record after the session, and returns err: a session
// that ended, was taken over, or (resumed) found no server is forgotten;
// otherwise the server may still run, and the record is left detached.
func (s *savedSession) end(err error, stderr io.Writer) error {
	if s == nil {
		return err
	}
	switch {
	case err == nil, errors.Is(err, session.ErrTakenOver), errors.As(err, new(*session.ExitError)):
		_ = s.file.Remove()
	case errors.Is(err, session.ErrDetached):
		_ = s.file.Release()
		name := s.file.Record().Name()
		fmt.Fprintf(stderr, "gosh: detached from session %s; gosh connect --resume %s resumes it\n", name, name)
		return nil
	case errors.Is(err, session.ErrNoConnection):
		_ = s.file.Remove()
		if s.gone.Load() {
			r := s.file.Record()
			return fmt.Errorf("session %s has ended: nothing listens on its UDP port at %s any more (gosh sessions %s lists what still runs there)", r.Name(), r.Server, r.Host)
		}
		if s.resumed {
			// One line, not this and the firewall advice of err: the
			// server answered here before.
			r := s.file.Record()
			return fmt.Errorf("session %s does not answer: it has ended, or the network to %s is down (gosh sessions %s lists what still runs there)", r.Name(), r.Host, r.Host)
		}
	default:
		_ = s.file.Release()
		name := s.file.Record().Name()
		fmt.Fprintf(stderr, "gosh: session %s may still be running; gosh connect --resume %s resumes it\n", name, name)
	}
	return err
}

// goneAfter is how long a resumed session waits for its server's first
// state before watchGone looks for the sign that the server has gone (a
// resume takes a round trip or two); goneWait bounds the looking: the
// host's answer comes within a round trip, and this is longer than most.
const (
	goneAfter = time.Second
	goneWait  = 2 * time.Second
)

// watchGone returns ctx, cancelled if the server of the session being
// resumed has gone: its host answers a datagram to the session's port
// with "port unreachable", which only a port nothing listens on gets (a
// server holds its port for as long as it runs). Without it a resume of a
// session that ended waits out the connect timeout and the shutdown's
// before it says so. Where no such answer comes (a firewall, a host
// that is down, Windows, where Go's UDP sockets do not report it) the
// session waits for its server as before. It looks only if the server
// has not answered within goneAfter, so a server that runs rarely gets
// the look's empty datagrams. ctx is returned as is when this run does
// not resume a session.
func (s *savedSession) watchGone(ctx context.Context, server netip.AddrPort) context.Context {
	if s == nil || !s.resumed {
		return ctx
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTimer(goneAfter)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.answered:
			return
		case <-ctx.Done():
			return
		}
		if portClosed(ctx, s.answered, server, goneWait) {
			s.gone.Store(true)
			cancel()
		}
	}()
	return ctx
}

// portClosed tells whether the host at server answers, within wait, that
// nothing listens on its UDP port. It sends empty datagrams on a socket
// of its own, connected, so that the kernel reports the host's answer
// (ECONNREFUSED); a server that runs drops them as too short to open. It
// stops, false, once ctx is done or answered closed.
func portClosed(ctx context.Context, answered <-chan struct{}, server netip.AddrPort, wait time.Duration) bool {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(server))
	if err != nil {
		return false
	}
	defer c.Close()
	deadline := time.Now().Add(wait)
	var buf [1]byte
	for ctx.Err() == nil && time.Now().Before(deadline) {
		select {
		case <-answered:
			return false
		default:
		}
		if _, err := c.Write(nil); err != nil {
			return errors.Is(err, syscall.ECONNREFUSED)
		}
		next := time.Now().Add(250 * time.Millisecond)
		if next.After(deadline) {
			next = deadline
		}
		_ = c.SetReadDeadline(next)
		if _, err := c.Read(buf[:]); errors.Is(err, syscall.ECONNREFUSED) {
			return true
		}
	}
	return false
}

package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// Server lifetime limits (docs/protocol.md section 1.6).
const (
	// noClientTimeout ends a server that never hears from a client.
	noClientTimeout = 60 * time.Second
	// ptyReadSize is the most pty output read at once.
	ptyReadSize = 32 << 10
	// maxPTYBacklog bounds the user input queued for an application that
	// does not read it; beyond it input is dropped (and logged) rather than
	// blocking the session.
	maxPTYBacklog = 16 << 20
)

// Serve runs a server session until it ends: the program exits and the
// client acknowledges the shutdown, the client shuts down, no client ever
// connects, a timeout expires, a signal ends it, or ctx is cancelled. It
// closes the PTY (ending the program) and the Conn before returning.
func Serve(ctx context.Context, cfg ServerConfig) error {
	s, err := newServer(cfg)
	if err != nil {
		cfg.PTY.Close()
		cfg.Conn.Close()
		return err
	}
	return s.run(ctx)
}

func newServer(cfg ServerConfig) (*server, error) {
	logf := cfg.Logf
	now := time.Now()
	cols, rows := ClampSize(cfg.Cols, cfg.Rows)
	term := statesync.NewComplete(cols, rows)
	if len(cfg.MOTD) > 0 {
		term.Feed(cfg.MOTD, nil)
	}
	if n := cfg.Scrollback.Lines(); n > 0 {
		term.EnableHistory(n)
	}
	// (MOTD lines that scrolled are in the history: the client gets them.)
	tcfg := serverTransport(cfg, cfg.Key, logf)
	tr, err := ssp.NewTransport(tcfg, term, statesync.NewUserStream(), now)
	if err != nil {
		return nil, err
	}
	tr.SetEpochStates(epochStates)
	chans := newChannels(true, term, cfg.dialService, logf)
	chans.listen = cfg.listenService // the client's -R
	s := &server{
		chans: chans,
		input: statesync.NewUserStream(),
		cfg:   cfg, logf: logf, tr: tr, term: term, start: now,
		conn: cfg.Conn, pty: cfg.PTY, signals: cfg.Signals,
		ptyOut:    make(chan []byte),
		writeReq:  make(chan []byte),
		writeDone: make(chan error, 1),
		done:      make(chan struct{}),
	}
	if h := term.History(); h != nil {
		h.OnRecord(s.pushScrollback)
	}
	chans.state = &chanSink{log: term, stream: s.channelStream}
	return s, nil
}

// serverTransport is the transport configuration of a server with key.
func serverTransport(cfg ServerConfig, key sspcrypto.Key, logf logf.Func) ssp.Config {
	caps := uint64(goshCaps) | capChannels | capScrollback | capExit | capSession | capStream
	if cfg.stock {
		caps = 0
	}
	return ssp.Config{
		Key:         key,
		Server:      true,
		MaxDatagram: ssp.DatagramBudget(cfg.Conn.LocalAddr().Addr()),
		LocalCaps:   caps,
		Pacing:      cfg.Pacing,
		Logf:        logf,
	}
}

// transportConfig is s's transport configuration with another key.
func (s *server) transportConfig(key sspcrypto.Key) ssp.Config {
	return serverTransport(s.cfg, key, s.logf)
}

// server is one running server session.
type server struct {
	cfg   ServerConfig
	logf  logf.Func
	start time.Time

	// Owned by run:
	tr        *ssp.Transport[*statesync.Complete, *statesync.UserStream]
	term      *statesync.Complete // tr.Current()
	keys      keyTranslator
	echo      echoAcker
	queue     [][]byte // input waiting to be written to the pty
	queued    int      // bytes in queue
	writing   bool     // the writer goroutine holds queue[0]
	inputDone bool     // all recorded input is written; output may answer it
	answer    answer   // the program's answer to input, held until it settles (answer.go)
	remoteNum uint64   // newest client state processed
	connected bool     // a client state has arrived
	shellGone bool
	endHeard  bool   // the program is gone: start the shutdown once a client is heard
	exitValue uint64 // how the program ended, as GoshExit (exit.go); 0: not known
	exit      bool   // end the session at the next iteration
	reply     []byte
	chans     *channels
	cstream   *chanStream           // the channels' stream, once the client takes it (stream.go)
	input     *statesync.UserStream // the client's events taken so far (holds none)
	listening bool                  // the agent socket is served
	histPos   uint64                // the next history line to put into the state
	epoch     uint64                // the client's epoch (control.go)
	// A session taken over keeps the previous client's transport a while
	// to tell it so (control.go).
	oldTr      *ssp.Transport[*statesync.Complete, *statesync.UserStream]
	oldUntil   time.Time
	attachedAt time.Time // when a new client last took the session (over, or resumed it)

	// Inputs to run:
	conn      *ssp.Conn
	pty       PTY
	signals   <-chan Signal
	ptyOut    chan []byte // pty output; closed when the program's terminal is gone
	writeReq  chan []byte // to the pty writer
	writeDone chan error  // from the pty writer
	done      chan struct{}
	wg        sync.WaitGroup
	ptyPaused atomic.Int64 // when readPTY's last pause for the output budget ends (Unix ns); it writes, run reads
}

// run is the server's session loop (the run loop: the one owner of the
// session's state and its one timer; docs/style.md rule 3). It is one select
// over every source the session has, each case a call, which is longer
// than a page but reads as the list of what can happen.
func (s *server) run(ctx context.Context) error {
	s.wg.Add(2)
	go s.readPTY()
	go s.writePTY()
	defer s.stop()

	ctxDone := ctx.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Now()
		if exit, err := s.housekeeping(now); exit {
			return err
		}
		if err := s.send(now); err != nil {
			return err
		}
		timer.Reset(s.deadline(now).after(now))

		var writeCh chan []byte
		var head []byte
		if len(s.queue) > 0 && !s.writing {
			writeCh, head = s.writeReq, s.queue[0]
		}
		select {
		case d, ok := <-s.conn.Datagrams():
			if !ok {
				return errors.New("session: UDP socket closed")
			}
			s.receive(d)
			s.receiveStream()
		case err := <-s.conn.Failed():
			s.logf.Printf("%v", err)
			return fmt.Errorf("session: %w", err)
		case b, ok := <-s.ptyOut:
			if !ok {
				s.ptyOut = nil
				s.settle(time.Time{})
				s.shellExited(time.Now())
				continue
			}
			if s.writing && len(s.queue) == 1 {
				// The writer holds the last input: output that comes
				// before its report is the program's answer to it (the
				// loop may take the output first), and must share the
				// echo's frame rather than cost a frame of its own.
				s.inputDone = true
			}
			s.output(b, time.Now())
		case writeCh <- head:
			s.writing = true
		case err := <-s.writeDone:
			s.written(err)
		case ev := <-s.chans.events:
			if a, ok := ev.(evAccepted); ok && s.peerCaps()&capChannels == 0 {
				s.chans.drop(a) // a stock client, or none yet: nothing to forward to
				continue
			}
			s.chans.event(ev)
		case sig := <-s.signals:
			s.exit = s.exit || s.signal(sig, time.Now())
		case req := <-s.cfg.Control:
			s.exit = s.exit || s.control(req, time.Now())
		case <-ctxDone:
			ctxDone = nil
			s.exit = s.exit || s.startShutdown(time.Now())
		case <-timer.C:
		}
	}
}

// housekeeping applies the time-based rules of an iteration and reports
// whether the session is over.
func (s *server) housekeeping(now time.Time) (exit bool, err error) {
	s.settle(now)
	if n, ok := s.echo.Take(now); ok && !s.tr.ShutdownInProgress() {
		s.term.SetEchoAck(n)
	}
	if peer := s.peerCaps(); peer != 0 {
		s.term.SetWireCaps(vt.Caps(peer) & goshCaps)
		if peer&capExit != 0 {
			s.tr.SetExit(s.exitValue) // before the shutdown that carries it
		}
		if peer&capSession != 0 {
			s.tr.SetSession(s.cfg.SessionID)
		}
	}
	s.pushScrollback()
	if s.cfg.Agent != nil && !s.listening {
		s.listening = true
		s.chans.listenService(s.cfg.Agent, "the agent socket", true, fixed(ServiceAgent))
	}
	switch {
	case s.exit:
		return true, nil
	case s.tr.ShutdownInProgress() && s.tr.ShutdownAcknowledged():
		s.logf.Printf("Shutdown acknowledged by the client.")
		return true, nil
	case s.tr.ShutdownInProgress() && s.tr.ShutdownAckTimedOut(now):
		s.logf.Printf("The client did not acknowledge the shutdown.")
		return true, nil
	case s.tr.CounterpartyShutdownAckSent():
		s.logf.Printf("The client shut down the session.")
		return true, nil
	case !s.connected && now.Sub(s.start) >= noClientTimeout:
		s.logf.Printf("No connection within %d seconds.", int(noClientTimeout/time.Second))
		return true, nil
	case s.connected && s.cfg.NetworkTimeout > 0 && now.Sub(s.lastHeard()) >= s.cfg.NetworkTimeout:
		s.logf.Printf("Network idle for %d seconds.", int(now.Sub(s.lastHeard())/time.Second))
		return true, nil
	}
	return false, nil
}

// peerCaps is the gosh_caps of the client (0 for a stock one), as the
// server acts on them.
func (s *server) peerCaps() uint64 {
	if s.cfg.stock {
		return 0
	}
	return s.tr.PeerCaps()
}

// send writes what the transport has to send now (and what the previous
// client's transport, after a takeover, has to tell it).
func (s *server) send(now time.Time) error {
	if s.oldTr != nil {
		if now.After(s.oldUntil) {
			s.oldTr = nil
		} else if _, err := flush(s.oldTr, s.conn, now); err != nil {
			s.oldTr = nil
		}
	}
	writeErr, err := flush(s.tr, s.conn, now)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if writeErr != nil {
		s.logf.Printf("sendto: %v", writeErr)
	}
	if cs := s.channelStream(); cs != nil { // after the screen's frames
		if err := cs.flush(s.tr, s.conn, now); err != nil {
			return fmt.Errorf("session: %w", err)
		}
	}
	return nil
}

// channelStream returns the channels' stream if the client takes it,
// starting it the first time.
func (s *server) channelStream() *chanStream {
	if s.tr.PeerCaps()&capStream == 0 {
		return nil
	}
	if s.cstream == nil {
		s.cstream = newChanStream(time.Now(), s.tr.SRTT())
	}
	return s.cstream
}

// deadline is when the loop must wake up next, whatever else happens.
func (s *server) deadline(now time.Time) wake {
	var w wake
	w.add(s.tr.NextDeadline())
	if s.oldTr != nil {
		w.add(s.oldTr.NextDeadline())
		w.add(s.oldUntil)
	}
	w.add(s.echo.NextDeadline())
	w.add(s.answer.due)
	if s.cstream != nil {
		w.add(s.cstream.st.NextDeadline())
	}
	if !s.connected {
		w.add(s.start.Add(noClientTimeout))
	} else if s.cfg.NetworkTimeout > 0 {
		w.add(s.lastHeard().Add(s.cfg.NetworkTimeout))
	}
	if s.tr.ShutdownInProgress() {
		w.add(now.Add(ssp.SendIntervalMax)) // to notice ShutdownAckTimedOut
	}
	if s.tr.CounterpartyShutdownAckSent() {
		w.add(now) // the session is over: end without waiting for an event
	}
	return w
}

// receive hands a datagram to the transport and acts on new client input.
func (s *server) receive(d ssp.Datagram) {
	if err := s.tr.Receive(d.At, d.Data, d.From); err != nil {
		var de *ssp.DropError
		if s.oldTr != nil && errors.As(err, &de) && de.Reason == ssp.DropAuth {
			_ = s.oldTr.Receive(d.At, d.Data, d.From) // the previous client: it gets the notice
			return
		}
		s.logf.Printf("dropped datagram from %v: %v", d.From, err)
		return
	}
	if s.tr.Epoch() != s.epoch {
		s.newClient(d.At)
	}
	if p := s.tr.Aux(); p != nil {
		if cs := s.channelStream(); cs != nil {
			for _, m := range cs.receive(d.At, p, s.logf) {
				s.chans.receive(m)
			}
		}
	}
	s.chans.flushAll() // acks may have made room
	if n := s.tr.RemoteNum(); n != s.remoteNum && n != ssp.ShutdownNum {
		s.remoteNum = n
		s.connected = true
		s.processInput(d.At)
	}
	if s.endHeard && s.connected {
		s.endHeard = false
		s.exit = s.exit || s.startShutdown(d.At)
	}
}

// processInput applies the user events of the newest client state: resizes
// (only the last of a run counts) and keystrokes, translated for DECCKM.
func (s *server) processInput(now time.Time) {
	// The diff continues the events taken so far: channel messages carry
	// their absolute positions (keys and resizes carry none).
	from := s.input.Total()
	in := s.input.Clone()
	err := in.Apply(s.tr.RemoteDiff())
	s.input = s.tr.Remote().Clone() // next time, from the newest state's count
	s.input.Subtract(s.input)
	if err != nil {
		s.logf.Printf("bad user input: %v", err)
		return
	}
	events := in.EventsSince(from)
	var keys []byte
	for i, ev := range events {
		if ev.Channel != nil {
			s.chans.receive(*ev.Channel)
			continue
		}
		if ev.Resize {
			if i+1 < len(events) && events[i+1].Resize {
				continue
			}
			s.settle(time.Time{}) // output drawn for the old size first
			cols, rows := ClampSize(ev.Cols, ev.Rows)
			if err := s.pty.Resize(cols, rows); err != nil && !s.shellGone {
				s.logf.Printf("resizing the terminal: %v", err)
			}
			s.term.Resize(cols, rows)
			continue
		}
		keys = s.keys.Translate(keys, ev.Keys, s.term.AppCursorKeys())
	}
	if len(keys) > 0 {
		s.enqueue(keys)
	}
	if len(events) > 0 {
		s.echo.Record(s.remoteNum, now)
		s.inputDone = len(s.queue) == 0 && !s.writing // a resize is applied at once
	}
}

// enqueue queues bytes for the program, never blocking the loop.
func (s *server) enqueue(b []byte) {
	if s.shellGone {
		return
	}
	if s.queued+len(b) > maxPTYBacklog {
		s.logf.Printf("the application is not reading its input; dropped %d bytes", len(b))
		return
	}
	s.queue = append(s.queue, b)
	s.queued += len(b)
}

// written takes the writer's report on the head of the queue.
func (s *server) written(err error) {
	s.writing = false
	s.queued -= len(s.queue[0])
	s.queue[0] = nil
	s.queue = s.queue[1:]
	s.inputDone = len(s.queue) == 0 && err == nil
	if err != nil && !s.shellGone {
		s.logf.Printf("writing to the terminal: %v", err)
		s.shellExited(time.Now())
	}
}

// shellExited starts the end of the session when the program's terminal
// is gone, with the program's exit status if it is known by then
// (readPTY waits a moment for it). A program that ended before any client
// was heard from (gosh connect HOST -- echo hi) keeps its last screen
// until one is, and the shutdown starts then, as mosh-server does: the
// client gets the screen with the shutdown. The no-client timeout still
// ends a session no client ever reaches.
func (s *server) shellExited(now time.Time) {
	if s.shellGone {
		return
	}
	s.shellGone = true
	if s.writing { // the writer holds the head; it reports back
		s.queue, s.queued = s.queue[:1], len(s.queue[0])
	} else {
		s.queue, s.queued = nil, 0
	}
	if er, ok := s.pty.(ExitReporter); ok {
		select {
		case <-er.Exited():
			s.exitValue = encodeExit(er.ExitStatus())
		default:
		}
	}
	if !s.connected {
		s.logf.Printf("The program ended before a client connected; waiting for one.")
		s.endHeard = true
		return
	}
	s.exit = s.exit || s.startShutdown(now)
}

// startShutdown starts the shutdown handshake, or reports that the session
// can end at once because no client is attached.
func (s *server) startShutdown(now time.Time) (exitNow bool) {
	if _, ok := s.tr.RemoteAddr(); !ok || !s.connected {
		return true
	}
	if !s.tr.ShutdownInProgress() {
		s.tr.StartShutdown(now)
	}
	return false
}

// signal handles SignalQuit and SignalEndIfIdle.
func (s *server) signal(sig Signal, now time.Time) (exitNow bool) {
	switch sig {
	case SignalEndIfIdle:
		if s.cfg.SignalTimeout > 0 {
			idle := now.Sub(s.lastHeard())
			if s.connected && idle < s.cfg.SignalTimeout {
				return false
			}
			s.logf.Printf("Network idle for %d seconds when SIGUSR1 received", int(idle/time.Second))
		}
	case SignalQuit:
	default:
		return false
	}
	return s.startShutdown(now)
}

// stop hangs up the program's terminal (which ends the program), waits for
// the feeders and closes the socket.
func (s *server) stop() {
	close(s.done)
	if s.cfg.Agent != nil {
		s.cfg.Agent.Close()
	}
	s.chans.close()
	if err := s.pty.Close(); err != nil {
		s.logf.Printf("closing the terminal: %v", err)
	}
	s.wg.Wait()
	s.conn.Close()
}

package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/terminfo"
	"github.com/gosh-term/gosh/internal/termview"
	"github.com/gosh-term/gosh/internal/vt"
)

// Client timing (docs/protocol.md section 11).
const (
	// connectingNotice is how long after start the bar says nothing has
	// arrived yet.
	connectingNotice = 250 * time.Millisecond
	// connectTimeout gives up on a server that never sends a state.
	connectTimeout = 15 * time.Second
	// pasteSize: a read larger than this is a paste, never predicted.
	pasteSize = 100
	// inputWindow bounds the typed input in flight (sent, not yet
	// acknowledged): a large paste goes out in pieces of about this size
	// rather than as one huge instruction that any lost fragment would
	// send again whole.
	inputWindow = 64 << 10
	// maxBatch bounds the datagrams handled between two paints.
	maxBatch = 64
)

// ClientConfig is one client session.
type ClientConfig struct {
	// Server is the server's UDP address and Key the session key.
	Server netip.AddrPort
	Key    sspcrypto.Key
	// Conn is the socket to talk to the server from (ssp.Dial); the
	// client closes it when the session ends.
	Conn *ssp.Conn
	// Terminal is the user's terminal.
	Terminal Terminal
	// Signals delivers SignalQuit, SignalResize, SignalContinue and
	// SignalNetworkChange.
	Signals <-chan Signal
	// TermInfo describes the user's terminal; nil means an xterm-like one.
	TermInfo *terminfo.Terminal
	// Predict is the speculative echo engine; nil predicts nothing.
	Predict Predictor
	// NoInit skips the alternate screen (MOSH_NO_TERM_INIT).
	NoInit bool
	// EscapeKey and EscapeKeySet are MOSH_ESCAPE_KEY and whether it is set.
	EscapeKey    string
	EscapeKeySet bool
	// Pacing is when keystrokes are sent (ssp.Pacing; the zero value is
	// gosh's).
	Pacing ssp.Pacing
	// Transport says whether the datagrams may go over the relay when
	// UDP is blocked (the zero value: when nothing comes over UDP).
	Transport TransportMode
	// DialRelay opens the relay: a stream to the server's UDP port
	// (gosh server relay, over SSH). It may ask the user through ask (a
	// password for a new login). Nil means there is none, and the client
	// uses UDP alone whatever Transport says.
	DialRelay func(ctx context.Context, ask Asker) (Relay, error)
	// DialAgent, if not nil, connects to the user's SSH agent: the
	// server's agent socket is forwarded to it (-A). Nil refuses agent
	// channels.
	DialAgent func() (io.ReadWriteCloser, error)
	// Forwards are local listeners whose connections go to the server's
	// side (-L, -D), once the server is known to take them (a gosh
	// server). The client closes them when the session ends.
	Forwards []Forward
	// RemoteForwards are listeners the server opens (-R), whose
	// connections the client dials with DialTCP.
	RemoteForwards []RemoteForward
	// DialTCP connects to a TCP "host:port" for RemoteForwards.
	DialTCP func(hostPort string) (io.ReadWriteCloser, error)
	// Epoch, above 0, resumes a session or takes it over (a gosh server
	// only; docs/protocol.md section 12.4): both directions start again
	// from the canonical initial states, so the server sends the whole
	// screen. FirstSeq and ReserveSeq are the transport's (ssp.Config): a
	// client that resumes under the same key continues above every
	// sequence number it may have used. ResumeFrom is the first
	// scrollback line the terminal lacks (ScrollPushed's last report).
	Epoch      uint64
	FirstSeq   uint64
	ReserveSeq func(next uint64) (limit uint64, err error)
	ResumeFrom uint64
	// ScrollPushed, if not nil, is told after lines went into the
	// terminal's scrollback: the first history line it now lacks.
	ScrollPushed func(next uint64)
	// GoshServer, if not nil, is told once, when the first server state
	// arrives, whether the server is gosh's (it advertised gosh_caps),
	// which can resume a session.
	GoshServer func(gosh bool)
	// SessionID, if not nil, is told the session's ID on its host when a
	// gosh server tells it (docs/protocol.md section 12.4): 8 lowercase
	// hex digits, once per ID. A client that got the ID elsewhere (the
	// detach notice of gosh server new) may ignore it.
	SessionID func(id string)
	// TitleNoPrefix drops the "[gosh] " title prefix (MOSH_TITLE_NOPREFIX).
	TitleNoPrefix bool
	// Logf receives diagnostics; nil discards them.
	Logf logf.Func

	// stock, set only by this package's tests (export_test.go), makes the
	// client advertise no gosh_caps, as a stock mosh-client.
	stock bool
}

// Predictor is the speculative local echo engine (internal/predict's
// Engine) as the client loop drives it: NewUserInput for every batch of
// typed bytes, Cull then Apply for every painted frame, Reset after a
// resize or a paste.
type Predictor interface {
	NewUserInput(now time.Time, b []byte, fb *vt.Framebuffer, link predict.Link)
	Cull(now time.Time, fb *vt.Framebuffer, link predict.Link)
	Apply(fb *vt.Framebuffer)
	Reset()
	NextDeadline() time.Time
	// Shown reports whether the user already sees the effect of every
	// key of the last NewUserInput (the keys may then wait for the next
	// frame interval, sharing a datagram with the keys typed after them).
	Shown() bool
}

// Errors RunClient returns for sessions that did not end cleanly, or did
// not end.
var (
	ErrTakenOver    = errors.New("session: taken over")
	ErrNoConnection = errors.New("session: no reply from the server")
	ErrUnclean      = errors.New("session: the session did not shut down cleanly; the server may still be running")
	// ErrDetached: the user's terminal went away (SignalHangup, or its
	// input ended) and the client left a gosh server's session running,
	// to be resumed, as tmux does.
	ErrDetached = errors.New("session: the terminal went away; detached, the session goes on")
)

// RunClient runs a client session on the user's terminal until the session
// ends. It returns nil after a clean shutdown (either side's), an
// *[ExitError] after a clean shutdown whose program failed (a gosh server
// tells), and an error that says what happened otherwise. The terminal is
// restored on every path, and the Conn closed.
func RunClient(ctx context.Context, cfg ClientConfig) (err error) {
	c, err := newClient(cfg)
	if err != nil {
		cfg.Conn.Close()
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			c.deinit()
			panic(r)
		}
	}()
	defer c.close()
	return c.run(ctx)
}

// client is one running client session.
type client struct {
	cfg   ClientConfig
	logf  logf.Func
	start time.Time

	// Owned by run:
	tr        *ssp.Transport[*statesync.UserStream, *statesync.Complete]
	term      Terminal
	tinfo     *terminfo.Terminal
	view      *termview.View // what the user's terminal shows
	predict   Predictor
	notify    *notifier
	escape    escapeFilter
	keys      []byte // typed input waiting for room in the window
	keysShown bool   // every byte of keys is a key the prediction engine shows
	remoteNum uint64
	connected bool   // a server state has arrived
	sessionID string // the server's GoshSession, as last taken (sessionid.go)
	detached  bool   // the terminal went away; leave the session running
	resetDone bool   // deinit already ran

	chans      *channels                // forwarded connections (channels.go)
	cstream    *chanStream              // the channels' stream, once the server takes it (stream.go)
	lastPath   ssp.Path                 // where the last datagrams went: a change is a new path for the stream
	chanPos    uint64                   // the server's channel messages taken
	forwarding bool                     // Forwards are being served, or were refused
	remoteFwd  map[uint32]RemoteForward // by listening channel

	// The UDP-blocked fallback (fallback.go):
	fb          *fallback
	relay       Relay            // the relay in use, if any
	relayDone   <-chan struct{}  // relay.Done()
	relayCh     chan relayResult // the outcome of a dial
	asks        chan *ask        // questions of a dial for the user (ask.go)
	asking      *ask             // the question on the bar, taking typed bytes
	pendingAsks []*ask
	dialCtx     context.Context // of run: dials end with the session

	// Inputs to run:
	conn    *ssp.Conn
	input   <-chan []byte // typed bytes; closed at EOF
	signals <-chan Signal
}

func newClient(cfg ClientConfig) (*client, error) {
	logf := cfg.Logf
	c := &client{cfg: cfg, logf: logf, term: cfg.Terminal, predict: cfg.Predict, start: time.Now(),
		conn: cfg.Conn, input: cfg.Terminal.Input(), signals: cfg.Signals, tinfo: cfg.TermInfo}
	if c.predict == nil {
		c.predict = noPredictor{}
	}
	if c.tinfo == nil {
		c.tinfo = terminfo.Fallback("xterm")
	}
	caps := vt.XtermDisplayCaps()
	caps.ECH, caps.BCE = c.tinfo.ECH, c.tinfo.BCE
	caps.Titles = titlesSupported(c.tinfo.Names)
	key := parseEscapeKey(cfg.EscapeKey, cfg.EscapeKeySet)
	c.escape = escapeFilter{key: key}
	c.notify = newNotifier(c.start, key.quitHint())
	c.fb = newFallback(cfg.Transport, cfg.DialRelay != nil, c.start)
	c.relayCh = make(chan relayResult, 1)
	c.asks = make(chan *ask)
	cols, rows := c.term.Size()
	c.view = termview.New(termview.Config{Caps: caps, Cols: cols, Rows: rows,
		HistNext: cfg.ResumeFrom, ScrollPushed: cfg.ScrollPushed, Logf: logf})

	var err error
	remote := statesync.NewComplete(cols, rows)
	if cfg.Epoch > 0 {
		_, remote = epochStatesClient()
	}
	localCaps := uint64(goshCaps) | capChannels | capScrollback | capExit | capSession | capStream
	if cfg.stock {
		localCaps = 0
	}
	c.tr, err = ssp.NewTransport(ssp.Config{
		Key:        cfg.Key,
		Remote:     cfg.Server,
		LocalCaps:  localCaps,
		Pacing:     cfg.Pacing,
		Logf:       logf,
		Epoch:      cfg.Epoch,
		ResumeFrom: cfg.ResumeFrom,
		FirstSeq:   cfg.FirstSeq,
		ReserveSeq: cfg.ReserveSeq,
	}, statesync.NewUserStream(), remote, c.start)
	if err != nil {
		return nil, err
	}
	c.chans = newChannels(false, c.tr.Current(), c.dialService, logf)
	c.chans.state = &chanSink{log: c.tr.Current(), stream: c.channelStream}
	c.chans.closed, c.chans.notice = c.channelClosed, c.channelClosed
	// The window size is the first event: pushed after the transport took
	// its empty initial state, so that it is in the first diff (the server
	// starts at 80×24 and learns the size only from it).
	c.tr.Current().PushResize(cols, rows)
	if err := c.term.MakeRaw(); err != nil {
		return nil, fmt.Errorf("session: raw mode: %w", err)
	}
	c.init()
	return c, nil
}

// titlesSupported reports whether the terminal takes OSC window titles, by
// its name, as mosh-client decides.
func titlesSupported(names []string) bool {
	if len(names) == 0 {
		return false
	}
	for _, p := range []string{"xterm", "rxvt", "kterm", "Eterm", "alacritty", "screen", "tmux", "foot", "wezterm", "kitty", "ghostty"} {
		if strings.HasPrefix(names[0], p) {
			return true
		}
	}
	return false
}

// init switches the user's terminal to the session: the alternate screen
// (unless NoInit) and application cursor keys.
func (c *client) init() {
	var b []byte
	if c.altScreen() {
		b = append(b, c.tinfo.EnterCA...)
	}
	b = append(b, "\x1b[?1h"...)
	c.write(b)
	c.view.Reset()
	c.resetDone = false
}

// altScreen reports whether the session uses the terminal's alternate
// screen: unless NoInit, or the terminal keeps the session's scrollback
// on its primary screen.
func (c *client) altScreen() bool { return !c.cfg.NoInit && !c.view.KeepsScrollback() }

// deinitModes resets every mode the session may have mirrored onto the
// user's terminal: cursor keys, rendition, cursor visibility and shape,
// mouse reporting and encodings, bracketed paste and focus events.
const deinitModes = "\x1b[?1l\x1b[0m\x1b[?25h\x1b[0 q\x1b[?1003l\x1b[?1002l\x1b[?1001l\x1b[?1000l" +
	"\x1b[?1015l\x1b[?1006l\x1b[?1005l\x1b[?2004l\x1b[?1004l"

// deinit returns the user's terminal to how the session found it.
func (c *client) deinit() {
	if c.resetDone {
		return
	}
	c.resetDone = true
	b := []byte(deinitModes)
	b = c.view.End(b)
	if c.altScreen() {
		b = append(b, c.tinfo.ExitCA...)
	}
	c.write(b)
	if err := c.term.Restore(); err != nil {
		c.logf.Printf("restoring the terminal: %v", err)
	}
}

// close releases everything; the terminal is restored first.
func (c *client) close() {
	c.deinit()
	c.cancelAsks()
	for _, f := range c.cfg.Forwards {
		f.Listener.Close()
	}
	c.chans.close()
	c.conn.Close() // and the relay in use
	if c.fb.dialing {
		go func() { // a relay that comes up now is closed at once
			if r := <-c.relayCh; r.relay != nil {
				r.relay.Close()
			}
		}()
	}
}

func (c *client) write(b []byte) {
	for len(b) > 0 {
		n, err := c.term.Write(b)
		if err != nil {
			c.logf.Printf("writing to the terminal: %v", err)
			return
		}
		b = b[n:]
	}
}

// run is the client's session loop (the run loop: the one owner of the
// session's state and its one timer; docs/style.md rule 3).
func (c *client) run(ctx context.Context) error {
	ctxDone := ctx.Done()
	var cancel context.CancelFunc
	c.dialCtx, cancel = context.WithCancel(ctx)
	defer cancel() // a dial of the relay still under way ends with the session
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Now()
		if done, err := c.checkEnd(now); done {
			c.paint(now, true)
			c.deinit()
			if err == nil || errors.As(err, new(*ExitError)) {
				msg := "[gosh is exiting.]\r\n"
				if !c.altScreen() {
					msg = "\r\n" + msg // below the session's last screen
				}
				c.write([]byte(msg))
			}
			return err
		}
		if err := c.send(now); err != nil {
			return err
		}
		c.paint(now, false)
		timer.Reset(c.deadline(now).after(now))

		select {
		case d, ok := <-c.conn.Datagrams():
			if !ok {
				return errors.New("session: UDP socket closed")
			}
			c.receive(d)
			c.receiveQueued() // the fragments of a frame, before painting
		case err := <-c.conn.Failed():
			c.paint(time.Now(), true)
			c.deinit()
			return fmt.Errorf("session: %w", err)
		case b, ok := <-c.input:
			if !ok {
				c.input = nil
				c.hangup(time.Now(), "Exiting...")
				continue
			}
			c.typed(time.Now(), b)
		case ev := <-c.chans.events:
			c.chans.event(ev)
		case q := <-c.asks:
			c.startAsk(q)
		case r := <-c.relayCh:
			c.relayDialed(time.Now(), r)
		case <-c.relayDone:
			c.relayEnded(time.Now())
		case s := <-c.signals:
			c.signal(time.Now(), s)
		case <-ctxDone:
			ctxDone = nil
			c.quit(time.Now(), "Signal received, shutting down...")
		case <-timer.C:
		}
	}
}

// signal acts on a process signal.
func (c *client) signal(now time.Time, s Signal) {
	switch s {
	case SignalResize:
		c.resized(now)
	case SignalContinue:
		c.resume()
	case SignalNetworkChange:
		c.tr.Probe(now)
		if c.cstream != nil {
			c.cstream.st.PathChanged(now)
		}
	case SignalQuit:
		c.logf.Printf("signal %v", s)
		c.quit(now, "Signal received, shutting down...")
	case SignalHangup:
		c.logf.Printf("signal %v", s)
		c.hangup(now, "Signal received, shutting down...")
	}
}

// hangup acts on the loss of the user's terminal: the client detaches from
// a gosh server's session, which goes on, resumable (a client that resumes
// a session knows its server is gosh's before hearing from it); with a
// stock mosh-server it ends the session as mosh-client does, saying why.
func (c *client) hangup(now time.Time, why string) {
	if c.tr.PeerCaps() != 0 || c.cfg.Epoch > 0 {
		c.logf.Printf("the terminal went away: detaching")
		c.detached = true
		return
	}
	c.quit(now, why)
}

// checkEnd decides whether the session is over, and how.
func (c *client) checkEnd(now time.Time) (bool, error) {
	if n := c.tr.PeerNotice(); n != "" {
		return true, fmt.Errorf("%w: %s", ErrTakenOver, n)
	}
	switch {
	case c.tr.ShutdownInProgress() && c.tr.ShutdownAcknowledged():
		return true, nil
	case c.tr.CounterpartyShutdownAckSent():
		return true, decodeExit(c.tr.PeerExit())
	case c.detached && !c.tr.ShutdownInProgress():
		return true, ErrDetached
	case c.tr.ShutdownInProgress() && (c.tr.ShutdownAckTimedOut(now) || !c.connected):
		if !c.connected {
			return true, fmt.Errorf("%w at %v (check that UDP port %d is not firewalled and reaches the server)",
				ErrNoConnection, c.cfg.Server, c.cfg.Server.Port())
		}
		return true, ErrUnclean
	}
	if !c.connected {
		if now.Sub(c.start) >= connectTimeout {
			c.notify.Set("Timed out waiting for server...", true, 0, now)
			c.tr.StartShutdown(now)
		} else if now.Sub(c.start) >= connectingNotice {
			c.notify.Set(fmt.Sprintf("Nothing received from server on UDP port %d.", c.cfg.Server.Port()), false, messageLife, now)
		}
	}
	return false, nil
}

// flushKeys moves typed input into the user stream while the input in
// flight stays within inputWindow.
func (c *client) flushKeys() {
	user := c.tr.Current()
	for len(c.keys) > 0 && user.Held() < inputWindow {
		n := min(len(c.keys), inputWindow-int(user.Held()))
		if c.keysShown {
			user.PushShownKeys(c.keys[:n])
		} else {
			user.PushKeys(c.keys[:n])
		}
		c.keys = c.keys[n:]
	}
	if len(c.keys) == 0 {
		c.keys = nil
	}
}

// send writes what the transport has to send now, and hops to a new local
// port when the server has stopped answering.
func (c *client) send(now time.Time) error {
	if !c.tr.ShutdownInProgress() {
		c.flushKeys()
	}
	if c.relay != nil && c.fb.relayDead(now) {
		c.logf.Printf("relay: nothing from the server for %v; closing it", relayDeadAfter)
		c.relay.Close() // relayEnded follows from its Done
	}
	if c.fb.dial(now) {
		c.logf.Printf("dialling the relay (UDP: nothing from the server for %v)", now.Sub(c.fb.lastUDP).Round(time.Millisecond))
		dialRelay(c.dialCtx, c.cfg.DialRelay, clientAsker{asks: c.asks, done: c.dialCtx.Done()}, c.relayCh)
	}
	path := c.fb.path(now)
	c.conn.SetPath(path)
	sent := c.tr.Stats().DatagramsSent
	writeErr, err := flush(c.tr, c.conn, now)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if c.tr.Stats().DatagramsSent != sent {
		c.fb.sent(path, now)
	}
	if cs := c.channelStream(); cs != nil { // after the screen's frames
		if path != c.lastPath {
			cs.st.PathChanged(now)
		}
		if err := cs.flush(c.tr, c.conn, now); err != nil {
			return fmt.Errorf("session: %w", err)
		}
	}
	c.lastPath = path
	c.notify.SetVia(c.fb.relayed(now))
	if writeErr != nil {
		c.notify.Set("sendto: "+writeErr.Error(), false, errorMessageLife, now)
	}
	if c.tr.PortHopDue(now) {
		if err := c.conn.Hop(); err != nil {
			c.logf.Printf("opening a new port: %v", err)
		} else if c.cstream != nil {
			c.cstream.st.PathChanged(now)
		}
	}
	return nil
}

// channelStream returns the channels' stream if the server takes it,
// starting it the first time.
func (c *client) channelStream() *chanStream {
	if c.tr.PeerCaps()&capStream == 0 {
		return nil
	}
	if c.cstream == nil {
		c.cstream = newChanStream(time.Now(), c.tr.SRTT())
	}
	return c.cstream
}

// deadline is when the loop must wake next.
func (c *client) deadline(now time.Time) wake {
	var w wake
	w.add(c.tr.NextDeadline())
	w.add(c.fb.deadline(now))
	if c.cstream != nil {
		w.add(c.cstream.st.NextDeadline())
	}
	// Paints may wait for the terminal's answer, which wakes the loop as
	// typed bytes, or for its deadline. What only a paint acts on (the
	// bar, the predictions, the parked cursor) waits with them: a
	// deadline of theirs already past would make the loop spin.
	t, hold := c.view.Deadline(now)
	w.add(t)
	if !hold {
		w.add(c.notify.NextDeadline(now))
		w.add(c.predict.NextDeadline())
	}
	if !c.connected || c.tr.ShutdownInProgress() {
		w.add(now.Add(ssp.SendIntervalMax))
	}
	if c.tr.CounterpartyShutdownAckSent() {
		w.add(now) // the session is over: end without waiting for an event
	}
	return w
}

// link is what the transport knows that the prediction engine needs.
func (c *client) link() predict.Link {
	return predict.Link{
		SendInterval: c.tr.SendInterval(),
		Sent:         c.tr.SentStateLast(),
		Acked:        c.tr.SentStateAcked(),
		EchoAck:      c.tr.Remote().EchoAck(),
	}
}

// receive hands a datagram to the transport and notes new server states.
func (c *client) receive(d ssp.Datagram) {
	if err := c.tr.Receive(d.At, d.Data, d.From); err != nil {
		var de *ssp.DropError
		if errors.As(err, &de) && de.Reason == ssp.DropVersion {
			c.notify.Set("gosh protocol version mismatch", false, errorMessageLife, d.At)
		} else if errors.As(err, &de) && de.Reason == ssp.DropAuth {
			c.notify.Set("Crypto exception: "+err.Error(), false, messageLife, d.At)
		}
		c.logf.Printf("dropped datagram: %v", err)
		return
	}
	if p := c.tr.Aux(); p != nil {
		if cs := c.channelStream(); cs != nil {
			for _, m := range cs.receive(d.At, p, c.logf) {
				c.chans.receive(m)
			}
		}
	}
	c.chans.flushAll() // acks may have made room
	c.takeSessionID()
	if d.Relayed {
		c.fb.relayHeard(d.At)
	} else {
		c.fb.udp(d.At)
	}
	if n := c.tr.RemoteNum(); n != c.remoteNum {
		c.remoteNum = n
		c.takeChannels()
		defer c.startForwards(d.At)
		if !c.connected {
			c.connected = true
			c.notify.Clear()
			if c.cfg.GoshServer != nil {
				c.cfg.GoshServer(c.tr.PeerCaps() != 0)
			}
		}
		c.startScrollback()
		c.notify.ServerHeard(d.At, c.tr.SentStateAckedTime())
	}
}

// RemoteForward is a listener on the server's side (-R) whose
// connections the client forwards to a TCP destination on its own side.
type RemoteForward struct {
	// Name is how messages name it (e.g. "-R 8080:localhost:80").
	Name string
	// Listen is where the server listens, "host:port".
	Listen string
	// Dest is where the client connects, "host:port".
	Dest string
}

// Forward is a local listener whose connections the session forwards to
// a TCP destination on the server's side.
type Forward struct {
	// Name is how messages name it (e.g. "-L 8080:db:5432").
	Name string
	// Listener accepts the local connections.
	Listener Listener
	// Target returns a connection's destination, "host:port"; it may
	// read from the connection first (a SOCKS handshake for -D).
	Target func(c io.ReadWriteCloser) (string, error)
}

// startForwards serves the Forwards once the server said whether it takes
// channels.
func (c *client) startForwards(now time.Time) {
	if c.forwarding || len(c.cfg.Forwards)+len(c.cfg.RemoteForwards) == 0 || !c.connected {
		return
	}
	c.forwarding = true
	if c.tr.PeerCaps()&capChannels == 0 {
		c.notify.Set("Port forwarding needs a gosh server; not forwarding.", false, errorMessageLife, now)
		c.logf.Printf("the server takes no channels (a stock mosh-server): port forwarding is off")
		for _, f := range c.cfg.Forwards {
			f.Listener.Close()
		}
		return
	}
	c.remoteFwd = map[uint32]RemoteForward{}
	for _, rf := range c.cfg.RemoteForwards {
		c.remoteFwd[c.chans.openListen(rf.Listen, rf.Name)] = rf
	}
	for _, f := range c.cfg.Forwards {
		target := f.Target
		c.chans.listenService(f.Listener, f.Name, true, func(conn io.ReadWriteCloser) (string, error) {
			addr, err := target(conn)
			return ServiceTCP(addr), err
		})
	}
}

// takeChannels acts on the server's new channel messages.
func (c *client) takeChannels() {
	remote := c.tr.Remote()
	if remote.ChannelTotal() == c.chanPos {
		return
	}
	for _, m := range remote.ChannelsSince(c.chanPos) {
		c.chans.receive(m)
	}
	c.chanPos = remote.ChannelTotal()
	remote.TrimChannels(c.chanPos)
}

// dialService says how to reach a service the server opens a channel for:
// the agent, and only when the user forwards it, and the connections to
// the listeners of the user's -R.
func (c *client) dialService(service string) (func() (io.ReadWriteCloser, error), error) {
	if id, ok := strings.CutPrefix(service, "forwarded:"); ok && c.cfg.DialTCP != nil {
		n, err := strconv.ParseUint(id, 10, 32)
		rf, ok := c.remoteFwd[uint32(n)]
		if err != nil || !ok {
			return nil, errNotForwarded // not a listener the user asked for
		}
		return func() (io.ReadWriteCloser, error) { return c.cfg.DialTCP(rf.Dest) }, nil
	}
	if service != ServiceAgent || c.cfg.DialAgent == nil {
		return nil, errNotForwarded
	}
	return c.cfg.DialAgent, nil
}

// channelClosed tells the user on the notification bar what the server
// said about a forward: why it refused or closed a connection (it could
// not listen for a -R, its policy forbids it, the destination refused),
// or where it listens for a -R when not where asked. Several can come at
// once, in any order (the server listens for a -R in a goroutine, and
// refuses a -L in its loop): each waits for the one before to be seen.
func (c *client) channelClosed(label, why string) {
	if label != "" && why != "" {
		c.notify.Queue(label+": "+why, time.Now())
		c.logf.Printf("%s: %s", label, why)
	}
}

// relayDialed takes the outcome of a dial of the relay.
func (c *client) relayDialed(now time.Time, r relayResult) {
	if r.err != nil {
		c.fb.dialed(false, now)
		c.logf.Printf("relay: %v", r.err)
		c.notify.Set("No UDP; relay over SSH failed: "+r.err.Error(), false, errorMessageLife, now)
		return
	}
	if c.tr.ShutdownInProgress() && c.tr.ShutdownAcknowledged() {
		c.fb.dialed(false, now)
		r.relay.Close()
		return
	}
	c.fb.dialed(true, now)
	c.relay, c.relayDone = r.relay, r.relay.Done()
	c.conn.SetRelay(r.relay)
	c.tr.Probe(now) // send at once: the retransmission timer may have backed off
	c.logf.Printf("relay up: datagrams go over SSH while UDP is blocked")
	if c.fb.relayed(now) {
		c.notify.Set("No reply over UDP; carrying the session over SSH.", false, errorMessageLife, now)
	}
}

// relayEnded handles the end of the relay's stream: it is dialled again
// if still wanted.
func (c *client) relayEnded(now time.Time) {
	err := c.relay.Err()
	c.logf.Printf("relay ended: %v", err)
	if err != nil && c.fb.wantRelay(now) {
		c.notify.Set("The relay over SSH ended: "+err.Error(), false, errorMessageLife, now)
	}
	c.fb.down(now)
	c.conn.SetRelay(nil)
	c.relay, c.relayDone = nil, nil
}

// receiveQueued handles the datagrams already waiting, up to a bound, so a
// frame that arrived as several fragments is painted once.
func (c *client) receiveQueued() {
	for range maxBatch {
		select {
		case d, ok := <-c.conn.Datagrams():
			if !ok {
				return
			}
			c.receive(d)
		default:
			return
		}
	}
}

// typed handles bytes from the user's terminal.
func (c *client) typed(now time.Time, b []byte) {
	if b = c.takeReports(now, b); len(b) == 0 {
		return
	}
	if c.tr.ShutdownInProgress() {
		return
	}
	if c.asking != nil {
		if b = c.answerTyped(b); len(b) == 0 {
			return
		}
	}
	paste := len(b) > pasteSize
	if paste {
		c.predict.Reset()
	}
	for len(b) > 0 {
		send, act, rest := c.escape.Filter(nil, b)
		b = rest
		if len(send) > 0 {
			shown := false
			if !paste {
				c.predict.NewUserInput(now, send, c.tr.Remote().Framebuffer(), c.link())
				shown = c.predict.Shown()
			}
			if len(c.keys) == 0 {
				c.keysShown = true
			}
			c.keysShown = c.keysShown && shown
			if containsByte(send, 0x0c) { // Ctrl-L also repaints locally
				c.view.Repaint()
			}
			c.keys = append(c.keys, send...)
		}
		switch act {
		case escWaiting:
			c.notify.SetBare(c.escape.key.commandsHint())
		case escResume:
			c.notify.permanent = false
			c.notify.Clear()
		case escQuit:
			c.notify.permanent = false
			c.quit(now, "Exiting on user request...")
			return
		case escSuspend:
			c.notify.permanent = false
			c.notify.Clear()
			c.suspend()
		}
	}
}

func containsByte(b []byte, x byte) bool {
	for _, c := range b {
		if c == x {
			return true
		}
	}
	return false
}

// quit starts the shutdown handshake, showing why.
func (c *client) quit(now time.Time, why string) {
	c.notify.Set(why, true, 0, now)
	if !c.tr.ShutdownInProgress() {
		c.tr.StartShutdown(now)
	}
}

// suspend stops the client (Ctrl-^ Ctrl-Z) with the terminal restored, and
// takes it back when resumed.
func (c *client) suspend() {
	c.deinit()
	c.write([]byte("\n\x1b[37;44m[gosh is suspended.]\x1b[m\n"))
	c.term.Suspend()
	c.resume()
}

// resume re-enters the session after the process was stopped.
func (c *client) resume() {
	if err := c.term.MakeRaw(); err != nil {
		c.logf.Printf("raw mode: %v", err)
	}
	c.init()
}

// paint draws the newest server screen with the predictions and the
// notification bar on the user's terminal: the view makes a frame of the
// server's screen, the client draws its overlays on it, and the view
// works out what to write. final drops the overlays, for the last frame.
func (c *client) paint(now time.Time, final bool) {
	if c.fenceWait(now) && !final {
		return
	}
	if c.view.KeepsScrollback() && !final {
		// A resize whose signal is still on its way: a frame painted at
		// the old size would be cut or scroll.
		c.resized(now)
	}
	remote := c.tr.Remote()
	frame := c.view.Frame(now, remote, final)
	if !final {
		c.predict.Cull(now, remote.Framebuffer(), c.link())
		c.predict.Apply(frame)
		c.notify.Apply(frame, now)
		if !c.cfg.TitleNoPrefix && frame.TitleSet() {
			icon, title := frame.IconName(), frame.Title()
			if icon == title {
				icon = "[gosh] " + icon
			}
			frame.SetTitle(icon, "[gosh] "+title)
		}
	}
	c.write(c.view.Paint(now, frame, remote, final))
}

// noPredictor predicts nothing.
type noPredictor struct{}

func (noPredictor) NewUserInput(time.Time, []byte, *vt.Framebuffer, predict.Link) {}
func (noPredictor) Cull(time.Time, *vt.Framebuffer, predict.Link)                 {}
func (noPredictor) Apply(*vt.Framebuffer)                                         {}
func (noPredictor) Reset()                                                        {}
func (noPredictor) NextDeadline() time.Time                                       { return time.Time{} }
func (noPredictor) Shown() bool                                                   { return false }

package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/ssp"
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

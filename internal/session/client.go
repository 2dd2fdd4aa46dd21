package session

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	gcrypto "github.com/gosh-term/gosh/internal/crypto"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/terminfo"
	"github.com/gosh-term/gosh/internal/vt"
)

// Client timing (mosh-wire.md section 11).
const (
	// connectingNotice is how long after start the bar says nothing has
	// arrived yet.
	connectingNotice = 250 * time.Millisecond
	// connectTimeout gives up on a server that never sends a state.
	connectTimeout = 15 * time.Second
	// pasteSize: a read larger than this is a paste, never predicted.
	pasteSize = 100
	// stdinReadSize is the most read from the terminal at once.
	stdinReadSize = 16 << 10
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
	Key    gcrypto.Key
	// Predict is the speculative echo engine; nil predicts nothing.
	Predict Predictor
	// NoInit skips the alternate screen (MOSH_NO_TERM_INIT).
	NoInit bool
	// EscapeKey and EscapeKeySet are MOSH_ESCAPE_KEY and whether it is set.
	EscapeKey    string
	EscapeKeySet bool
	// TitleNoPrefix drops the "[gosh] " title prefix (MOSH_TITLE_NOPREFIX).
	TitleNoPrefix bool
	// Term is $TERM, for the terminal's capabilities.
	Term string
	// Stdin and Stdout are the user's terminal.
	Stdin, Stdout *os.File
	// Logf receives diagnostics; nil discards them.
	Logf func(format string, args ...any)
}

// Predictor is the speculative local echo engine (internal/predict's
// Engine), as the client loop drives it.
type Predictor interface {
	SetSendInterval(d time.Duration)
	SetLocalFrameSent(n uint64)
	SetLocalFrameAcked(n uint64)
	SetLateAcked(n uint64)
	NewUserInput(now time.Time, b []byte, fb *vt.Framebuffer)
	Cull(now time.Time, fb *vt.Framebuffer)
	Apply(fb *vt.Framebuffer)
	Reset()
	NextDeadline() time.Time
}

// Errors RunClient returns for sessions that did not end cleanly.
var (
	ErrNoConnection = errors.New("session: no reply from the server")
	ErrUnclean      = errors.New("session: the session did not shut down cleanly; the server may still be running")
)

// RunClient runs a client session on the user's terminal until the session
// ends. It returns nil after a clean shutdown (either side's), and an error
// that says what happened otherwise. The terminal is restored on every path.
func RunClient(ctx context.Context, cfg ClientConfig) (err error) {
	c, err := newClient(cfg)
	if err != nil {
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
	cfg  ClientConfig
	logf func(string, ...any)

	// Owned by run:
	tr        *ssp.Transport[*vt.UserStream, *vt.Complete]
	conn      *ssp.Conn
	term      *userTerminal
	tinfo     *terminfo.Terminal
	display   *vt.Display
	shown     *vt.Framebuffer // what the user's terminal shows; nil = unknown
	repaint   bool
	predict   Predictor
	notify    *notifier
	escape    escapeFilter
	out       []byte
	keys      []byte // typed input waiting for room in the window
	remoteNum uint64
	connected bool // a server state has arrived
	cols      int
	rows      int
	start     time.Time
	resetDone bool // deinit already ran

	// Inputs to run:
	sig     *clientSignals
	stdin   chan []byte // typed bytes; closed at EOF or error
	stdinWG sync.WaitGroup
	done    chan struct{}
}

func newClient(cfg ClientConfig) (*client, error) {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	t, err := openTerminal(cfg.Stdin, cfg.Stdout)
	if err != nil {
		return nil, err
	}
	c := &client{cfg: cfg, logf: logf, term: t, predict: cfg.Predict, start: time.Now(),
		stdin: make(chan []byte), done: make(chan struct{})}
	if c.predict == nil {
		c.predict = noPredictor{}
	}
	c.tinfo, err = terminfo.Load(cfg.Term)
	if err != nil {
		c.tinfo = terminfo.Fallback(cfg.Term)
	}
	caps := vt.XtermDisplayCaps()
	caps.ECH, caps.BCE = c.tinfo.ECH, c.tinfo.BCE
	caps.Titles = titlesSupported(cfg.Term)
	c.display = vt.NewDisplay(caps)
	key := parseEscapeKey(cfg.EscapeKey, cfg.EscapeKeySet)
	c.escape = escapeFilter{key: key}
	c.notify = newNotifier(c.start, key.quitHint())
	c.cols, c.rows = t.Size()

	user := vt.NewUserStream()
	user.PushResize(c.cols, c.rows)
	c.tr, err = ssp.NewTransport(ssp.Config{
		Key:       cfg.Key,
		Remote:    cfg.Server,
		LocalCaps: uint64(goshCaps),
		Logf:      logf,
	}, user, vt.NewComplete(c.cols, c.rows), c.start)
	if err != nil {
		t.Restore()
		return nil, err
	}
	c.conn, err = ssp.Dial(cfg.Server)
	if err != nil {
		t.Restore()
		return nil, fmt.Errorf("session: %w", err)
	}
	c.init()
	c.stdinWG.Add(1)
	go c.readStdin()
	return c, nil
}

// titlesSupported reports whether the terminal takes OSC window titles, by
// its name, as mosh-client decides.
func titlesSupported(term string) bool {
	for _, p := range []string{"xterm", "rxvt", "kterm", "Eterm", "alacritty", "screen", "tmux", "foot", "wezterm", "kitty", "ghostty"} {
		if strings.HasPrefix(term, p) {
			return true
		}
	}
	return false
}

// init switches the user's terminal to the session: the alternate screen
// (unless NoInit) and application cursor keys.
func (c *client) init() {
	var b []byte
	if !c.cfg.NoInit {
		b = append(b, c.tinfo.EnterCA...)
	}
	b = append(b, "\x1b[?1h"...)
	c.write(b)
	c.shown, c.repaint = nil, true
	c.resetDone = false
}

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
	if !c.cfg.NoInit {
		b = append(b, c.tinfo.ExitCA...)
	}
	c.write(b)
	c.term.Restore()
}

// close releases everything; the terminal is restored first.
func (c *client) close() {
	c.deinit()
	close(c.done)
	c.conn.Close()
	c.stdinWG.Wait()
}

func (c *client) write(b []byte) {
	for len(b) > 0 {
		n, err := c.cfg.Stdout.Write(b)
		if err != nil {
			c.logf("writing to the terminal: %v", err)
			return
		}
		b = b[n:]
	}
}

// run is the client's session loop (the run loop: the one owner of the
// session's state and its one timer; STYLE.md rule 3).
func (c *client) run(ctx context.Context) error {
	sig := newClientSignals()
	defer sig.stop()
	c.sig = sig
	ctxDone := ctx.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Now()
		if done, err := c.checkEnd(now); done {
			c.paint(now, true)
			c.deinit()
			if err == nil {
				fmt.Fprint(c.cfg.Stdout, "[gosh is exiting.]\r\n")
			}
			return err
		}
		if err := c.send(now); err != nil {
			return err
		}
		c.paint(now, false)
		timer.Reset(max(time.Until(c.deadline(now)), 0))

		select {
		case d, ok := <-c.conn.Datagrams():
			if !ok {
				return errors.New("session: UDP socket closed")
			}
			c.receive(d)
			c.receiveQueued() // the fragments of a frame, before painting
		case b, ok := <-c.stdin:
			if !ok {
				c.stdin = nil
				c.quit(time.Now(), "Exiting...")
				continue
			}
			c.typed(time.Now(), b)
		case <-sig.resize:
			c.resized()
		case s := <-sig.quit:
			c.logf("signal %v", s)
			c.quit(time.Now(), "Signal received, shutting down...")
		case <-sig.cont:
			c.resume()
		case <-ctxDone:
			ctxDone = nil
			c.quit(time.Now(), "Signal received, shutting down...")
		case <-timer.C:
		}
	}
}

// checkEnd decides whether the session is over, and how.
func (c *client) checkEnd(now time.Time) (bool, error) {
	switch {
	case c.tr.ShutdownInProgress() && c.tr.ShutdownAcknowledged():
		return true, nil
	case c.tr.CounterpartyShutdownAckSent():
		return true, nil
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
		user.PushKeys(c.keys[:n])
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
	out, err := c.tr.Tick(now)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	to, _ := c.tr.RemoteAddr()
	for _, d := range out {
		if err := c.conn.WriteTo(d, to); err != nil {
			if ssp.IsMessageTooLong(err) {
				_ = c.tr.SetMaxDatagram(ssp.FallbackDatagram)
			}
			c.notify.Set("sendto: "+err.Error(), false, errorMessageLife, now)
		}
	}
	if c.tr.PortHopDue(now) {
		if err := c.conn.Hop(); err != nil {
			c.logf("opening a new port: %v", err)
		}
	}
	return nil
}

// deadline is when the loop must wake next.
func (c *client) deadline(now time.Time) time.Time {
	d := now.Add(time.Hour)
	earliest := func(t time.Time) {
		if !t.IsZero() && t.Before(d) {
			d = t
		}
	}
	earliest(c.tr.NextDeadline())
	earliest(c.notify.NextDeadline(now))
	earliest(c.predict.NextDeadline())
	if !c.connected || c.tr.ShutdownInProgress() {
		earliest(now.Add(ssp.SendIntervalMax))
	}
	return d
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
		c.logf("dropped datagram: %v", err)
		return
	}
	if n := c.tr.RemoteNum(); n != c.remoteNum {
		c.remoteNum = n
		if !c.connected {
			c.connected = true
			c.notify.Clear()
		}
		c.notify.ServerHeard(d.At, c.tr.SentStateAckedTime())
		c.predict.SetLateAcked(c.tr.Remote().EchoAck())
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
	if c.tr.ShutdownInProgress() {
		return
	}
	c.predict.SetLocalFrameSent(c.tr.SentStateLast())
	paste := len(b) > pasteSize
	if paste {
		c.predict.Reset()
	}
	for len(b) > 0 {
		send, act, rest := c.escape.Filter(nil, b)
		b = rest
		if len(send) > 0 {
			if !paste {
				c.predict.NewUserInput(now, send, c.tr.Remote().Framebuffer())
			}
			if containsByte(send, 0x0c) { // Ctrl-L also repaints locally
				c.repaint = true
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

// resized sends the new window size.
func (c *client) resized() {
	cols, rows := c.term.Size()
	if cols == c.cols && rows == c.rows {
		return
	}
	c.cols, c.rows = cols, rows
	if !c.tr.ShutdownInProgress() {
		c.tr.Current().PushResize(cols, rows)
	}
	c.predict.Reset()
	c.repaint = true
}

// suspend stops the client (Ctrl-^ Ctrl-Z) with the terminal restored, and
// takes it back when resumed.
func (c *client) suspend() {
	c.deinit()
	fmt.Fprint(c.cfg.Stdout, "\n\x1b[37;44m[gosh is suspended.]\x1b[m\n")
	c.sig.stopAndWait()
	c.resume()
}

// resume re-enters the session after the process was stopped.
func (c *client) resume() {
	if err := c.term.makeRaw(); err != nil {
		c.logf("raw mode: %v", err)
	}
	c.init()
}

// paint draws the newest server screen with the predictions and the
// notification bar on the user's terminal. final drops the overlays, for
// the last frame.
func (c *client) paint(now time.Time, final bool) {
	remote := c.tr.Remote().Framebuffer()
	frame := remote.Clone()
	if !final {
		c.predict.SetSendInterval(c.tr.SendInterval())
		c.predict.SetLocalFrameAcked(c.tr.SentStateAcked())
		c.predict.Cull(now, remote)
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
	initialized := !c.repaint && c.shown != nil
	c.out = c.display.NewFrame(c.out[:0], initialized, c.shown, frame)
	if len(c.out) > 0 {
		c.write(c.out)
	}
	c.shown, c.repaint = frame, false
}

// noPredictor predicts nothing.
type noPredictor struct{}

func (noPredictor) SetSendInterval(time.Duration)                   {}
func (noPredictor) SetLocalFrameSent(uint64)                        {}
func (noPredictor) SetLocalFrameAcked(uint64)                       {}
func (noPredictor) SetLateAcked(uint64)                             {}
func (noPredictor) NewUserInput(time.Time, []byte, *vt.Framebuffer) {}
func (noPredictor) Cull(time.Time, *vt.Framebuffer)                 {}
func (noPredictor) Apply(*vt.Framebuffer)                           {}
func (noPredictor) Reset()                                          {}
func (noPredictor) NextDeadline() time.Time                         { return time.Time{} }

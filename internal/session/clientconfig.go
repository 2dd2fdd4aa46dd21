package session

// What the client is given: its configuration and the prediction engine
// it drives.

import (
	"context"
	"io"
	"net/netip"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/terminfo"
	"github.com/gosh-term/gosh/internal/vt"
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

// noPredictor predicts nothing.
type noPredictor struct{}

func (noPredictor) NewUserInput(time.Time, []byte, *vt.Framebuffer, predict.Link) {}

func (noPredictor) Cull(time.Time, *vt.Framebuffer, predict.Link) {}

func (noPredictor) Apply(*vt.Framebuffer) {}

func (noPredictor) Reset() {}

func (noPredictor) NextDeadline() time.Time { return time.Time{} }

func (noPredictor) Shown() bool { return false }

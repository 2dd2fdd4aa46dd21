package predict

import (
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/vt"
)

// Engine is gosh's speculative local echo: it guesses the effect of each
// keystroke on the server's screen, shows the guesses once the server
// has confirmed one of their epoch, and drops or repairs them as the
// server's echo arrives. See the package documentation for the model.
//
// The client's session loop drives it, passing the transport's current
// [Link] to each call that takes one:
//   - [Engine.NewUserInput] with typed bytes, before they are sent;
//   - once per painted frame, [Engine.Cull] with the server's newest
//     framebuffer, then [Engine.Apply] on the clone to be painted: Cull
//     before Apply is the one call order that matters;
//   - [Engine.Reset] after a resize or a paste that is not predicted;
//   - at [Engine.NextDeadline], Cull and paint again.
//
// The engine is a pure core: it never reads the clock (now is passed in),
// starts no goroutines and does no I/O. It is not safe for concurrent
// use; the client's session loop owns it.
type Engine struct {
	mode      Mode
	overwrite bool
	features  Features

	// Inputs from the session loop.
	link       Link      // the newest Link given
	typedFrame uint64    // the frame of the newest typed bytes: link.Sent+1 at NewUserInput
	shown      bool      // every key of the last NewUserInput is predicted and displayed (Shown)
	now        time.Time // of the last Cull
	echoSeen   uint64    // the echo ack last given
	echoAt     time.Time // when it was first given

	// Decoding of typed bytes.
	parser   vt.Parser
	lastByte byte
	keys     []key // scratch: keys decoded from one batch

	// The predictions.
	rows    [][]cellPred // by screen row; nil where nothing is predicted
	wrapped []bool       // rows predicted to continue on the next one
	cursors []cursorPred // oldest first; the last one is the current cursor
	w, h    int          // screen size the predictions were made for

	predEpoch, confEpoch uint64

	// Display triggers.
	flagging    bool
	srttTrigger bool
	glitch      int
	lastQuick   time.Time

	// Typed keys remembered for re-basing (rebase.go) and line learning.
	log       []key
	barrier   uint64 // keys of frames before it were not logged (paste, resize)
	seq       uint64 // number of the last key typed
	opaqueSeq uint64 // newestOpaque, computed once per Cull
	line      lineState

	// The editor-mode model (editor.go).
	app     modeState           // the mode after the last key typed
	trusted map[trustKey]bool   // modelled effects the server has shown as predicted
	probes  map[trustKey]uint64 // effects on probation: the epoch that predicted them
	fresh   bool                // the key being predicted is being typed (not re-based)
	pager   pagerDoc            // what less has shown of its file (pager.go)

	stats Stats
	logf  logf.Func // debugging trace (SetLogf), nil = none
}

// Stats counts what the engine did, for diagnostics and tests.
type Stats struct {
	Predictions uint64 // cell predictions made for typed characters
	Confirmed   uint64 // predictions the server confirmed (with credit)
	Wrong       uint64 // shown predictions the server contradicted (each resets the engine)
	Killed      uint64 // tentative epochs dropped for a wrong prediction
	Rebased     uint64 // times the in-flight keys were re-predicted on the server's screen
	Quick       uint64 // hidden epochs confirmed at once: the line typed since the break shows echoed, or the prompt is back
}

// Config configures an [Engine].
type Config struct {
	// Mode says when predictions are shown.
	Mode Mode
	// Overwrite predicts typed characters to overwrite the cell under the
	// cursor instead of inserting (MOSH_PREDICTION_OVERWRITE=yes).
	Overwrite bool
	// Features switches gosh's improvements over stock Mosh:
	// [GoshFeatures] for gosh; the zero value models stock Mosh 1.4.
	Features Features
}

// New returns an engine configured by cfg.
func New(cfg Config) *Engine {
	e := &Engine{
		mode:      cfg.Mode,
		overwrite: cfg.Overwrite,
		features:  cfg.Features,
		link:      Link{SendInterval: initialSendInterval},
		predEpoch: 1,
		app:       modeState{want: wantUnknown},
	}
	e.line.start = -1
	return e
}

// NewEngine returns gosh's engine in the given mode, with every
// improvement on: New(Config{Mode: mode, Overwrite: overwrite, Features:
// GoshFeatures}).
func NewEngine(mode Mode, overwrite bool) *Engine {
	return New(Config{Mode: mode, Overwrite: overwrite, Features: GoshFeatures})
}

// SetLogf sets where the engine traces its decisions (re-basing, wrong
// predictions), for debugging; nil (the default) traces nothing.
func (e *Engine) SetLogf(logf logf.Func) { e.logf = logf }

// Mode returns the engine's mode.
func (e *Engine) Mode() Mode { return e.mode }

// Stats returns counters of what the engine did so far.
func (e *Engine) Stats() Stats { return e.stats }

// Reset forgets every prediction and starts a new, unconfirmed epoch:
// for a window resize, or a paste that is not predicted (more than 100
// bytes in one read, spec section 11.1). It takes the newest [Link] it
// was given as current: the keys it forgets may travel in client states
// up to its Sent+1, so nothing is re-based until the echo ack covers
// them.
func (e *Engine) Reset() {
	e.clearPredictions()
	e.becomeTentative()
	e.log = e.log[:0]
	e.barrier = e.link.Sent + 1
	e.line.verified = false
	e.app = modeState{want: wantUnknown}
}

// clearPredictions drops every cell and cursor prediction.
func (e *Engine) clearPredictions() {
	for i := range e.rows {
		e.rows[i] = nil
		e.wrapped[i] = false
	}
	e.cursors = e.cursors[:0]
}

// becomeTentative starts a new epoch: what is predicted from now on is
// not shown until the server confirms one prediction of it.
func (e *Engine) becomeTentative() {
	if e.mode != Experimental {
		e.predEpoch++
	}
}

// active reports whether any prediction is outstanding.
func (e *Engine) active() bool {
	if len(e.cursors) > 0 {
		return true
	}
	for _, r := range e.rows {
		for i := range r {
			if r[i].active {
				return true
			}
		}
	}
	return false
}

// showing reports whether confirmed predictions are painted at all.
func (e *Engine) showing() bool {
	switch e.mode {
	case Never:
		return false
	case Always, Experimental:
		return true
	}
	return e.srttTrigger || e.glitch > 0
}

// Apply paints the confirmed predictions onto fb, a clone of the server's
// framebuffer that the caller owns, underlining them when the link is
// slow or confirmations are late. Call Cull with the server's
// framebuffer first.
func (e *Engine) Apply(fb *vt.Framebuffer) {
	if fb == nil || !e.showing() {
		return
	}
	for i := range e.cursors {
		e.cursors[i].apply(fb, e.confEpoch)
	}
	for y, r := range e.rows {
		for x := range r {
			r[x].apply(fb, x, y, e.confEpoch, e.flagging)
		}
	}
}

// NextDeadline returns when the engine wants Cull to run again even if
// nothing else happens: 50 ms after the last call while predictions are
// outstanding and a timing trigger could still fire (so that a slow
// confirmation turns on display and underlining). The zero time means
// no deadline.
func (e *Engine) NextDeadline() time.Time {
	if e.mode == Never || e.now.IsZero() || (e.glitch > 0 && e.flagging) || !e.active() {
		return time.Time{}
	}
	return e.now.Add(wakeInterval)
}

// resize adapts the prediction tables to a w×h screen, forgetting every
// prediction if the size changed.
func (e *Engine) resize(w, h int) bool {
	if w == e.w && h == e.h {
		return false
	}
	e.w, e.h = w, h
	e.rows = make([][]cellPred, h)
	e.wrapped = make([]bool, h)
	e.cursors = e.cursors[:0]
	return true
}

// row returns the predictions of row y, creating them.
func (e *Engine) row(y int) []cellPred {
	if e.rows[y] == nil {
		r := make([]cellPred, e.w)
		for i := range r {
			r[i].frame, r[i].epoch = never, never
		}
		e.rows[y] = r
	}
	return e.rows[y]
}

// cursor returns the current cursor prediction; there must be one.
func (e *Engine) cursor() *cursorPred { return &e.cursors[len(e.cursors)-1] }

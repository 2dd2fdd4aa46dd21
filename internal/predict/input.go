package predict

import (
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// keyKind is what a typed key does, as far as prediction is concerned.
type keyKind uint8

const (
	keyPrint     keyKind = iota // a printable character
	keyBackspace                // DEL (0x7F)
	keyLeft                     // CSI D or SS3 D
	keyRight                    // CSI C or SS3 C
	keyReturn                   // CR
	keyOther                    // anything else: control keys, escape sequences, arrows up and down
)

// key is one decoded keystroke with the client state it travels in.
type key struct {
	kind  keyKind
	r     rune
	frame uint64    // first client state that can carry it
	when  time.Time // when it was typed
	seq   uint64    // keystrokes are numbered in the order typed

	// Filled in when the key is predicted (or re-predicted):
	opaque    bool            // its effect on the screen was not predicted
	hasCursor bool            // cx, cy hold the cursor predicted after it
	cx, cy    int             //
	base      *vt.Framebuffer // for keyReturn and keyOther: the server's screen when it was typed

	// The editor-mode model (editor.go):
	mode  modeState // the mode the key was typed in
	probe bool      // its modelled effect is on probation (not yet trusted)
	left  bool      // an Escape after which the server showed vi out of insert mode
	// A scroll of less predicted from the pager document (pager.go): the
	// line at the top of the screen after it.
	pgSeg *pagerSeg
	pgTop int
	// The screen it was typed on, when the server showed it placed in
	// the document (space and b only): where a screen of new lines after
	// it goes (pagerDoc.observe).
	pgFrom    *pagerSeg
	pgFromTop int
	pgLink    bool // pgSeg's screen crosses a join not yet verified
	pgClean   bool // typed in less with no count or prefix before it
}

// simple reports whether the key is one whose effect on a line of text
// is modelled (rebase.go).
func (k *key) simple() bool { return k.kind <= keyRight }

// NewUserInput predicts the effect of typed bytes b on fb, the newest
// framebuffer received from the server (read only). Call it before the
// bytes are sent, with the transport's current link: they travel in a
// client state after link.Sent. It first judges the outstanding
// predictions against fb, as Cull does.
func (e *Engine) NewUserInput(now time.Time, b []byte, fb *vt.Framebuffer, link Link) {
	e.setLink(link)
	e.typedFrame = link.Sent + 1
	e.shown = false
	if e.mode == Never || fb == nil || len(b) == 0 {
		return
	}
	if e.mode == Experimental {
		e.predEpoch = e.confEpoch
	}
	e.cull(now, fb)
	e.keys = e.decode(b, e.keys[:0])
	frame := e.typedFrame
	opaque := false
	for i := range e.keys {
		k := e.keys[i]
		e.seq++
		k.frame, k.when, k.seq = frame, now, e.seq
		if k.kind >= keyReturn {
			k.base = fb.Clone()
		}
		e.fresh = true
		e.predictKey(&k, fb)
		e.fresh = false
		e.remember(k)
		opaque = opaque || k.opaque
	}
	e.shown = !opaque && e.showing() && e.predEpoch <= e.confEpoch
}

// Shown reports whether the user already sees the effect of every key of
// the last NewUserInput: each was predicted, in a confirmed epoch, and
// predictions are displayed. The session may then let those keys wait
// for the next frame interval (statesync.UserStream.PushShownKeys): their echo
// only confirms what is on the screen.
func (e *Engine) Shown() bool { return e.shown }

// decode turns typed bytes into keys, appending to dst. Application-mode
// cursor keys (ESC O C) are read as normal ones (ESC [ C), as in Mosh. An
// escape key that ends the batch is taken as a lone Escape press.
func (e *Engine) decode(b []byte, dst []key) []key {
	h := keyDecoder{keys: dst}
	for _, c := range b {
		if e.lastByte == 0x1b && c == 'O' {
			c = '['
		}
		e.lastByte = c
		if c == 0x7f && e.parser.Ground() {
			h.keys = append(h.keys, key{kind: keyBackspace})
			continue
		}
		e.parser.Feed([]byte{c}, &h)
	}
	if e.lastByte == 0x1b && !e.parser.Ground() {
		h.keys = append(h.keys, key{kind: keyOther, r: keyEsc})
		e.parser = vt.Parser{}
		e.lastByte = 0
	}
	return h.keys
}

// keyDecoder is the vt.Handler that turns parser actions on typed bytes
// into keys.
type keyDecoder struct{ keys []key }

func (d *keyDecoder) add(kind keyKind, r rune) { d.keys = append(d.keys, key{kind: kind, r: r}) }

func (d *keyDecoder) Print(r rune) { d.add(keyPrint, r) }

func (d *keyDecoder) PrintASCII(s []byte) {
	for _, c := range s {
		d.add(keyPrint, rune(c))
	}
}

func (d *keyDecoder) Execute(c rune) {
	if c == '\r' {
		d.add(keyReturn, c)
		return
	}
	d.add(keyOther, c)
}

func (d *keyDecoder) ESCDispatch(*vt.Sequence) { d.add(keyOther, 0) }

// CSIDispatch recognises the left and right arrows: plain CSI C or D with
// at most a count of 1. Anything else (up, down, Home, modified arrows
// such as Ctrl-Right, which moves by words) is a key of unknown effect.
func (d *keyDecoder) CSIDispatch(s *vt.Sequence) {
	plain := s.Marker == 0 && s.NInter == 0 && s.Params.Len() <= 1 && s.Params.Get(0, 1) == 1
	switch {
	case plain && s.Final == 'C':
		d.add(keyRight, 0)
	case plain && s.Final == 'D':
		d.add(keyLeft, 0)
	default:
		d.add(keyOther, 0)
	}
}

func (d *keyDecoder) OSCDispatch([]byte, bool) { d.add(keyOther, 0) }
func (d *keyDecoder) DCSHook(*vt.Sequence)     { d.add(keyOther, 0) }
func (d *keyDecoder) DCSPut(rune)              {}
func (d *keyDecoder) DCSUnhook()               {}

// remember appends k to the log of typed keys, forgetting the oldest
// beyond maxLog.
func (e *Engine) remember(k key) {
	if len(e.log) == maxLog {
		copy(e.log, e.log[1:])
		e.log = e.log[:maxLog-1]
	}
	e.log = append(e.log, k)
}

package predict

import (
	"slices"
	"strings"

	"github.com/gosh-term/gosh/internal/vt"
)

// The editor-mode model ([Features.EditorModes]): what the engine knows
// of a modal program reading the keys (vi's modes, a bottom-line prompt,
// less's command prompt), learned from the server's screen and followed
// through the keys typed since, so that keys whose effect that mode
// makes certain are predicted as such: Escape and the motions of vi's
// normal mode move the cursor, i a A I o start insert mode there, : / ?
// open a prompt on the bottom row, less's scrolls bring lines it has
// shown before (pager.go), and its other commands are not taken for
// text.

// appMode is a modal program's state, as far as the engine knows it.
type appMode uint8

const (
	// modeUnknown: a shell or anything else; keys are predicted as text
	// (the engine without the model).
	modeUnknown appMode = iota
	// modeInsert: vi's insert mode, which the screen shows ("-- INSERT
	// --" on the bottom row, the cursor above it).
	modeInsert
	// modeNormal: vi's normal mode, entered with Escape from insert
	// mode and kept by the commands that stay in it.
	modeNormal
	// modePending: vi's normal mode after the first key of a two-key
	// command (dd, gg, yy, zz, <<, >>).
	modePending
	// modePrompt: a prompt on the bottom row, opened by vi's : / ? or
	// less's / ?; typed text is inserted at the cursor.
	modePrompt
	// modePager: less waiting for a command (":" alone on the bottom
	// row, the cursor after it).
	modePager
)

// Vi's desired column for j and k (modeState.want) when it is not a
// column.
const (
	wantUnknown = -1 // not known: j and k are not predicted
	wantServer  = -2 // the server's cursor column, once the screen is settled
	wantEnd     = -3 // the end of the line, after $
)

// modeState is the mode before or after a key.
type modeState struct {
	mode appMode
	op   rune // modePending: the command's first key; modePrompt: the key that opened it
	want int  // modeNormal: vi's desired column for j and k
	// modePrompt: the mode the prompt was opened in, and what was typed
	// at it (the start of it, for vi's commands that stay in normal mode)
	from appMode
	cmd  string
}

// viStayCommands are vi's : commands after which it is in normal mode
// again, with nothing else on the screen changed but the bottom row.
var viStayCommands = []string{"w", "w!", "noh", "nohlsearch"}

// maxCmd bounds modeState.cmd.
const maxCmd = 12

// trustKey names a key's modelled effect in a mode. An effect is
// predicted in a hidden epoch until the server has shown it once as
// predicted (Engine.trust).
type trustKey struct {
	mode appMode
	r    rune
}

// Keys that keep vi in normal mode (their effect on the screen is not
// predicted unless editor.go models it), and those that keep less
// waiting for a command.
const (
	viNormalKeys = "hjklwbeWBE0$^xXuGnNpPJ~*#{}()HML+-_ ;,"
	viInsertKeys = "iaAIoO"
	viPromptKeys = ":/?"
	viPairKeys   = "dgyz<>"
	pagerKeys    = "0123456789jkbfdueygGnNpP% wzrR"
	keyEsc       = 0x1b
)

// nextMode returns the mode after key k in mode m, from the key alone.
func nextMode(m modeState, k *key) modeState {
	n := modeState{mode: modeUnknown, want: wantUnknown}
	printable := k.kind == keyPrint
	switch m.mode {
	case modeInsert:
		switch {
		case k.kind == keyOther && k.r == keyEsc:
			n.mode = modeNormal
		case k.simple():
			n = m
		}
	case modeNormal:
		n.mode, n.want = modeNormal, m.want
		switch {
		case k.kind == keyOther && k.r == keyEsc, k.kind == keyReturn:
		case !printable:
			n.mode = modeUnknown
		case strings.ContainsRune(viInsertKeys, k.r):
			n.mode = modeInsert
		case strings.ContainsRune(viPromptKeys, k.r):
			n.mode, n.op, n.from = modePrompt, k.r, modeNormal
		case strings.ContainsRune(viPairKeys, k.r):
			n.mode, n.op = modePending, k.r
		case !strings.ContainsRune(viNormalKeys, k.r):
			n.mode = modeUnknown
		}
	case modePending:
		if printable && (k.r == m.op && m.op != 'z' || m.op == 'z' && strings.ContainsRune("ztb", k.r)) {
			n.mode, n.want = modeNormal, wantServer
		}
	case modePrompt:
		switch {
		case printable:
			n = m
			if len(n.cmd) < maxCmd {
				n.cmd += string(k.r)
			}
		case k.kind == keyReturn && m.from == modePager:
			n.mode = modePager
		case k.kind == keyReturn && m.from == modeNormal && (m.op != ':' || slices.Contains(viStayCommands, m.cmd)):
			n.mode, n.want = modeNormal, wantServer // a search, or a command that stays
		case k.kind == keyOther && k.r == keyEsc && m.from == modeNormal:
			n.mode, n.want = modeNormal, wantServer
		}
	case modePager:
		switch {
		case printable && (k.r == '/' || k.r == '?'):
			n.mode, n.op, n.from = modePrompt, k.r, modePager
		case printable && strings.ContainsRune(pagerKeys, k.r), k.kind == keyReturn:
			n.mode = modePager
		}
	}
	return n
}

// predictModal predicts k if the mode model knows its effect, and
// reports whether it did; false leaves k to the usual prediction as
// text. It keeps the mode (Engine.app) up to date either way.
func (e *Engine) predictModal(k *key, fb *vt.Framebuffer) bool {
	m := e.app
	k.mode = m
	e.app = nextMode(m, k)
	switch m.mode {
	case modeInsert, modePrompt:
		switch {
		case k.kind == keyOther && k.r == keyEsc && m.mode == modeInsert:
			return e.modelled(k, fb, e.viEscape)
		case k.kind == keyReturn:
			// Not a line editor's newline: vi opens a line (the rows
			// below move down), a prompt runs its command.
			e.unmodelled(k)
			return true
		case k.simple():
			e.settle(fb)
		}
		return false
	case modeNormal:
		return e.viNormal(k, fb)
	case modePager:
		if e.fresh {
			k.pgClean = len(e.log) > 0 && pagerDone(&e.log[len(e.log)-1])
		}
		switch {
		case k.kind == keyPrint && (k.r == '/' || k.r == '?'):
			return e.modelled(k, fb, e.openPrompt)
		case k.kind == keyPrint && strings.ContainsRune(pagerScrollKeys, k.r) && e.pagerScroll(k, fb):
			return true
		case k.kind == keyPrint && (k.r == 'z' || k.r == 'w') && e.fresh:
			// With a count, they set the window space and b scroll by:
			// the joins made by it are not known any more.
			delete(e.trusted, trustKey{modePager, ' '})
			delete(e.trusted, trustKey{modePager, 'b'})
			e.pager.reset()
		}
	case modePending:
	default:
		return false
	}
	e.unmodelled(k)
	return true
}

// unmodelled records that k's effect is not predicted: a hidden epoch
// starts, as for any key of unknown effect, but nothing is guessed (a
// command is not taken for text).
func (e *Engine) unmodelled(k *key) {
	e.becomeTentative()
	k.opaque = true
	if k.mode.mode == modeNormal && e.app.mode == modeNormal && k.r != 'j' && k.r != 'k' {
		e.app.want = wantServer
	}
}

// modelled predicts k with effect, which moves the predicted cursor c
// (and may predict cells) or reports that it cannot predict k here. The
// effect is shown at once if the server has shown it as predicted before
// (trusted), and hidden until the server confirms it otherwise.
func (e *Engine) modelled(k *key, fb *vt.Framebuffer, effect func(k *key, fb *vt.Framebuffer, c *cursorPred) bool) bool {
	tk := trustKey{k.mode.mode, k.r}
	trusted := e.trusted[tk]
	if e.app.want == wantServer && e.inSync() {
		e.app.want, _ = fb.Cursor()
	}
	if trusted {
		e.settle(fb)
	} else {
		e.becomeTentative()
	}
	e.initCursor(fb, k)
	c := e.cursor()
	if !effect(k, fb, c) {
		e.logf.Printf("mode %d: the effect of %q is not known at (%d,%d), want %d: %q", k.mode.mode, k.r, c.col, c.row, e.app.want, fb.Row(c.row).Text())
		e.unmodelled(k)
		return true
	}
	c = e.cursor()
	c.expire(k)
	if !trusted {
		k.probe = true
		if e.probes == nil {
			e.probes = map[trustKey]uint64{}
		}
		e.probes[tk] = e.predEpoch
	}
	return true
}

// settle confirms a new epoch at once when the mode is known and the
// server's screen shows every key typed before (nothing is in flight):
// the key now typed is predicted from the screen as it is, in a mode
// whose effect the server has shown before. It applies only to keys
// being typed (not to keys re-predicted by rebase).
func (e *Engine) settle(fb *vt.Framebuffer) {
	if e.mode == Experimental || e.predEpoch <= e.confEpoch || !e.inSync() {
		return
	}
	e.clearPredictions()
	clear(e.probes)
	e.becomeTentative()
	e.confEpoch = e.predEpoch
	e.stats.Quick++
	if e.app.want == wantServer {
		e.app.want, _ = fb.Cursor()
	}
}

// inSync reports whether the key being typed (not re-based) follows
// keys the server has all echoed: its screen is where the key acts.
func (e *Engine) inSync() bool {
	if !e.fresh || e.link.EchoAck < e.barrier || e.active() {
		return false // a prediction still pending: vi has not acted on Escape
	}
	for i := range e.log {
		if e.log[i].frame > e.link.EchoAck {
			return false
		}
	}
	return true
}

// trust records that the server showed the modelled effect of k as
// predicted.
func (e *Engine) trust(k *key) {
	if e.trusted == nil {
		e.trusted = map[trustKey]bool{}
	}
	e.trusted[trustKey{k.mode.mode, k.r}] = true
	k.probe = false
}

// trustConfirmed trusts the effects whose hidden epoch the server has
// confirmed.
func (e *Engine) trustConfirmed() {
	for tk, epoch := range e.probes {
		if epoch <= e.confEpoch {
			if e.trusted == nil {
				e.trusted = map[trustKey]bool{}
			}
			e.trusted[tk] = true
			delete(e.probes, tk)
		}
	}
}

// forgetProbes drops the effects on probation in epoch and later ones,
// whose predictions were found wrong.
func (e *Engine) forgetProbes(epoch uint64) {
	for tk, ep := range e.probes {
		if ep >= epoch {
			delete(e.probes, tk)
		}
	}
}

// distrust forgets the mode and every effect learned, after a shown
// prediction was wrong.
func (e *Engine) distrust() {
	e.app = modeState{want: wantUnknown}
	clear(e.trusted)
	clear(e.probes)
	e.pager.reset()
}

// syncMode learns the mode from the server's screen fb: "-- INSERT --"
// on the bottom row (the cursor above it) is vi's insert mode, ":" alone
// there with the cursor after it (not a ":" the user typed) is less
// waiting for a command. Otherwise the mode the keys led to is kept:
// vi's normal mode and less's commands whatever the screen shows while
// the program draws (the keys that leave them are known), but not vi's
// normal mode over "-- VISUAL --" or the like, and a prompt only while
// the cursor is on the bottom row. The screen is read only where it shows
// a known point of the typing (every key received echoed, or in insert
// mode only keys that keep it) and with the cursor visible (vi hides it
// while it draws). It also trusts an effect on probation when the screen
// has the cursor where it was predicted after its key. It is one
// function because each case is a reading of the same screen at the same
// point of the typing.
func (e *Engine) syncMode(fb *vt.Framebuffer) {
	if e.link.EchoAck < e.barrier {
		return
	}
	e.trustConfirmed()
	hi := max(e.link.Acked, e.link.EchoAck)
	first, recv := len(e.log), len(e.log)
	for i := range e.log {
		if e.log[i].frame > e.link.EchoAck && first == len(e.log) {
			first = i
		}
		if e.log[i].frame > hi {
			recv = i
			break
		}
	}
	first = min(first, recv)
	w, h := fb.Size()
	x, y := fb.Cursor()
	if w < 2 || h < 2 || !fb.CursorVisible() {
		return // vi hides the cursor while it draws
	}
	for i := max(first-1, 0); i < recv; i++ {
		if k := &e.log[i]; k.probe && e.showsEffect(fb, i, i == first-1) {
			e.trust(k)
		}
	}
	bottom := fb.Row(h - 1).Text()
	if !strings.HasPrefix(bottom, insertMark) {
		e.markLeft(first)
	}
	if first == recv && y == h-1 && x == 1 && bottom == ":" && !e.typedBefore(recv, ':') {
		// less waiting for a command after the keys received, all
		// echoed: a window onto its file.
		e.pager.observe(fb, e.pagerTop(recv), e.pagerAfter(recv))
	}
	at := recv
	var m modeState
	switch {
	case y < h-1 && strings.HasPrefix(bottom, insertMark) && allSimple(e.log[first:recv]) && !e.escapeBefore(recv):
		m = modeState{mode: modeInsert, want: wantUnknown}
	case first != recv:
		return // keys received but not yet echoed: the screen may show some of them
	case strings.HasPrefix(bottom, insertMark) && e.escapeBefore(recv):
		return // vi has not acted on Escape yet
	case y == h-1 && e.appAt(recv).mode == modePrompt:
		m = e.appAt(recv)
	case y == h-1 && x == 1 && bottom == ":" && !e.typedBefore(recv, ':'):
		m = modeState{mode: modePager, want: wantUnknown}
	default:
		m = e.appAt(recv)
		switch {
		case (m.mode == modeNormal || m.mode == modePending) && strings.HasPrefix(bottom, "-- "):
			m = modeState{want: wantUnknown} // vi's visual or replace mode
		case m.mode == modeNormal || m.mode == modePending || m.mode == modePager:
			// The cursor elsewhere than the mode has it is the program
			// drawing (vi writes its messages on the bottom row, less
			// redraws the page); the keys that leave these modes are
			// known.
		case m.mode != modePrompt || y != h-1:
			m = modeState{want: wantUnknown}
		}
	}
	if old := e.appAt(at); old.mode == m.mode && old.op == m.op && old.from == m.from {
		return
	}
	e.logf.Printf("mode: %d from the screen (keys from %d of %d, was %d); bottom %q cursor %d,%d", m.mode, at, len(e.log), e.appAt(at).mode, bottom, x, y)
	for i := at; i < len(e.log); i++ {
		e.log[i].mode = m
		m = nextMode(m, &e.log[i])
	}
	e.app = m
}

// showsEffect reports whether fb shows the modelled effect of log[i]:
// the cursor where it was predicted after it, and a prompt opened by it
// on the bottom row. Unless the key was echoed (echoed), the cursor must
// also have moved, since the screen may not show the key yet.
func (e *Engine) showsEffect(fb *vt.Framebuffer, i int, echoed bool) bool {
	k := &e.log[i]
	if k.pgSeg != nil {
		if !e.pagerShows(fb, k) {
			return false
		}
		e.pager.joinsOK = e.pager.joinsOK || k.pgLink
		return true
	}
	x, y := fb.Cursor()
	if !k.hasCursor || k.cx != x || k.cy != y {
		return false
	}
	if !echoed && (i == 0 || !e.log[i-1].hasCursor || e.log[i-1].cx == k.cx && e.log[i-1].cy == k.cy) {
		return false
	}
	if strings.ContainsRune(viPromptKeys, k.r) && (k.mode.mode == modeNormal || k.mode.mode == modePager) {
		return fb.Cell(0, fb.Height()-1).Rune() == k.r
	}
	return true
}

// escapeBefore reports whether the last key before log[i] that is not
// a line editor's is Escape: vi may not have acted on it yet (it waits
// to tell it from an escape sequence), so its screen may still show
// insert mode.
func (e *Engine) escapeBefore(i int) bool {
	for i--; i >= 0; i-- {
		if k := &e.log[i]; !k.simple() || k.opaque {
			return k.kind == keyOther && k.r == keyEsc && !k.left
		}
	}
	return false
}

// markLeft records that vi has acted on an Escape of log[:n], keys the
// server's screen shows echoed without "-- INSERT --" on its bottom
// row, when a key typed escapeWait or more after it is among them: vi
// has left insert mode (it acts on a lone Escape within escapeWait), so
// "-- INSERT --" shown after them is insert mode entered again
// (escapeBefore). Without this, an Escape stays at the head of the log
// (trimLog keeps the last break) while the keys after it are printable,
// as vi's commands are to an engine that does not know the mode (after a
// wrong prediction forgot it), and the mode is not learned from the
// screen again until the next Enter.
func (e *Engine) markLeft(n int) {
	for i := range e.log[:n] {
		k := &e.log[i]
		if k.kind != keyOther || k.r != keyEsc || k.left {
			continue
		}
		for j := i + 1; j < n; j++ {
			if e.log[j].when.Sub(k.when) >= escapeWait {
				k.left = true
				break
			}
		}
	}
}

// typedBefore reports whether the key before log[i] is r: a prompt
// that shows it is the one the user opened (vi's command line), not a
// program's own.
func (e *Engine) typedBefore(i int, r rune) bool {
	return i > 0 && e.log[i-1].kind == keyPrint && e.log[i-1].r == r
}

// inVi reports whether the engine knows it is in vi's insert or normal
// mode.
func (e *Engine) inVi() bool {
	return e.features.EditorModes && (e.app.mode == modeInsert || e.app.mode == modeNormal || e.app.mode == modePending)
}

// appAt returns the mode before log[i], or the current one past the
// log's end.
func (e *Engine) appAt(i int) modeState {
	if i < len(e.log) {
		return e.log[i].mode
	}
	return e.app
}

// viNormal predicts a key typed in vi's normal mode.
func (e *Engine) viNormal(k *key, fb *vt.Framebuffer) bool {
	if k.kind != keyPrint {
		e.unmodelled(k)
		return true
	}
	var effect func(k *key, fb *vt.Framebuffer, c *cursorPred) bool
	switch k.r {
	case 'i':
		effect = e.viInsert
	case 'a':
		effect = e.viAppend
	case 'A':
		effect = e.viAppendEnd
	case 'I':
		effect = e.viInsertStart
	case 'o':
		effect = e.viOpen
	case ':', '/', '?':
		effect = e.openPrompt
	case 'h':
		effect = e.viLeft
	case 'l':
		effect = e.viRight
	case '0':
		effect = e.viHome
	case '$':
		effect = e.viEnd
	case 'x':
		effect = e.viDelete
	case 'w':
		effect = e.viWord
	case 'b':
		effect = e.viBack
	case 'j', 'k':
		effect = e.viDown
	case 'G':
		effect = e.viLast
	default:
		e.unmodelled(k)
		return true
	}
	return e.modelled(k, fb, effect)
}

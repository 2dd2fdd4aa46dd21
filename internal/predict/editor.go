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
// open a prompt on the bottom row, and less's commands are not taken for
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
		if k.kind == keyPrint && (k.r == '/' || k.r == '?') {
			return e.modelled(k, fb, e.openPrompt)
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

// Screen geometry for the vi effects. A row holds a whole line of text
// (lineRow) if it is above the bottom row, not a "~" row past the end of
// the file, and neither it nor the row above is filled to the margin
// (which may continue on the next row).

func (e *Engine) blankAt(fb *vt.Framebuffer, x, y int) bool {
	c, cont := e.cellAt(fb, x, y)
	return !cont && c.IsBlank()
}

func (e *Engine) rowFull(fb *vt.Framebuffer, y int) bool {
	return !e.blankAt(fb, e.w-1, y) || e.rowWraps(fb, y)
}

func (e *Engine) fillerRow(fb *vt.Framebuffer, y int) bool {
	c, _ := e.cellAt(fb, 0, y)
	return c.Rune() == '~' && e.textEnd(fb, y) == 1
}

func (e *Engine) lineRow(fb *vt.Framebuffer, y int) bool {
	return y >= 0 && y < e.h-1 && !e.rowFull(fb, y) && (y == 0 || !e.rowFull(fb, y-1)) && !e.fillerRow(fb, y)
}

// textEnd returns the column after the last character of row y.
func (e *Engine) textEnd(fb *vt.Framebuffer, y int) int {
	for x := e.w - 1; x >= 0; x-- {
		if !e.blankAt(fb, x, y) {
			return x + 1
		}
	}
	return 0
}

// lastChar returns the column of the last character of row y, 0 if it
// is blank.
func (e *Engine) lastChar(fb *vt.Framebuffer, y int) int {
	x := e.textEnd(fb, y) - 1
	if x > 0 && e.contAt(fb, x, y) {
		x--
	}
	return max(x, 0)
}

// wordClass is vi's character class for w and b: 0 blank, 1
// punctuation, 2 a word character; -1 for a character not modelled
// (beyond ASCII, or a wide character's second half).
func (e *Engine) wordClass(fb *vt.Framebuffer, x, y int) int {
	c, cont := e.cellAt(fb, x, y)
	switch r := c.Rune(); {
	case cont || r > 0x7e:
		return -1
	case c.IsBlank():
		return 0
	case r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		return 2
	}
	return 1
}

// The vi effects. Each moves c (and may predict cells) and reports
// whether it could predict the key.

func (e *Engine) viEscape(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if c.row >= e.h-1 {
		return false
	}
	if fb.Row(e.h-1).Text() == insertMark {
		e.blankRow(k, fb, e.h-1, 0)
	}
	c.waits, c.waitCol, c.waitRow = true, c.col, c.row
	if c.col > 0 {
		c.col -= e.widthLeft(fb, c.col, c.row)
	}
	e.app.want = c.col
	return true
}

func (e *Engine) viInsert(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if c.row >= e.h-1 {
		return false
	}
	e.beginInsert(k, fb, c)
	return true
}

func (e *Engine) viAppend(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	if e.textEnd(fb, c.row) > 0 {
		c.col += e.widthAt(fb, c.col, c.row)
	}
	e.beginInsert(k, fb, c)
	return true
}

func (e *Engine) viAppendEnd(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	c.col = e.textEnd(fb, c.row)
	e.beginInsert(k, fb, c)
	return true
}

func (e *Engine) viInsertStart(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	c.col = 0
	for c.col < e.textEnd(fb, c.row) && e.blankAt(fb, c.col, c.row) {
		c.col++
	}
	if c.col == e.textEnd(fb, c.row) {
		c.col = 0
	}
	e.beginInsert(k, fb, c)
	return true
}

// viOpen predicts o: an empty line opens below the cursor's, the rows
// below moving down, when the end of the file shows ("~" on the last row
// of text) so that nothing scrolls.
func (e *Engine) viOpen(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	y := c.row
	if !e.lineRow(fb, y) || y+1 > e.h-2 || !e.fillerRow(fb, e.h-2) {
		return false
	}
	for r := e.h - 2; r > y+1; r-- {
		src, dst := e.rows[r-1], e.row(r)
		for x := range dst {
			e.startCell(&dst[x], k, fb.Cell(x, r))
			var s *cellPred
			if src != nil {
				s = &src[x]
			}
			dst[x].copyContent(s, fb.Cell(x, r-1))
		}
	}
	e.blankRow(k, fb, y+1, 0)
	c.col, c.row = 0, y+1
	e.beginInsert(k, fb, c)
	return true
}

// blankRow predicts row y blank from column x.
func (e *Engine) blankRow(k *key, fb *vt.Framebuffer, y, x int) {
	row := e.row(y)
	for ; x < e.w; x++ {
		e.startCell(&row[x], k, fb.Cell(x, y))
		row[x].unknown, row[x].cont, row[x].repl = false, false, vt.Cell{}
	}
}

// beginInsert starts the line typed in insert mode (or at a prompt) at
// the cursor: a line editor's bounds (backspace stops there, as in vi
// by default). Entering insert mode, vi shows it on the bottom row
// ("-- INSERT --", its 'showmode', which is how the engine learned the
// mode).
func (e *Engine) beginInsert(k *key, fb *vt.Framebuffer, c *cursorPred) {
	e.line.begin(c.col, c.row, e.predEpoch, false)
	e.line.verified = true
	e.line.cells = e.line.cells[:0]
	if k.mode.mode != modeNormal || strings.ContainsRune(viPromptKeys, k.r) {
		return
	}
	row, y := e.row(e.h-1), e.h-1
	for x, r := range insertMark {
		if x >= e.w {
			break
		}
		e.startCell(&row[x], k, fb.Cell(x, y))
		row[x].unknown, row[x].cont, row[x].repl = false, false, vt.NewCell(r, vt.Rendition{Attrs: vt.AttrBold})
	}
}

// insertMark is what vi shows on the bottom row in insert mode.
const insertMark = "-- INSERT --"

// openPrompt predicts : / or ? opening a prompt on the bottom row: the
// key alone there, the cursor after it.
func (e *Engine) openPrompt(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	y := e.h - 1
	if k.mode.mode == modeNormal && c.row >= y || k.mode.mode == modePager && (c.row != y || c.col != 1) {
		return false
	}
	e.blankRow(k, fb, y, 0)
	p := &e.row(y)[0]
	p.repl = vt.NewCell(k.r, vt.Rendition{})
	e.stats.Predictions++
	c.col, c.row = 1, y
	e.beginInsert(k, fb, c)
	return true
}

// onChar reports whether (x, y) is a character of the line vi's cursor
// can sit on where the screen shows it: one that is not blank, or a
// single blank between two that are not (a space, or a tab one column
// wide). Wider blanks may be a tab, on whose last column vi puts the
// cursor.
func (e *Engine) onChar(fb *vt.Framebuffer, x, y int) bool {
	if x < 0 || x >= e.w {
		return false
	}
	if !e.blankAt(fb, x, y) {
		return true
	}
	return x > 0 && x+1 < e.w && !e.blankAt(fb, x-1, y) && !e.blankAt(fb, x+1, y)
}

func (e *Engine) viLeft(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if c.col == 0 || c.row >= e.h-1 || !e.onChar(fb, c.col, c.row) {
		return false
	}
	c.col -= e.widthLeft(fb, c.col, c.row)
	if !e.onChar(fb, c.col, c.row) {
		return false
	}
	e.app.want = c.col
	return true
}

func (e *Engine) viRight(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if c.row >= e.h-1 || !e.onChar(fb, c.col, c.row) {
		return false
	}
	next := c.col + e.widthAt(fb, c.col, c.row)
	if !e.onChar(fb, next, c.row) {
		return false
	}
	c.col = next
	e.app.want = c.col
	return true
}

func (e *Engine) viHome(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	c.col = 0
	e.app.want = 0
	return true
}

func (e *Engine) viEnd(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	c.col = e.lastChar(fb, c.row)
	e.app.want = wantEnd
	return true
}

// viDelete predicts x: the character under the cursor is deleted, the
// rest of the line moving left; deleting the last one moves the cursor
// left.
func (e *Engine) viDelete(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) || e.blankAt(fb, c.col, c.row) || !e.features.BlankEnd {
		return false
	}
	wd := e.widthAt(fb, c.col, c.row)
	last := e.textEnd(fb, c.row) <= c.col+wd
	e.shiftLeft(k, fb, c.row, c.col, wd)
	if last && c.col > 0 {
		c.col -= e.widthLeft(fb, c.col, c.row)
	}
	e.app.want = c.col
	return true
}

// viWord predicts w within the line: to the start of the next word.
func (e *Engine) viWord(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) {
		return false
	}
	end := e.textEnd(fb, c.row)
	x := c.col
	cls := e.wordClass(fb, x, c.row)
	for x < end && cls > 0 && e.wordClass(fb, x, c.row) == cls {
		x++
	}
	for x < end && e.wordClass(fb, x, c.row) == 0 {
		x++
	}
	if cls < 0 {
		return false
	}
	if x >= end { // the first word of the next line, or an empty line
		if !e.lineRow(fb, c.row+1) {
			return false
		}
		c.row++
		x = e.firstChar(fb, c.row)
	}
	if e.wordClass(fb, x, c.row) < 0 {
		return false
	}
	c.col = x
	e.app.want = x
	return true
}

// firstChar returns the column of the first character of row y that is
// not blank, 0 if there is none.
func (e *Engine) firstChar(fb *vt.Framebuffer, y int) int {
	end := e.textEnd(fb, y)
	for x := range end {
		if !e.blankAt(fb, x, y) {
			return x
		}
	}
	return 0
}

// viBack predicts b within the line: to the start of this or the
// previous word.
func (e *Engine) viBack(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	if !e.lineRow(fb, c.row) || e.wordClass(fb, c.col, c.row) < 0 {
		return false
	}
	x := c.col - 1
	for x >= 0 && e.wordClass(fb, x, c.row) == 0 {
		x--
	}
	if x < 0 { // the last word of the previous line, or an empty line
		if !e.lineRow(fb, c.row-1) {
			return false
		}
		c.row--
		x = e.textEnd(fb, c.row) - 1
		if x < 0 {
			c.col = 0
			e.app.want = 0
			return true
		}
	}
	cls := e.wordClass(fb, x, c.row)
	for x > 0 && cls > 0 && e.wordClass(fb, x-1, c.row) == cls {
		x--
	}
	if cls < 0 {
		return false
	}
	c.col = x
	e.app.want = x
	return true
}

// viLast predicts G where the end of the file shows ("~" rows below
// it): to the first character of its last line.
func (e *Engine) viLast(_ *key, fb *vt.Framebuffer, c *cursorPred) bool {
	y := e.h - 2
	for y >= 0 && e.fillerRow(fb, y) {
		y--
	}
	if y == e.h-2 || !e.lineRow(fb, y) {
		return false
	}
	c.col, c.row = e.firstChar(fb, y), y
	e.app.want = c.col
	return true
}

// viDown predicts j and k: to the desired column of the line below or
// above, or its last character if it is shorter.
func (e *Engine) viDown(k *key, fb *vt.Framebuffer, c *cursorPred) bool {
	t := c.row + 1
	if k.r == 'k' {
		t = c.row - 1
	}
	want := e.app.want
	if !e.lineRow(fb, c.row) || !e.lineRow(fb, t) || want == wantUnknown || want == wantServer {
		return false
	}
	end := e.textEnd(fb, t)
	switch {
	case end == 0:
		c.col = 0
	case want == wantEnd || want >= end:
		c.col = e.lastChar(fb, t)
	case !e.onChar(fb, want, t):
		return false // part of a tab, perhaps: vi puts the cursor at a tab's end
	case e.contAt(fb, want, t):
		c.col = want - 1
	default:
		c.col = want
	}
	c.row = t
	return true
}

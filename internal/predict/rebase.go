package predict

import (
	"sort"

	"github.com/gosh-term/gosh/internal/vt"
)

// rebaseCause says why the keys in flight are re-predicted.
type rebaseCause uint8

const (
	noRebase    rebaseCause = iota
	epochKilled             // a tentative (hidden) prediction was wrong, or its line's echo shows (confirmByEcho)
	shownWrong              // a shown prediction or the cursor was wrong
	promptSeen              // the prompt is back after Enter (confirmByPrompt)
)

// rebase re-predicts the keystrokes still in flight on top of the
// server's screen fb, in a new epoch, after wrong predictions were
// dropped.
//
// Stock Mosh (without [Features.Rebase]) instead restarts from the
// server's cursor as if nothing were in flight, so while the typist
// keeps typing every later prediction is off by the keys not yet
// echoed, and is dropped in turn: after an Enter lands the cursor
// somewhere unexpected (a prompt), nothing is shown until the typist
// pauses. Here the screen the server sent is taken to show every key up
// to the echo ack and, as far as the screen itself shows it
// (matchEcho), the ones the server has received since; the rest are
// predicted again. The new epoch is hidden until the server confirms
// one of its predictions, so a prompt that does not echo (a password)
// never shows them, except that when the server's screen already shows
// the line typed since the last Enter (or other break) echoed exactly
// where the cursor is, that is the confirmation
// ([Features.QuickConfirm]).
func (e *Engine) rebase(fb *vt.Framebuffer, cause rebaseCause) {
	e.clearPredictions()
	e.becomeTentative()
	e.line.verified = false
	if e.link.EchoAck < e.barrier {
		return // keys that were not logged (a paste) may still be in flight
	}
	e.stats.Rebased++
	first := sort.Search(len(e.log), func(i int) bool { return e.log[i].frame > e.link.EchoAck })
	hi := max(e.link.Acked, e.link.EchoAck)
	end := first
	for end < len(e.log) && e.log[end].frame <= hi {
		end++
	}
	m := e.matchEcho(fb, first, end)
	e.markEchoed(fb, first, first+m.echoed)
	e.logf.Printf("rebase: first %d end %d match %+v", first, end, m)
	epoch := e.predEpoch
	switch {
	case cause == promptSeen:
		x, y := fb.Cursor()
		e.confEpoch = max(e.confEpoch, epoch)
		e.line.begin(x, y, epoch, true)
		e.line.verify(fb)
		e.stats.Quick++
	case m.quick && cause == epochKilled && e.features.QuickConfirm:
		e.confEpoch = max(e.confEpoch, epoch)
		e.line.begin(m.originX, m.originY, epoch, m.fromReturn)
		e.line.verify(fb)
		e.stats.Quick++
	case e.features.LineStart && m.echoed == 0 && first > 0 && e.log[first-1].kind == keyReturn:
		// The screen shows the Enter and nothing typed since: the line
		// starts where the server's cursor is when the next key is
		// predicted, which may be before the program has drawn its
		// prompt (initCursor).
		e.line.pending = true
	}
	e.app = e.appAt(first + m.echoed)
	for i := first + m.echoed; i < len(e.log); i++ {
		e.predictKey(&e.log[i], fb)
	}
}

// quickConfirming reports whether confirmByEcho and confirmByPrompt may
// look for a quick confirmation: [Features.QuickConfirm] is on, the
// current epoch is hidden (never so in experimental mode), and the keys
// that were not logged (before a Reset) have all been echoed.
func (e *Engine) quickConfirming() bool {
	return e.features.QuickConfirm && e.mode != Experimental && e.predEpoch > e.confEpoch && e.link.EchoAck >= e.barrier
}

// confirmByEcho re-bases at once, confirmed, when the predictions are
// hidden since a break key (Enter, Tab, an arrow up...) that the server
// has answered, and the server's screen already shows the line typed
// since echoed at its cursor: no need to wait for one of the hidden
// predictions to be judged (and found misplaced, when Enter left the
// cursor somewhere unexpected) an echo ack later.
func (e *Engine) confirmByEcho(fb *vt.Framebuffer) {
	if !e.quickConfirming() {
		return
	}
	first := sort.Search(len(e.log), func(i int) bool { return e.log[i].frame > e.link.EchoAck })
	if first == 0 || !allSimple(e.log[first:]) {
		return // nothing confirmed, or a break still in flight
	}
	hi := max(e.link.Acked, e.link.EchoAck)
	end := first
	for end < len(e.log) && e.log[end].frame <= hi {
		end++
	}
	if m := e.matchEcho(fb, first, end); m.quick {
		e.rebase(fb, epochKilled)
	}
}

// confirmByPrompt re-bases at once, confirmed, when the predictions are
// hidden since an Enter that the server has answered, none of the keys
// typed since has reached the server, and the server's screen shows the
// prompt again exactly (same text, the rest of the row blank, the cursor
// right after it) as on the last line the server confirmed echoing: the
// line editor is back, waiting for input, so the keys typed after the
// Enter (and the next ones) show at once instead of an echo later. A
// password prompt, or any other program reading, looks different.
func (e *Engine) confirmByPrompt(fb *vt.Framebuffer) {
	if !e.quickConfirming() {
		return
	}
	first := sort.Search(len(e.log), func(i int) bool { return e.log[i].frame > e.link.EchoAck })
	if first == 0 || e.log[first-1].kind != keyReturn || !allSimple(e.log[first:]) {
		return // the last key the server answered is not Enter, or a break is in flight
	}
	if first < len(e.log) && e.log[first].frame <= max(e.link.Acked, e.link.EchoAck) {
		return // keys typed since have arrived, unechoed
	}
	if e.line.showsPrompt(fb) {
		e.rebase(fb, promptSeen)
	}
}

// markEchoed records that the keys in log[first:end] are taken to be
// shown on fb already: the last key echoed left the cursor where fb has
// it; the others' predicted cursors are unknown.
func (e *Engine) markEchoed(fb *vt.Framebuffer, first, end int) {
	for i := first; i < end; i++ {
		e.log[i].hasCursor = false
	}
	if end > 0 {
		k := &e.log[end-1]
		k.cx, k.cy = fb.Cursor()
		k.hasCursor = true
	}
}

// echoMatch is what matchEcho found.
type echoMatch struct {
	echoed           int  // how many received but unconfirmed keys fb shows
	quick            bool // fb shows the current line's echo: confirm at once
	originX, originY int  // where that line starts
	fromReturn       bool // the line began with Enter
}

// matchEcho decides how many of the keys log[first:end] (received by the
// server, echo not yet confirmed) fb already shows, by finding the text
// typed since the last break echoed just left of the server's cursor. It
// tries the most keys first; without any match it assumes all of them,
// since an echoing application answers within milliseconds.
//
// When the whole line since the break does not match, the longest tail of
// it that does (at least two visible characters) is taken instead: the
// first keys may have been commands that do not echo, such as vi's "i".
func (e *Engine) matchEcho(fb *vt.Framebuffer, first, end int) echoMatch {
	b := first - 1
	for b >= 0 && e.log[b].simple() && !e.log[b].opaque {
		b--
	}
	for n := end - first; n >= 0; n-- {
		for from := b + 1; from < first+n; from++ {
			line := e.log[from : first+n]
			if !allSimple(line) {
				break
			}
			x, y, visible := e.matchLine(fb, line)
			if visible < 1 || (from > b+1 && visible < 2) {
				continue
			}
			m := echoMatch{echoed: n, originX: x, originY: y}
			if b >= 0 {
				m.fromReturn = from == b+1 && e.log[b].kind == keyReturn
				m.quick = rowChanged(e.log[b].base, fb, y)
			}
			return m
		}
	}
	return echoMatch{echoed: end - first}
}

func allSimple(keys []key) bool {
	for i := range keys {
		if !keys[i].simple() || keys[i].opaque {
			return false
		}
	}
	return true
}

// matchLine checks whether fb shows the text that typing keys on an
// empty line gives, placed so that the server's cursor is where the
// typing left it. It returns where the line starts and how many visible
// (non-blank) characters matched, 0 if the text does not match.
func (e *Engine) matchLine(fb *vt.Framebuffer, keys []key) (x0, y, visible int) {
	text, cur, ok := simulateLine(keys, e.overwrite)
	if !ok {
		return 0, 0, 0
	}
	x, y := fb.Cursor()
	x0 = x - textWidth(text[:cur])
	if x0 < 0 {
		return 0, 0, 0
	}
	w := fb.Width()
	col := x0
	for _, r := range text {
		want := vt.NewCell(r, vt.Rendition{})
		if col+want.Width() > w || !sameContents(fb.Cell(col, y), want) {
			return 0, 0, 0
		}
		if !want.IsBlank() {
			visible++
		}
		col += want.Width()
	}
	return x0, y, visible
}

// simulateLine types keys (printable characters, backspace, left and
// right) into an empty line as a line editor does, returning the text and
// the cursor's index in it. It fails if the keys leave the line (moving
// or deleting before its start).
func simulateLine(keys []key, overwrite bool) (text []rune, cur int, ok bool) {
	for i := range keys {
		switch k := &keys[i]; k.kind {
		case keyPrint:
			switch {
			case overwrite && cur < len(text):
				text[cur] = k.r
			default:
				text = append(text, 0)
				copy(text[cur+1:], text[cur:])
				text[cur] = k.r
			}
			cur++
		case keyBackspace:
			if cur == 0 {
				return nil, 0, false
			}
			cur--
			if overwrite {
				text[cur] = ' '
			} else {
				text = append(text[:cur], text[cur+1:]...)
			}
		case keyLeft:
			if cur == 0 {
				return nil, 0, false
			}
			cur--
		case keyRight:
			cur = min(cur+1, len(text))
		}
	}
	return text, cur, true
}

func textWidth(text []rune) int {
	n := 0
	for _, r := range text {
		n += max(vt.Width(r), 1)
	}
	return n
}

// rowChanged reports whether row y of fb differs from the same row of
// base, the server's screen when the line's break key was typed: the
// server has drawn something there since (an echo), rather than only
// moved the cursor over existing text.
func rowChanged(base, fb *vt.Framebuffer, y int) bool {
	if base == nil {
		return false
	}
	if bw, bh := base.Size(); bw != fb.Width() || bh != fb.Height() {
		return true
	}
	for x := range fb.Width() {
		if !sameContents(base.Cell(x, y), fb.Cell(x, y)) {
			return true
		}
	}
	return false
}

// cursorConsistent reports whether the server's cursor is where the
// predictions put it after one of the keys fb may show the echo of (from
// the newest key the echo ack covers to the newest key the server has
// received). A tentative epoch is only confirmed if so, which keeps
// a prediction that matches the screen by chance (a password typed at a
// prompt whose text happens to hold the same letter) from being shown.
func (e *Engine) cursorConsistent(fb *vt.Framebuffer) bool {
	x, y := fb.Cursor()
	hi := max(e.link.Acked, e.link.EchoAck)
	lo := uint64(0)
	for i := len(e.log) - 1; i >= 0; i-- {
		if e.log[i].frame <= e.link.EchoAck {
			lo = e.log[i].frame
			break
		}
	}
	seen := false
	for i := range e.log {
		k := &e.log[i]
		if k.frame < lo || k.frame > hi || !k.hasCursor {
			continue
		}
		seen = true
		if (k.cx == x && k.cy == y) || (x == e.w-1 && k.cx == 0 && k.cy == y+1) {
			return true
		}
	}
	return !seen
}

// trimLog forgets keys that re-basing no longer needs: those before the
// last break whose echo is confirmed.
func (e *Engine) trimLog() {
	cut := -1
	for i := range e.log {
		k := &e.log[i]
		if k.frame > e.link.EchoAck {
			break
		}
		if !k.simple() || k.opaque {
			cut = i
		}
	}
	if cut > 0 {
		n := copy(e.log, e.log[cut:])
		clear(e.log[n:])
		e.log = e.log[:n]
	}
}

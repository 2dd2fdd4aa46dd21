package predict

import (
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// Cull judges the outstanding predictions against fb, the newest
// framebuffer received from the server (read only), using the echo ack:
// confirmed ones are dropped (their epoch becomes shown), wrong ones make
// their epoch (or, if already shown, all predictions) go away, and the
// keystrokes still in flight are re-predicted on the server's screen. It
// also updates the display and underline triggers. Call it before
// painting each frame, with the transport's current link; Apply then
// paints what Cull kept.
func (e *Engine) Cull(now time.Time, fb *vt.Framebuffer, link Link) {
	e.setLink(link)
	if e.mode == Never || fb == nil {
		return
	}
	e.cull(now, fb)
}

// cull is Cull with the link recorded.
func (e *Engine) cull(now time.Time, fb *vt.Framebuffer) {
	e.now = now
	if e.link.EchoAck != e.echoSeen {
		e.echoSeen, e.echoAt = e.link.EchoAck, now
	}
	if e.resize(fb.Size()) {
		e.reset()
	}
	e.updateTriggers()
	e.trimLog()
	e.opaqueSeq = e.newestOpaque()
	wrong := e.stats.Wrong
	cause := e.judgeCells(now, fb)
	if cause == noRebase && len(e.cursors) > 0 {
		c := e.cursor()
		if e.cursorValidity(c, fb, e.inconclusive(&c.overlay)) == incorrect {
			if e.mode == Experimental {
				e.cursors = e.cursors[:0]
			} else {
				x, y := fb.Cursor()
				if !c.tentative(e.confEpoch) {
					e.logf.Printf("shown cursor wrong: (%d,%d) vs server (%d,%d), frame %d late %d acked %d", c.col, c.row, x, y, c.frame, e.link.EchoAck, e.link.Acked)
				}
				e.countWrong(c.epoch)
				e.reset()
				cause = shownWrong
			}
		}
	}
	e.dropJudgedCursors(fb)
	if e.stats.Wrong != wrong {
		e.distrust()
	}
	if cause != noRebase && e.features.Rebase {
		e.rebase(fb, cause)
	} else {
		e.confirmByEcho(fb)
		e.confirmByPrompt(fb)
	}
	if e.features.EditorModes {
		e.syncMode(fb)
		e.pagerCatchUp(fb)
	}
}

// reset forgets every prediction and starts a new epoch.
func (e *Engine) reset() {
	clear(e.probes)
	e.clearPredictions()
	e.becomeTentative()
}

// updateTriggers applies the SRTT and underline hysteresis (spec 11.5).
func (e *Engine) updateTriggers() {
	switch {
	case e.link.SendInterval > srttTriggerHigh:
		e.srttTrigger = true
	case e.srttTrigger && e.link.SendInterval <= srttTriggerLow && !e.active():
		e.srttTrigger = false
	}
	switch {
	case e.link.SendInterval > flagTriggerHigh:
		e.flagging = true
	case e.link.SendInterval <= flagTriggerLow:
		e.flagging = false
	}
	if e.glitch > glitchRepairCount {
		e.flagging = true
	}
}

// judgeCells judges every cell prediction. It reports whether the
// in-flight keys must be re-predicted because an epoch was killed, or a
// shown prediction was wrong and everything was reset.
func (e *Engine) judgeCells(now time.Time, fb *vt.Framebuffer) (cause rebaseCause) {
	for y, row := range e.rows {
		for x := range row {
			c := &row[x]
			if c.hasHeld && (c.held.frame <= e.link.EchoAck || !c.tentative(e.confEpoch)) {
				c.hasHeld = false // echoed by now, or the new prediction shows
			}
			v := c.validity(fb, x, y, e.link.EchoAck, e.inconclusive(&c.overlay))
			if v == incorrect && c.pager && e.pagerDrawing(fb) {
				v = pending
			}
			switch v {
			case incorrect:
				switch {
				case e.mode == Experimental:
					c.reset()
				case c.tentative(e.confEpoch):
					e.killEpoch(c.epoch, fb)
					cause = max(cause, epochKilled)
				default:
					e.logf.Printf("shown prediction wrong at (%d,%d): %q vs server %q, frame %d late %d acked %d; server row %q", x, y, c.repl.Text(), fb.Cell(x, y).Text(), c.frame, e.link.EchoAck, e.link.Acked, fb.Row(y).Text())
					e.countWrong(c.epoch)
					e.reset()
					return shownWrong
				}
			case correct:
				if c.tentative(e.confEpoch) && e.features.CursorCheck && !e.cursorConsistent(fb) {
					c.reset() // a coincidence: the cursor is not where the echo would leave it
					continue
				}
				e.confirm(now, fb, row, x, y)
			case noCredit:
				c.reset()
			case pending:
				e.glitchTimer(now, c.when)
			}
		}
	}
	return cause
}

// confirm records a correct prediction at (x, y): its epoch is shown from
// now on, quick confirmations lower the glitch trigger, and the rest of
// the row takes the renditions the server drew.
func (e *Engine) confirm(now time.Time, fb *vt.Framebuffer, row []cellPred, x, y int) {
	c := &row[x]
	e.confEpoch = max(e.confEpoch, c.epoch)
	e.line.confirmed(c.epoch, fb)
	e.stats.Confirmed++
	if now.Sub(c.when) < glitchThreshold && e.glitch > 0 && now.Sub(e.lastQuick) >= glitchRepairMinInterval {
		e.glitch--
		e.lastQuick = now
	}
	rend := fb.Cell(x, y).Rend
	for i := x; i < len(row); i++ {
		row[i].repl.Rend = rend
	}
	c.reset()
}

// glitchTimer raises the glitch trigger for a prediction made at when
// and still pending: shown after 250 ms, underlined too after 5 s.
func (e *Engine) glitchTimer(now, when time.Time) {
	switch age := now.Sub(when); {
	case age >= glitchFlagThreshold:
		e.glitch = 2 * glitchRepairCount
	case age >= glitchThreshold && e.glitch < glitchRepairCount:
		e.glitch = glitchRepairCount
	}
}

// killEpoch drops the predictions of epoch and later ones after a wrong
// tentative prediction, and starts a new epoch. Without
// [Features.Rebase] it restarts the cursor from the server's, as Mosh
// does; with it, Cull re-predicts the keys in flight instead (rebase).
func (e *Engine) killEpoch(epoch uint64, fb *vt.Framebuffer) {
	e.stats.Killed++
	kept := e.cursors[:0]
	for _, c := range e.cursors {
		if c.epoch < epoch {
			kept = append(kept, c)
		}
	}
	e.cursors = kept
	e.forgetProbes(epoch)
	if !e.features.Rebase {
		// Mosh's restart, expiring with the newest typed bytes (Mosh
		// samples the sent state only on input); rebase replaces it.
		x, y := fb.Cursor()
		e.cursors = append(e.cursors, cursorPred{overlay: overlay{frame: e.typedFrame, epoch: e.predEpoch}, col: x, row: y})
	}
	for _, row := range e.rows {
		for i := range row {
			if row[i].epoch >= epoch && row[i].epoch != never {
				row[i].reset()
			}
		}
	}
	e.becomeTentative()
}

// countWrong counts a wrong prediction that was on the screen.
func (e *Engine) countWrong(epoch uint64) {
	if epoch <= e.confEpoch && e.showing() {
		e.stats.Wrong++
	}
}

// dropJudgedCursors keeps only the cursor predictions still pending.
func (e *Engine) dropJudgedCursors(fb *vt.Framebuffer) {
	kept := e.cursors[:0]
	for _, c := range e.cursors {
		if e.cursorValidity(&c, fb, true) == pending {
			kept = append(kept, c)
		}
	}
	e.cursors = kept
}

// cursorValidity judges cursor prediction c against fb. A cursor
// predicted after Escape in vi's insert mode is pending while the server
// still shows it where it was before, for up to escapeWait: vi waits
// that long to tell a lone Escape from the start of a key's escape
// sequence, longer than the echo ack's 50 ms. In vi, so is one the
// server shows on the bottom row: vi writes its messages there in
// pieces, and the screen may be read between them. So is one after a
// scroll of less until the screen shows its prompt again (pagerDrawing).
func (e *Engine) cursorValidity(c *cursorPred, fb *vt.Framebuffer, inconclusive bool) validity {
	v := c.validity(fb, e.link.EchoAck, inconclusive)
	if (v == incorrect || v == noCredit) && c.pager && e.pagerDrawing(fb) {
		return pending // less drawing the screen after a scroll
	}
	if v == correct || v == pending || e.now.Sub(c.when) >= escapeWait {
		return v
	}
	x, y := fb.Cursor()
	switch {
	case c.waits && x == c.waitCol && y == c.waitRow:
		return pending
	case e.inVi() && y == fb.Height()-1 && c.row != y:
		return pending // vi drawing a message on the bottom row
	}
	return v
}

// inconclusive reports whether a mismatch for prediction o can be blamed
// on a keystroke typed after it whose effect was not predicted (Enter, a
// control key, an escape sequence) that the server may already have
// acted on: the newest screen can show the effect of every keystroke up
// to the transport ack, not just up to the echo ack, and keys typed
// together travel in the same state.
func (e *Engine) inconclusive(o *overlay) bool {
	return e.features.BlameOpaque && e.opaqueSeq > o.seq
}

// newestOpaque returns the number of the newest logged key of unpredicted
// effect that the server has received, or 0.
func (e *Engine) newestOpaque() uint64 {
	hi := max(e.link.Acked, e.link.EchoAck)
	for i := len(e.log) - 1; i >= 0; i-- {
		if k := &e.log[i]; k.opaque && k.frame <= hi {
			return k.seq
		}
	}
	return 0
}

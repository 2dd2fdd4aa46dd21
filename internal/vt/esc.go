package vt

// ESCDispatch implements [Handler]: escape sequences (a dispatch switch).
// ESC Fe without intermediates acts as the C1 control Fe+0x40.
func (t *terminal) ESCDispatch(s *Sequence) {
	fb := t.fb
	if s.bad || s.Final >= 0x80 {
		fb.wrapNext = false
		return
	}
	if s.NInter == 1 {
		t.escInter(s.Inter[0], s.Final)
		return
	}
	if s.NInter > 1 {
		return
	}
	switch s.Final {
	case '7': // DECSC
		fb.saveCursor()
	case '8': // DECRC
		fb.restoreCursor()
	case 'c': // RIS
		fb.fullReset()
	case '=': // DECKPAM
		fb.modes.AppKeypad = true
	case '>': // DECKPNM
		fb.modes.AppKeypad = false
	case 'D', 'E', 'H', 'M', 'N', 'O': // IND, NEL, HTS, RI, SS2, SS3
		t.Execute(s.Final + 0x40)
	case 'Z': // DECID
		t.reply = append(t.reply, "\x1b[?62c"...)
	case 'n': // LS2
		fb.cs.gl = 2
	case 'o': // LS3
		fb.cs.gl = 3
	case '\\': // ST on its own: nothing
	default:
		fb.wrapNext = false
	}
}

// escInter handles ESC with one intermediate byte.
func (t *terminal) escInter(inter byte, final rune) {
	fb := t.fb
	switch inter {
	case '(', ')', '*', '+': // designate G0–G3
		fb.cs.g[inter-'('] = designate(final)
	case '#':
		if final == '8' {
			fb.alignmentTest()
		}
	}
}

// fullReset implements RIS: everything but the bell counter returns to
// power-on state; titles are emptied (still marked as set, so a display
// shows the change) and the clipboard cleared.
func (fb *Framebuffer) fullReset() {
	fb.leaveAlt(false)
	fb.rend = Rendition{}
	fb.eraseRows(0, fb.h)
	fb.resetState()
	fb.title, fb.icon = "", ""
	fb.clip = Clipboard{}
	fb.links = nil
}

package vt

import "strconv"

// setModes implements SM/RM; only IRM (4, insert mode) is supported.
func (fb *Framebuffer) setModes(p *Params, set bool) {
	for i := range p.Len() {
		if p.Raw(i) == 4 {
			fb.insert = set
		}
	}
}

// setPrivateModes implements DECSET/DECRST for each parameter.
func (fb *Framebuffer) setPrivateModes(p *Params, set bool) {
	for i := range p.Len() {
		fb.setPrivateMode(p.Raw(i), set)
	}
}

// setPrivateMode sets or resets one DEC private mode (a dispatch switch).
func (fb *Framebuffer) setPrivateMode(mode int, set bool) {
	m := &fb.modes
	switch mode {
	case 1:
		m.AppCursorKeys = set
	case 3: // DECCOLM: the width is kept; the screen is cleared
		fb.top, fb.bottom = 0, fb.h-1
		fb.eraseRows(0, fb.h)
		fb.moveTo(0, 0)
	case 5:
		m.ReverseVideo = set
	case 6:
		fb.origin = set
		fb.home()
	case 7:
		fb.noAutowrap = !set
		if !set {
			fb.wrapNext = false
		}
	case 25:
		fb.cursorHidden = !set
	case 9, 1000, 1001, 1002, 1003:
		m.Mouse = 0
		if set {
			m.Mouse = MouseMode(mode)
		}
	case 1004:
		m.FocusEvents = set
	case 1005, 1006, 1015:
		m.MouseEncoding = 0
		if set {
			m.MouseEncoding = MouseEncoding(mode)
		}
	case 1007:
		m.AltScroll = set
	case 47, 1047:
		if set {
			fb.enterAlt()
		} else {
			fb.leaveAlt(mode == 1047)
		}
	case 1048:
		if set {
			fb.saveCursor()
		} else {
			fb.restoreCursor()
		}
	case 1049:
		fb.altScreen1049(set)
	case 2004:
		m.BracketedPaste = set
	}
}

// privateModeState returns 1 (set), 2 (reset) or 0 (unknown) for DECRQM.
func (fb *Framebuffer) privateModeState(mode int) int {
	m := fb.modes
	var on bool
	switch mode {
	case 1:
		on = m.AppCursorKeys
	case 5:
		on = m.ReverseVideo
	case 6:
		on = fb.origin
	case 7:
		on = !fb.noAutowrap
	case 25:
		on = !fb.cursorHidden
	case 9, 1000, 1001, 1002, 1003:
		on = int(m.Mouse) == mode
	case 1004:
		on = m.FocusEvents
	case 1005, 1006, 1015:
		on = int(m.MouseEncoding) == mode
	case 1007:
		on = m.AltScroll
	case 47, 1047, 1049:
		on = m.AltScreen
	case 2004:
		on = m.BracketedPaste
	default:
		return 0
	}
	if on {
		return 1
	}
	return 2
}

// appendModeReport answers DECRQM: CSI [?] Ps ; Pm $ y.
func (fb *Framebuffer) appendModeReport(r []byte, private bool, mode int) []byte {
	state := 0
	switch {
	case private:
		state = fb.privateModeState(mode)
	case mode == 4 && fb.insert:
		state = 1
	case mode == 4:
		state = 2
	}
	r = append(r, "\x1b["...)
	if private {
		r = append(r, '?')
	}
	r = strconv.AppendInt(r, int64(mode), 10)
	r = append(r, ';')
	r = strconv.AppendInt(r, int64(state), 10)
	return append(r, "$y"...)
}

// enterAlt switches to the alternate screen, which starts blank.
func (fb *Framebuffer) enterAlt() {
	if fb.modes.AltScreen {
		return
	}
	fb.mainRows = fb.rows
	fb.rows = make([]*Row, fb.h)
	er := fb.erase()
	for y := range fb.rows {
		fb.rows[y] = fb.newRow(er)
	}
	fb.modes.AltScreen = true
}

// leaveAlt switches back to the normal screen, erasing the alternate one
// first if asked (1047).
func (fb *Framebuffer) leaveAlt(erase bool) {
	if !fb.modes.AltScreen {
		return
	}
	if erase {
		fb.eraseRows(0, fb.h)
	}
	fb.rows, fb.mainRows = fb.mainRows, nil
	fb.modes.AltScreen = false
	fb.combX, fb.combY = -1, -1
}

// altScreen1049 saves the cursor and switches to a cleared alternate
// screen, or switches back and restores the cursor.
func (fb *Framebuffer) altScreen1049(set bool) {
	if set {
		if fb.modes.AltScreen {
			return
		}
		saved := fb.saved
		fb.saveCursor()
		fb.altSaved, fb.saved = fb.saved, saved
		fb.enterAlt()
		return
	}
	if !fb.modes.AltScreen {
		return
	}
	fb.leaveAlt(false)
	saved := fb.saved
	fb.saved = fb.altSaved
	fb.restoreCursor()
	fb.saved = saved
}

package vt

import "strconv"

// CSIDispatch implements [Handler]: the control sequence dispatch switch
// (long by nature: one case per function).
func (t *terminal) CSIDispatch(s *Sequence) {
	fb := t.fb
	k := s.key()
	p := &s.Params
	if !keepsWrap(k) {
		fb.wrapNext = false // Mosh: functions clear a pending wrap
	}
	switch k {
	case seqKey(0, 0, '@'): // ICH
		fb.insertCells(p.Get(0, 1))
	case seqKey(0, 0, 'A'): // CUU
		fb.cursorUp(p.Get(0, 1))
	case seqKey(0, 0, 'B'), seqKey(0, 0, 'e'): // CUD, VPR
		fb.cursorDown(p.Get(0, 1))
	case seqKey(0, 0, 'C'), seqKey(0, 0, 'a'): // CUF, HPR
		fb.moveTo(fb.x+p.Get(0, 1), fb.y)
	case seqKey(0, 0, 'D'): // CUB
		fb.moveTo(fb.x-p.Get(0, 1), fb.y)
	case seqKey(0, 0, 'E'): // CNL
		fb.cursorDown(p.Get(0, 1))
		fb.moveTo(0, fb.y)
	case seqKey(0, 0, 'F'): // CPL
		fb.cursorUp(p.Get(0, 1))
		fb.moveTo(0, fb.y)
	case seqKey(0, 0, 'G'), seqKey(0, 0, '`'): // CHA, HPA
		fb.moveTo(p.Get(0, 1)-1, fb.y)
	case seqKey(0, 0, 'H'), seqKey(0, 0, 'f'): // CUP, HVP
		fb.cursorPosition(p.Get(0, 1), p.Get(1, 1))
	case seqKey(0, 0, 'I'): // CHT
		fb.x = fb.nextTab(fb.x, p.Get(0, 1))
	case seqKey(0, 0, 'Z'): // CBT
		fb.x = fb.prevTab(fb.x, p.Get(0, 1))
	case seqKey(0, 0, 'J'), seqKey('?', 0, 'J'): // ED, DECSED
		fb.eraseDisplay(p.Raw(0))
	case seqKey(0, 0, 'K'), seqKey('?', 0, 'K'): // EL, DECSEL
		fb.eraseLine(p.Raw(0))
	case seqKey(0, 0, 'L'): // IL
		fb.insertLines(p.Get(0, 1))
	case seqKey(0, 0, 'M'): // DL
		fb.deleteLines(p.Get(0, 1))
	case seqKey(0, 0, 'P'): // DCH
		fb.deleteCells(p.Get(0, 1))
	case seqKey(0, 0, 'S'): // SU
		fb.recordScroll(p.Get(0, 1))
		fb.scrollUp(fb.top, fb.bottom, p.Get(0, 1))
	case seqKey(0, 0, 'T'): // SD
		fb.scrollDown(fb.top, fb.bottom, p.Get(0, 1))
	case seqKey(0, 0, 'X'): // ECH
		fb.eraseCells(p.Get(0, 1))
	case seqKey(0, 0, 'b'): // REP
		fb.repeat(p.Get(0, 1))
	case seqKey(0, 0, 'd'): // VPA
		fb.cursorPosition(p.Get(0, 1), fb.x+1)
	case seqKey(0, 0, 'g'): // TBC
		fb.clearTabs(p.Raw(0))
	case seqKey(0, 0, 'h'), seqKey(0, 0, 'l'): // SM, RM
		fb.setModes(p, s.Final == 'h')
	case seqKey('?', 0, 'h'), seqKey('?', 0, 'l'): // DECSET, DECRST
		fb.setPrivateModes(p, s.Final == 'h')
	case seqKey(0, 0, 'm'): // SGR
		fb.sgr(p)
	case seqKey(0, 0, 'r'): // DECSTBM
		fb.setMargins(p.Get(0, 1), p.Get(1, fb.h))
	case seqKey(0, 0, 's'): // SCOSC
		fb.saveCursor()
	case seqKey(0, 0, 'u'): // SCORC
		fb.restoreCursor()
	case seqKey(0, ' ', 'q'): // DECSCUSR
		if v := p.Raw(0); v <= int(CursorSteadyBar) {
			fb.cursorStyle = CursorStyle(v)
		}
	case seqKey(0, '!', 'p'): // DECSTR
		fb.softReset()
	default:
		t.reply = t.csiReply(s, k)
	}
}

// keepsWrap lists the functions that leave a pending wrap alone: Mosh's
// (CHT, CBT, TBC, SGR, DECSET, DECRST) plus queries and DECSCUSR.
func keepsWrap(k uint32) bool {
	switch k {
	case seqKey(0, 0, 'I'), seqKey(0, 0, 'Z'), seqKey(0, 0, 'g'), seqKey(0, 0, 'm'),
		seqKey('?', 0, 'h'), seqKey('?', 0, 'l'), seqKey(0, 0, 'c'), seqKey('>', 0, 'c'),
		seqKey(0, 0, 'n'), seqKey('?', 0, 'n'), seqKey(0, '$', 'p'), seqKey('?', '$', 'p'),
		seqKey(0, 0, 't'), seqKey(0, ' ', 'q'):
		return true
	}
	return false
}

// csiReply answers the queries among the control sequences; other
// sequences are ignored.
func (t *terminal) csiReply(s *Sequence, k uint32) []byte {
	fb, p, r := t.fb, &s.Params, t.reply
	switch k {
	case seqKey(0, 0, 'c'): // DA
		if p.Raw(0) == 0 {
			r = append(r, "\x1b[?62c"...)
		}
	case seqKey('>', 0, 'c'): // DA2
		if p.Raw(0) == 0 {
			r = append(r, "\x1b[>1;10;0c"...)
		}
	case seqKey(0, 0, 'n'): // DSR
		switch p.Raw(0) {
		case 5:
			r = append(r, "\x1b[0n"...)
		case 6:
			r = fb.appendCPR(append(r, "\x1b["...))
		}
	case seqKey('?', 0, 'n'): // DECDSR
		if p.Raw(0) == 6 {
			r = fb.appendCPR(append(r, "\x1b[?"...))
		}
	case seqKey(0, '$', 'p'), seqKey('?', '$', 'p'): // DECRQM
		r = fb.appendModeReport(r, s.Marker == '?', p.Raw(0))
	case seqKey(0, 0, 't'): // XTWINOPS: only "report size in characters"
		if p.Raw(0) == 18 {
			r = append(r, "\x1b[8;"...)
			r = strconv.AppendInt(r, int64(fb.h), 10)
			r = append(r, ';')
			r = strconv.AppendInt(r, int64(fb.w), 10)
			r = append(r, 't')
		}
	}
	return r
}

// appendCPR appends "row;colR" (1-based, relative to the scroll region in
// origin mode).
func (fb *Framebuffer) appendCPR(r []byte) []byte {
	y := fb.y
	if fb.origin {
		y -= fb.top
	}
	r = strconv.AppendInt(r, int64(y+1), 10)
	r = append(r, ';')
	r = strconv.AppendInt(r, int64(fb.x+1), 10)
	return append(r, 'R')
}

package vt

import "unicode/utf8"

// Parser turns a byte stream into terminal actions. It decodes UTF-8 first
// (invalid input becomes U+FFFD, one per maximal invalid subpart, as in
// Mosh), then runs the DEC VT500-series state machine over code points:
// ground, escape, CSI, DCS, OSC and SOS/PM/APC states with intermediates,
// private markers and parameters, including colon sub-parameters. C1
// controls are recognised as the code points U+0080–U+009F (UTF-8 C2 80–
// C2 9F) and as 7-bit ESC Fe; raw bytes 0x80–0x9F are invalid UTF-8.
//
// Memory is bounded: at most [MaxParams] parameters, [maxInter]
// intermediates and [MaxOSC] bytes of OSC string are kept.
//
// The zero value is ready to use. A Parser is not safe for concurrent use.
type Parser struct {
	state pstate
	seq   Sequence
	osc   []byte
	trunc bool // OSC longer than MaxOSC

	// UTF-8 decoder state.
	need   int  // continuation bytes still expected
	acc    rune // code point accumulated so far
	lo, hi byte // accepted range of the next continuation byte
}

// Feed parses p, calling h for every action. A sequence may be split
// across calls.
func (p *Parser) Feed(data []byte, h Handler) {
	for i := 0; i < len(data); {
		if p.state == sGround && p.need == 0 {
			j := i
			for j < len(data) && data[j] >= 0x20 && data[j] < 0x7F {
				j++
			}
			if j > i {
				h.PrintASCII(data[i:j])
				i = j
				continue
			}
		}
		if (p.state == sCSIParam || p.state == sCSIEntry) && p.need == 0 {
			if n := p.csiFast(data[i:], h); n > 0 {
				i += n
				continue
			}
		}
		b := data[i]
		if p.need == 0 {
			if b < 0x80 {
				p.advance(rune(b), h)
				i++
				continue
			}
			if r, n := utf8.DecodeRune(data[i:]); n > 1 {
				if p.state == sGround && r >= classes {
					h.Print(r) // fast path: a graphic character in ground
				} else {
					p.advance(r, h)
				}
				i += n
				continue
			}
		}
		r, ok, again := p.decode(b)
		if !again {
			i++
		}
		if ok {
			p.advance(r, h)
		}
	}
}

// csiFast consumes parameter bytes and a final byte of a control sequence
// without going through the transition table (the same transitions, taken
// directly), and returns how many bytes it used.
func (p *Parser) csiFast(data []byte, h Handler) int {
	i := 0
	for ; i < len(data); i++ {
		switch b := data[i]; {
		case b >= '0' && b <= '9':
			p.seq.Params.digit(b)
		case b == ';' || b == ':':
			p.seq.Params.next(b == ':')
		case b >= 0x40 && b <= 0x7E:
			p.seq.Final = rune(b)
			p.state = sGround
			h.CSIDispatch(&p.seq)
			return i + 1
		default:
			return i
		}
		p.state = sCSIParam
	}
	return i
}

// decode runs one byte through the incremental UTF-8 decoder. It returns a
// code point when one is complete (ok), and again when the byte ended an
// invalid sequence and must be examined once more.
func (p *Parser) decode(b byte) (r rune, ok, again bool) {
	if p.need > 0 {
		if b < p.lo || b > p.hi {
			p.need = 0
			return utf8.RuneError, true, true
		}
		p.acc = p.acc<<6 | rune(b&0x3F)
		p.lo, p.hi = 0x80, 0xBF
		p.need--
		if p.need > 0 {
			return 0, false, false
		}
		return p.acc, true, false
	}
	p.lo, p.hi = 0x80, 0xBF
	switch {
	case b < 0x80:
		return rune(b), true, false
	case b >= 0xC2 && b <= 0xDF:
		p.need, p.acc = 1, rune(b&0x1F)
	case b >= 0xE0 && b <= 0xEF:
		p.need, p.acc = 2, rune(b&0x0F)
		if b == 0xE0 {
			p.lo = 0xA0
		} else if b == 0xED {
			p.hi = 0x9F
		}
	case b >= 0xF0 && b <= 0xF4:
		p.need, p.acc = 3, rune(b&0x07)
		if b == 0xF0 {
			p.lo = 0x90
		} else if b == 0xF4 {
			p.hi = 0x8F
		}
	default:
		return utf8.RuneError, true, false
	}
	return 0, false, false
}

// advance runs one code point through the state machine.
func (p *Parser) advance(r rune, h Handler) {
	c := r
	if c >= classes {
		c = 'A'
	}
	t := table[p.state][c]
	next := t.next()
	if next == stay {
		p.act(t.action(), r, h)
		return
	}
	p.exit(h)
	p.act(t.action(), r, h)
	if next == sDCSPass {
		p.seq.Final = r
	}
	p.state = next
	p.enter(h)
}

// exit runs the exit action of the current state.
func (p *Parser) exit(h Handler) {
	switch p.state {
	case sOSC:
		p.oscEnd(h)
	case sDCSPass:
		h.DCSUnhook()
	}
}

// enter runs the entry action of the (new) current state.
func (p *Parser) enter(h Handler) {
	switch p.state {
	case sEscape, sCSIEntry, sDCSEntry:
		p.clear()
	case sOSC:
		p.osc, p.trunc = p.osc[:0], false
	case sDCSPass:
		h.DCSHook(&p.seq)
	}
}

func (p *Parser) clear() {
	p.seq.Params.reset()
	p.seq.Marker, p.seq.Inter, p.seq.NInter, p.seq.bad = 0, [maxInter]byte{}, 0, false
}

// act performs a transition action.
func (p *Parser) act(a paction, r rune, h Handler) {
	switch a {
	case aPrint:
		h.Print(r)
	case aExecute:
		h.Execute(r)
	case aCollect:
		p.collect(byte(r))
	case aParam:
		switch r {
		case ';', ':':
			p.seq.Params.next(r == ':')
		default:
			p.seq.Params.digit(byte(r))
		}
	case aESCDispatch:
		p.seq.Final = r
		h.ESCDispatch(&p.seq)
	case aCSIDispatch:
		p.seq.Final = r
		h.CSIDispatch(&p.seq)
	case aPut:
		h.DCSPut(r)
	case aOSCPut:
		p.oscPut(r)
	case aOSCEnd:
		// Exit of sOSC dispatches the string.
	}
}

// collect records a private marker or an intermediate byte.
func (p *Parser) collect(b byte) {
	s := &p.seq
	if b >= 0x3C && b <= 0x3F {
		if s.Marker != 0 || s.NInter > 0 {
			s.bad = true
		}
		s.Marker = b
		return
	}
	if s.NInter >= maxInter {
		s.bad = true
		return
	}
	s.Inter[s.NInter] = b
	s.NInter++
}

func (p *Parser) oscPut(r rune) {
	if len(p.osc)+utf8.RuneLen(r) > MaxOSC {
		p.trunc = true
		return
	}
	p.osc = utf8.AppendRune(p.osc, r)
}

func (p *Parser) oscEnd(h Handler) {
	h.OSCDispatch(p.osc, p.trunc)
	if cap(p.osc) > 64<<10 {
		p.osc = nil // do not keep a huge buffer around
	}
	p.osc = p.osc[:0]
}

// Ground reports whether the parser is between sequences.
func (p *Parser) Ground() bool { return p.state == sGround && p.need == 0 }

// clone returns a deep copy of p.
func (p *Parser) clone() Parser {
	c := *p
	if len(p.osc) > 0 {
		c.osc = append([]byte(nil), p.osc...)
	} else {
		c.osc = nil
	}
	return c
}

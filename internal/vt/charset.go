package vt

// charset is a 94-character graphic set designated by ESC ( ) * + F.
type charset uint8

const (
	csASCII      charset = iota // ESC ( B (and anything not listed)
	csDECSpecial                // ESC ( 0: DEC special graphics (line drawing)
	csUK                        // ESC ( A: '#' is '£'
)

// charsetState holds the designated sets G0–G3, the one invoked into GL
// (SI, SO, LS2, LS3) and a pending single shift (SS2, SS3).
type charsetState struct {
	g  [4]charset
	gl uint8 // index into g
	ss uint8 // 0, or 2/3 for the next character only
}

// active reports whether printing may translate characters (the ASCII fast
// path is off).
func (cs *charsetState) active() bool {
	return cs.g[cs.gl] != csASCII || cs.ss != 0
}

// designate parses the final byte of ESC ( ) * + F.
func designate(final rune) charset {
	switch final {
	case '0':
		return csDECSpecial
	case 'A':
		return csUK
	}
	return csASCII
}

// translate maps r through the set invoked for it, consuming a single shift.
func (cs *charsetState) translate(r rune) rune {
	set := cs.g[cs.gl]
	if cs.ss != 0 {
		set, cs.ss = cs.g[cs.ss], 0
	}
	switch {
	case set == csASCII || r < 0x20 || r > 0x7E:
		return r
	case set == csUK:
		if r == '#' {
			return '£'
		}
		return r
	case r >= 0x5F:
		return decSpecial[r-0x5F]
	}
	return r
}

// decSpecial is the DEC special graphics set for 0x5F–0x7E, mapped to
// Unicode as xterm and tmux do.
var decSpecial = [32]rune{
	' ',                                    // 0x5F blank
	'◆', '▒', '␉', '␌', '␍', '␊', '°', '±', // 0x60–0x67
	'␤', '␋', '┘', '┐', '┌', '└', '┼', '⎺', // 0x68–0x6F
	'⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', // 0x70–0x77
	'│', '≤', '≥', 'π', '≠', '£', '·', // 0x78–0x7E
}

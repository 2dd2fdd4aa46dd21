package vt

import "strconv"

// appendSGR appends an absolute SGR sequence for r (already masked):
// "CSI 0", then bold, italic, underline, blink, inverse, invisible (Mosh's
// order), then, if the profile has [CapStyles], faint, strikethrough,
// overline and the underline style, then foreground, background and
// underline colour.
func (d *Display) appendSGR(b []byte, r Rendition) []byte {
	b = append(b, "\x1b[0"...)
	a := r.Attrs
	ext := d.caps.Ext&CapStyles != 0
	for _, f := range [...]struct {
		a Attr
		s string
	}{{AttrBold, ";1"}, {AttrItalic, ";3"}} {
		if a&f.a != 0 {
			b = append(b, f.s...)
		}
	}
	switch u := a.Underline(); {
	case u == UnderlineNone:
	case u == UnderlineSingle || !ext:
		b = append(b, ";4"...)
	default:
		b = append(b, ";4:"...)
		b = appendUint(b, int(u))
	}
	for _, f := range [...]struct {
		a Attr
		s string
	}{{AttrBlink, ";5"}, {AttrInverse, ";7"}, {AttrInvisible, ";8"}} {
		if a&f.a != 0 {
			b = append(b, f.s...)
		}
	}
	if ext {
		for _, f := range [...]struct {
			a Attr
			s string
		}{{AttrFaint, ";2"}, {AttrStrike, ";9"}, {AttrOverline, ";53"}} {
			if a&f.a != 0 {
				b = append(b, f.s...)
			}
		}
	}
	b = appendColor(b, r.FG, 30, ";")
	b = appendColor(b, r.BG, 40, ";")
	if ext && r.UL != DefaultColor {
		b = appendColor(b, r.UL, 50, ":")
	}
	return append(b, 'm')
}

// appendColor appends ";3N" / ";38;5;N" / ";38;2;R;G;B" (base 30), the
// background forms (base 40), or the colon underline-colour forms
// ";58:5:N" / ";58:2::R:G:B" (base 50, sep ":").
func appendColor(b []byte, c Color, base int, sep string) []byte {
	if c == DefaultColor {
		return b
	}
	b = append(b, ';')
	if i, ok := c.Palette(); ok {
		if i < 8 && base != 50 {
			return appendUint(b, base+int(i))
		}
		b = appendUint(b, base+8)
		b = append(append(b, sep...), '5')
		b = append(b, sep...)
		return appendUint(b, int(i))
	}
	r, g, bl, _ := c.RGB()
	b = appendUint(b, base+8)
	b = append(append(b, sep...), '2')
	if base == 50 {
		b = append(b, sep...) // empty colour-space id
	}
	for _, v := range [...]uint8{r, g, bl} {
		b = append(b, sep...)
		b = appendUint(b, int(v))
	}
	return b
}

// appendMode appends DECSET (CSI ? n h) or DECRST (CSI ? n l).
func appendMode(b []byte, mode int, set bool) []byte {
	b = append(b, "\x1b[?"...)
	b = appendUint(b, mode)
	if set {
		return append(b, 'h')
	}
	return append(b, 'l')
}

func appendUint(b []byte, v int) []byte { return strconv.AppendUint(b, uint64(v), 10) }

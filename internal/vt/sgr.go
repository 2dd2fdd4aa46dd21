package vt

// sgr implements SGR (CSI Pm m): attributes, 16/256/24-bit colours in the
// semicolon form (Mosh's rules: an incomplete 38;5 or 38;2 is ignored and
// its numbers read as ordinary SGR codes) and the colon form (ITU T.416:
// 38:5:i, 38:2:[cs]:r:g:b), underline styles 4:n, underline colour 58.
// SGR 0 does not end a hyperlink.
func (fb *Framebuffer) sgr(p *Params) {
	n := p.Len()
	if n == 0 {
		fb.rend = Rendition{Link: fb.rend.Link}
		return
	}
	for i := 0; i < n; {
		j := i + 1
		for j < n && p.IsSub(j) {
			j++
		}
		if j > i+1 {
			fb.sgrColon(p, i, j)
			i = j
			continue
		}
		i += fb.sgrOne(p, i)
	}
}

// sgrOne applies parameter i and returns how many parameters it used
// (a dispatch switch).
func (fb *Framebuffer) sgrOne(p *Params, i int) int {
	r := &fb.rend
	v := p.Raw(i)
	switch {
	case v == 0:
		*r = Rendition{Link: r.Link}
	case v == 1:
		r.Attrs |= AttrBold
	case v == 2:
		r.Attrs |= AttrFaint
	case v == 3:
		r.Attrs |= AttrItalic
	case v == 4:
		r.Attrs = r.Attrs.WithUnderline(UnderlineSingle)
	case v == 5, v == 6:
		r.Attrs |= AttrBlink
	case v == 7:
		r.Attrs |= AttrInverse
	case v == 8:
		r.Attrs |= AttrInvisible
	case v == 9:
		r.Attrs |= AttrStrike
	case v == 21:
		r.Attrs = r.Attrs.WithUnderline(UnderlineDouble)
	case v == 22:
		r.Attrs &^= AttrBold | AttrFaint
	case v == 23:
		r.Attrs &^= AttrItalic
	case v == 24:
		r.Attrs = r.Attrs.WithUnderline(UnderlineNone)
	case v == 25:
		r.Attrs &^= AttrBlink
	case v == 27:
		r.Attrs &^= AttrInverse
	case v == 28:
		r.Attrs &^= AttrInvisible
	case v == 29:
		r.Attrs &^= AttrStrike
	case v >= 30 && v <= 37:
		r.FG = PaletteColor(uint8(v - 30))
	case v == 38, v == 48, v == 58:
		c, ok, used := extendedColor(p, i)
		if used == 0 {
			return 1 // incomplete: 38 ignored, the rest read normally
		}
		if ok {
			*colorTarget(r, v) = c
		}
		return used
	case v == 39:
		r.FG = DefaultColor
	case v >= 40 && v <= 47:
		r.BG = PaletteColor(uint8(v - 40))
	case v == 49:
		r.BG = DefaultColor
	case v == 53:
		r.Attrs |= AttrOverline
	case v == 55:
		r.Attrs &^= AttrOverline
	case v == 59:
		r.UL = DefaultColor
	case v >= 90 && v <= 97:
		r.FG = PaletteColor(uint8(v - 90 + 8))
	case v >= 100 && v <= 107:
		r.BG = PaletteColor(uint8(v - 100 + 8))
	}
	return 1
}

// colorTarget returns the colour SGR code 38, 48 or 58 sets.
func colorTarget(r *Rendition, code int) *Color {
	switch code {
	case 38:
		return &r.FG
	case 48:
		return &r.BG
	}
	return &r.UL
}

// extendedColor parses the semicolon form at i (38;5;n or 38;2;r;g;b). It
// returns the colour (ok false if out of range) and the parameters used,
// or 0 if the form is incomplete.
func extendedColor(p *Params, i int) (c Color, ok bool, used int) {
	n := p.Len()
	switch p.Raw(i + 1) {
	case 5:
		if i+2 >= n {
			return 0, false, 0
		}
		idx := p.Raw(i + 2)
		return PaletteColor(uint8(idx)), idx <= 255, 3
	case 2:
		if i+4 >= n {
			return 0, false, 0
		}
		c, ok := rgb(p.Raw(i+2), p.Raw(i+3), p.Raw(i+4))
		return c, ok, 5
	}
	return 0, false, 0
}

func rgb(r, g, b int) (Color, bool) {
	if r > 255 || g > 255 || b > 255 {
		return 0, false
	}
	return RGBColor(uint8(r), uint8(g), uint8(b)), true
}

// sgrColon applies the colon group p[i:j] (a parameter with
// sub-parameters).
func (fb *Framebuffer) sgrColon(p *Params, i, j int) {
	r := &fb.rend
	switch v := p.Raw(i); v {
	case 4:
		if u := p.Raw(i + 1); u <= int(UnderlineDashed) {
			r.Attrs = r.Attrs.WithUnderline(UnderlineStyle(u))
		}
	case 38, 48, 58:
		var c Color
		var ok bool
		switch p.Raw(i + 1) {
		case 5:
			if idx := p.Raw(i + 2); j-i >= 3 && idx <= 255 {
				c, ok = PaletteColor(uint8(idx)), true
			}
		case 2:
			switch j - i {
			case 5: // 38:2:r:g:b
				c, ok = rgb(p.Raw(i+2), p.Raw(i+3), p.Raw(i+4))
			case 6, 7, 8: // 38:2:colorspace:r:g:b[:unused:tolerance]
				c, ok = rgb(p.Raw(i+3), p.Raw(i+4), p.Raw(i+5))
			}
		}
		if ok {
			*colorTarget(r, v) = c
		}
	}
}

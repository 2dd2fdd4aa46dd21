package vt

import "unicode/utf8"

// Color is a packed colour: the default colour, an index into the 256-colour
// palette, or a 24-bit RGB value. The zero value is the default colour.
type Color uint32

const (
	colorKindShift        = 24
	colorPalette   uint32 = 1 << colorKindShift
	colorRGB       uint32 = 2 << colorKindShift
)

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

// PaletteColor returns palette entry i (0–7 are the ANSI colours SGR 30–37,
// 8–15 their bright versions SGR 90–97).
func PaletteColor(i uint8) Color { return Color(colorPalette | uint32(i)) }

// RGBColor returns a 24-bit colour.
func RGBColor(r, g, b uint8) Color {
	return Color(colorRGB | uint32(r)<<16 | uint32(g)<<8 | uint32(b))
}

// IsDefault reports whether c is the default colour.
func (c Color) IsDefault() bool { return c == DefaultColor }

// Palette returns the palette index of c and whether c is a palette colour.
func (c Color) Palette() (uint8, bool) {
	return uint8(c), uint32(c)&^0xFFFFFF == colorPalette
}

// RGB returns the components of c and whether c is an RGB colour.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	return uint8(c >> 16), uint8(c >> 8), uint8(c), uint32(c)&^0xFFFFFF == colorRGB
}

// Attr is a set of character attributes. The underline style occupies the
// bits under [AttrUnderlineMask]; use [Attr.Underline] to read it.
type Attr uint16

// Character attributes.
const (
	AttrBold      Attr = 1 << iota // SGR 1
	AttrFaint                      // SGR 2
	AttrItalic                     // SGR 3
	AttrBlink                      // SGR 5 (and 6)
	AttrInverse                    // SGR 7
	AttrInvisible                  // SGR 8
	AttrStrike                     // SGR 9
	AttrOverline                   // SGR 53

	attrUnderlineShift = 8
	// AttrUnderlineMask covers the [UnderlineStyle] bits.
	AttrUnderlineMask Attr = 7 << attrUnderlineShift
)

// UnderlineStyle is the underline kind set by SGR 4, 4:n and 21.
type UnderlineStyle uint8

// Underline styles (the values of SGR 4:n).
const (
	UnderlineNone UnderlineStyle = iota
	UnderlineSingle
	UnderlineDouble
	UnderlineCurly
	UnderlineDotted
	UnderlineDashed
)

// Underline returns the underline style stored in a.
func (a Attr) Underline() UnderlineStyle {
	return UnderlineStyle((a & AttrUnderlineMask) >> attrUnderlineShift)
}

// WithUnderline returns a with its underline style replaced by u.
func (a Attr) WithUnderline(u UnderlineStyle) Attr {
	return a&^AttrUnderlineMask | Attr(u)<<attrUnderlineShift&AttrUnderlineMask
}

// Rendition is how a cell is drawn: colours, attributes and hyperlink.
// The zero value is the default rendition. Renditions are comparable.
type Rendition struct {
	FG, BG Color
	UL     Color  // underline colour (SGR 58); default = foreground
	Attrs  Attr   //
	Link   uint16 // hyperlink id, see [Framebuffer.Link]; 0 = none
}

// eraseRendition is the rendition of cells erased under r: only the
// background colour survives (background colour erase).
func (r Rendition) eraseRendition() Rendition { return Rendition{BG: r.BG} }

type cellFlags uint8

const (
	cellWide cellFlags = 1 << iota // first half of a two-column character
	cellCont                       // second half of a two-column character
)

// Cell is one character cell: a grapheme (a base character plus combining
// characters), its width and its [Rendition]. An empty (erased) cell and a
// cell holding a space are the same: both have Rune 0.
//
// Cells are values; the combining characters live in an immutable string
// shared between copies.
type Cell struct {
	r     rune
	flags cellFlags
	Rend  Rendition
	comb  *string // combining characters after r (UTF-8), or nil
}

// set overwrites c field by field, writing the pointer only when it is
// set, which keeps the GC write barrier off the hot paths.
func (c *Cell) set(r rune, flags cellFlags, rend Rendition) {
	c.r, c.flags, c.Rend = r, flags, rend
	if c.comb != nil {
		c.comb = nil
	}
}

// NewCell returns a cell holding r, one or two columns wide as [Width]
// says (a space or a non-printable r gives an empty cell).
func NewCell(r rune, rend Rendition) Cell {
	c := Cell{Rend: rend}
	switch w := Width(r); {
	case r == ' ' || w < 0:
	case w == 2:
		c.r, c.flags = r, cellWide
	default:
		c.r = r
	}
	return c
}

// Rune returns the base character of c, or 0 if c is empty or is the
// second half of a wide character.
func (c Cell) Rune() rune { return c.r }

// Combining returns the combining characters that follow the base
// character, as UTF-8.
func (c Cell) Combining() string {
	if c.comb == nil {
		return ""
	}
	return *c.comb
}

// IsBlank reports whether c shows nothing but its background: no character
// and not part of a wide character.
func (c Cell) IsBlank() bool { return c.r == 0 && c.comb == nil && c.flags == 0 }

// IsWide reports whether c is the first half of a two-column character.
func (c Cell) IsWide() bool { return c.flags&cellWide != 0 }

// IsContinuation reports whether c is the second half of a two-column
// character (it holds no text of its own).
func (c Cell) IsContinuation() bool { return c.flags&cellCont != 0 }

// Width returns the columns c occupies: 2 for a wide character, 0 for the
// second half of one, else 1.
func (c Cell) Width() int {
	switch {
	case c.flags&cellWide != 0:
		return 2
	case c.flags&cellCont != 0:
		return 0
	}
	return 1
}

// AppendText appends the grapheme of c as UTF-8 (a space for an empty cell,
// nothing for the second half of a wide character).
func (c Cell) AppendText(dst []byte) []byte {
	switch {
	case c.flags&cellCont != 0:
		return dst
	case c.r == 0 && c.comb == nil:
		return append(dst, ' ')
	}
	if c.r != 0 {
		dst = utf8.AppendRune(dst, c.r)
	}
	if c.comb != nil {
		dst = append(dst, *c.comb...)
	}
	return dst
}

// Text returns the grapheme of c as [Cell.AppendText] writes it.
func (c Cell) Text() string { return string(c.AppendText(nil)) }

// Equal reports whether c and o are the same cell: grapheme, width and
// rendition, including the hyperlink id (ids are only comparable within
// one framebuffer and its clones).
func (c Cell) Equal(o Cell) bool {
	if c.r != o.r || c.flags != o.flags || c.Rend != o.Rend {
		return false
	}
	return c.comb == o.comb || (c.comb != nil && o.comb != nil && *c.comb == *o.comb)
}

// equalMasked is Equal with renditions compared under mask m and hyperlink
// ids ignored (ids are local to a framebuffer; compare targets separately).
func (c Cell) equalMasked(o Cell, m renditionMask) bool {
	if c.r != o.r || c.flags != o.flags {
		return false
	}
	cr, or := c.Rend, o.Rend
	cr.Link, or.Link = 0, 0
	if cr != or && (m == fullMask || m.apply(cr) != m.apply(or)) {
		return false
	}
	return c.comb == o.comb || (c.comb != nil && o.comb != nil && *c.comb == *o.comb)
}

// addCombining returns c with r appended to its grapheme, unless that would
// exceed [maxCellBytes]. An empty cell first gets U+00A0 as its base
// character (Mosh's fallback), so the mark has something to sit on.
func (c Cell) addCombining(r rune) Cell {
	if c.r == 0 {
		c.r = 0xA0
	}
	size := utf8.RuneLen(c.r) + utf8.RuneLen(r)
	if c.comb != nil {
		size += len(*c.comb)
	}
	if size > maxCellBytes {
		return c
	}
	s := string(utf8.AppendRune([]byte(c.Combining()), r))
	c.comb = &s
	return c
}

// renditionMask selects the parts of a [Rendition] a display profile can
// reproduce.
// Hyperlink ids never take part in masked comparisons; link says whether
// the targets are to be compared (by the caller, which knows the tables).
type renditionMask struct {
	attrs Attr
	ul    bool // underline colour
	link  bool
}

var fullMask = renditionMask{attrs: ^Attr(0), ul: true, link: true}

func (m renditionMask) apply(r Rendition) Rendition {
	a := r.Attrs & m.attrs
	if r.Attrs.Underline() != UnderlineNone && m.attrs&AttrUnderlineMask != AttrUnderlineMask {
		a = a.WithUnderline(UnderlineSingle) // only plain underline available
	}
	r.Attrs = a
	if !m.ul {
		r.UL = DefaultColor
	}
	r.Link = 0
	return r
}

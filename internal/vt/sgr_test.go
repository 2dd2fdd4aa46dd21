package vt_test

import (
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
)

func TestSGR(t *testing.T) {
	pal, rgb := vt.PaletteColor, vt.RGBColor
	ul := func(u vt.UnderlineStyle) vt.Attr { return vt.Attr(0).WithUnderline(u) }
	tests := []struct {
		name  string
		input string // SGR sequences, then the character whose rendition is checked
		want  vt.Rendition
	}{
		{"reset", "\x1b[1;31m\x1b[mX", vt.Rendition{}}, // bold red, SGR (empty) resets
		{"bold italic blink inverse invisible", "\x1b[1;3;5;7;8mX", vt.Rendition{Attrs: vt.AttrBold | vt.AttrItalic | vt.AttrBlink | vt.AttrInverse | vt.AttrInvisible}},
		{"faint strike overline", "\x1b[2;9;53mX", vt.Rendition{Attrs: vt.AttrFaint | vt.AttrStrike | vt.AttrOverline}},                   // SGR 2, 9, 53
		{"22 clears bold and faint", "\x1b[1;2;22mX", vt.Rendition{}},                                                                     // SGR 1, 2, 22
		{"underline", "\x1b[4mX", vt.Rendition{Attrs: ul(vt.UnderlineSingle)}},                                                            // SGR 4
		{"double underline 21", "\x1b[21mX", vt.Rendition{Attrs: ul(vt.UnderlineDouble)}},                                                 // SGR 21
		{"curly underline", "\x1b[4:3mX", vt.Rendition{Attrs: ul(vt.UnderlineCurly)}},                                                     // SGR 4:3
		{"underline off 4:0", "\x1b[4m\x1b[4:0mX", vt.Rendition{}},                                                                        // SGR 4, then 4:0
		{"ANSI colours", "\x1b[31;42mX", vt.Rendition{FG: pal(1), BG: pal(2)}},                                                            // SGR 31, 42
		{"bright colours", "\x1b[91;107mX", vt.Rendition{FG: pal(9), BG: pal(15)}},                                                        // SGR 91, 107
		{"default colours", "\x1b[31;42;39;49mX", vt.Rendition{}},                                                                         // set then SGR 39, 49
		{"256 colours", "\x1b[38;5;200;48;5;17mX", vt.Rendition{FG: pal(200), BG: pal(17)}},                                               // SGR 38;5;n 48;5;n
		{"palette 1 equals ANSI red", "\x1b[38;5;1mX", vt.Rendition{FG: pal(1)}},                                                          // SGR 38;5;1
		{"truecolour", "\x1b[38;2;1;2;3;48;2;4;5;6mX", vt.Rendition{FG: rgb(1, 2, 3), BG: rgb(4, 5, 6)}},                                  // SGR 38;2 48;2
		{"colon 256", "\x1b[38:5:99mX", vt.Rendition{FG: pal(99)}},                                                                        // SGR 38:5:99
		{"colon truecolour with colour space", "\x1b[38:2::10:20:30mX", vt.Rendition{FG: rgb(10, 20, 30)}},                                // SGR 38:2::r:g:b
		{"colon truecolour without colour space", "\x1b[48:2:10:20:30mX", vt.Rendition{BG: rgb(10, 20, 30)}},                              // SGR 48:2:r:g:b
		{"underline colour", "\x1b[58:5:9mX", vt.Rendition{UL: pal(9)}},                                                                   // SGR 58:5:9
		{"underline colour semicolon", "\x1b[58;2;1;2;3mX", vt.Rendition{UL: rgb(1, 2, 3)}},                                               // SGR 58;2;r;g;b
		{"underline colour reset", "\x1b[58:5:9;59mX", vt.Rendition{}},                                                                    // SGR 58:5:9 then 59
		{"incomplete 38;5 reads 5 as blink (Mosh)", "\x1b[38;5mX", vt.Rendition{Attrs: vt.AttrBlink}},                                     // SGR 38;5
		{"index above 255 ignored", "\x1b[38;5;300mX", vt.Rendition{}},                                                                    // SGR 38;5;300
		{"mixed with colon group", "\x1b[1;38:2::1:2:3;4mX", vt.Rendition{FG: rgb(1, 2, 3), Attrs: vt.AttrBold | ul(vt.UnderlineSingle)}}, // bold, colon RGB, underline
		{"unknown values ignored", "\x1b[1;66;31mX", vt.Rendition{FG: pal(1), Attrs: vt.AttrBold}},                                        // SGR 1, 66 (unknown), 31
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := vt.NewEmulator(10, 2)
			e.Feed([]byte(tc.input), nil)
			if got := e.Framebuffer().Cell(0, 0).Rend; got != tc.want {
				t.Errorf("Feed(%q): rendition %+v, want %+v", tc.input, got, tc.want)
			}
		})
	}
}

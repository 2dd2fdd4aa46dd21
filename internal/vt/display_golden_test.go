package vt_test

import (
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
)

// TestDisplayGolden compares the wire profile with server diffs observed
// from a real mosh-server (spec sections 9, 10.6 and 11.1).
func TestDisplayGolden(t *testing.T) {
	tests := []struct {
		name     string
		w, h     int
		before   string // output shown before the frame ("" = first frame)
		after    string // output since
		want     string
		initial  bool
		resizeTo [2]int
	}{
		{
			name: "initial paint of a blank screen (spec 11.1)", w: 3, h: 2, initial: true,
			want: "\x1b[?5l\x1b[r\x1b[0m\x1b[H\x1b[2J\x1b[?25l\x1b[K\n\x1b[K\x1b[1;1H\x1b[?25h\x1b[0m" +
				"\x1b[?2004l\x1b[?1003l\x1b[?1002l\x1b[?1001l\x1b[?1000l\x1b[?1004l\x1b[?1015l\x1b[?1006l\x1b[?1005l",
		},
		{
			name: "keystroke echo is a bare character", w: 10, h: 2, before: "$ ", after: "e",
			want: "e",
		},
		{
			name: "prompt after a newline", w: 10, h: 3, before: "x", after: "\r\n$ ",
			want: "\x1b[?25l\r\n$ \x1b[?25h",
		},
		{
			// spec 10.6 without ?1049h, which gosh (unlike Mosh) implements
			name: "renditions, title, clipboard, modes (spec 10.6)", w: 20, h: 3,
			after: "\x1b[91mA\x1b[38;5;1mB\x1b[2mC\x1b[38;5mD\x1b[0m" + // bright red A, palette 1 B, faint C, bare 38;5 = blink
				"\x1b]0;TT\a\x1b]52;c;aGk=\a" + // title and clipboard
				"\x1b[?2004h\x1b[?1002h\x1b[?1006h\a" + // modes and a bell
				"\x1b[48;5;4m\x1b[KE\x1b[0m\r\n", // coloured erase, E (the pty turned \n into \r\n)
			want: "\a\x1b]0;TT\a\x1b]52;c;aGk=\a\x1b[0;38;5;9mA\x1b[0;31mBC\x1b[0;5;31mD\x1b[0;44mE\x1b[K" +
				"\r\n\x1b[0m\x1b[?2004h\x1b[?1002h\x1b[?1006h",
		},
		{
			name: "scroll by one line at the bottom", w: 4, h: 3, before: "a\r\nb\r\nc", after: "\r\nd",
			want: "\r\nd",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := vt.NewEmulator(tc.w, tc.h)
			e.Feed([]byte(tc.before), nil)
			last := e.Framebuffer().Clone()
			e.Feed([]byte(tc.after), nil)
			d := vt.NewDisplay(vt.WireDisplayCaps(0))
			var got []byte
			if tc.initial {
				got = d.NewFrame(nil, false, nil, e.Framebuffer())
			} else {
				got = d.NewFrame(nil, true, last, e.Framebuffer())
			}
			if string(got) != tc.want {
				t.Errorf("NewFrame = %q\nwant       %q", got, tc.want)
			}
		})
	}
}

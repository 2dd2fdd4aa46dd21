package vt_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
)

// benchInputs are the four emulator workloads of the issue, about 1 MiB
// each.
func benchInputs() []struct {
	name string
	data []byte
} {
	const size = 1 << 20
	var ascii, sgr, cjk, redraw strings.Builder
	for i := 0; ascii.Len() < size; i++ { // plain text that scrolls
		fmt.Fprintf(&ascii, "%06d The quick brown fox jumps over the lazy dog; pack my box with five dozen.\r\n", i)
	}
	for i := 0; sgr.Len() < size; i++ { // coloured output, an SGR every few characters
		fmt.Fprintf(&sgr, "\x1b[0m\x1b[01;34mdir%d\x1b[0m  \x1b[38;5;%dmfile.go\x1b[0m  \x1b[1;31;42mERR\x1b[0m \x1b[38;2;%d;100;200mrgb\x1b[0m \x1b[3;4mnote\x1b[0m\r\n", i, i%256, i%256)
	}
	for cjk.Len() < size { // wide text
		cjk.WriteString("日本語のテキストと中文文本、한국어 텍스트를 섞은 줄입니다。終わり\r\n")
	}
	for f := 0; redraw.Len() < size; f++ { // full-screen cursor-addressed redraws
		for y := 1; y <= 24; y++ {
			fmt.Fprintf(&redraw, "\x1b[%d;1H\x1b[%dm%-80s", y, 30+(y+f)%8, fmt.Sprintf("row %d frame %d: %s", y, f, strings.Repeat("=", 40)))
		}
	}
	return []struct {
		name string
		data []byte
	}{
		{"ascii", []byte(ascii.String())},
		{"sgr", []byte(sgr.String())},
		{"cjk", []byte(cjk.String())},
		{"redraw", []byte(redraw.String())},
	}
}

func BenchmarkEmulator(b *testing.B) {
	for _, in := range benchInputs() {
		b.Run(in.name, func(b *testing.B) {
			e := vt.NewEmulator(80, 24)
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				e.Feed(in.data, nil)
			}
		})
	}
}

// benchScreens returns a w×h screen full of coloured text, the same with
// one cell changed, and a completely different screen.
func benchScreens(w, h int) (base, one, full *vt.Framebuffer) {
	fill := func(seed int) *vt.Framebuffer {
		e := vt.NewEmulator(w, h)
		for y := range h {
			fmt.Fprintf(discard{e}, "\x1b[%d;1H\x1b[%dm", y+1, 31+(y+seed)%7)
			for x := range w {
				fmt.Fprintf(discard{e}, "%c", 'a'+(x+y+seed)%26)
			}
		}
		e.Feed([]byte("\x1b[H\x1b[0m"), nil)
		return e.Framebuffer()
	}
	base = fill(0)
	one = base.Clone()
	one.SetCell(w/2, h/2, vt.NewCell('#', vt.Rendition{}))
	full = fill(1)
	return base, one, full
}

type discard struct{ e *vt.Emulator }

func (d discard) Write(p []byte) (int, error) { d.e.Feed(p, nil); return len(p), nil }

func BenchmarkDisplay(b *testing.B) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		base, one, full := benchScreens(sz[0], sz[1])
		for _, c := range []struct {
			name string
			next *vt.Framebuffer
		}{{"one-cell", one}, {"full", full}} {
			b.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], c.name), func(b *testing.B) {
				d := vt.NewDisplay(vt.WireDisplayCaps(0))
				var out []byte
				b.ReportAllocs()
				for b.Loop() {
					out = d.NewFrame(out[:0], true, base, c.next)
				}
				b.ReportMetric(float64(len(out)), "bytes/frame")
			})
		}
	}
}

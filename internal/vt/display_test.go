package vt_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
	"github.com/gosh-term/gosh/internal/vt/vttest"
)

// profiles are the display profiles the oracle runs under.
var profiles = []struct {
	name string
	caps vt.DisplayCaps
}{
	{"wire", vt.WireDisplayCaps(0)},
	{"wire+ext", vt.WireDisplayCaps(vt.CapStyles | vt.CapHyperlinks | vt.CapCursorStyle | vt.CapLongOSC | vt.CapAltScreen)},
	{"xterm", vt.XtermDisplayCaps()},
	{"plain", vt.DisplayCaps{}},
}

// checkFrames is the differential oracle (docs/style.md rule 23): a receiver fed
// NewFrame(blank→a) shows a, then fed NewFrame(a→b) shows b.
func checkFrames(t *testing.T, caps vt.DisplayCaps, a, b *vt.Framebuffer) {
	t.Helper()
	d := vt.NewDisplay(caps)
	w, h := a.Size()
	rcv := vt.NewEmulator(w, h)
	first := d.NewFrame(nil, false, nil, a)
	if reply := rcv.Feed(first, nil); len(reply) != 0 {
		t.Fatalf("frame produced replies %q", reply)
	}
	if diff := vttest.Diff(a, rcv.Framebuffer(), caps); diff != "" {
		t.Fatalf("after NewFrame(blank, a) = %q:\n%s\nwant:\n%s\ngot:\n%s", first, diff, vttest.Render(a), vttest.Render(rcv.Framebuffer()))
	}
	bw, bh := b.Size()
	if bw != w || bh != h {
		rcv.Resize(bw, bh)
	}
	next := d.NewFrame(nil, true, a, b)
	if reply := rcv.Feed(next, nil); len(reply) != 0 {
		t.Fatalf("frame produced replies %q", reply)
	}
	if diff := vttest.Diff(b, rcv.Framebuffer(), caps); diff != "" {
		t.Fatalf("after NewFrame(a, b) = %q:\n%s\nwant:\n%s\ngot:\n%s", next, diff, vttest.Render(b), vttest.Render(rcv.Framebuffer()))
	}
	if alt := b.Modes().AltScreen; caps.Ext&vt.CapAltScreen != 0 && rcv.Framebuffer().Modes().AltScreen != alt {
		t.Fatalf("after NewFrame(a, b) = %q: alternate screen %v, want %v", next, !alt, alt)
	}
	fresh := vt.NewEmulator(bw, bh)
	fresh.Feed(d.NewFrame(nil, false, nil, b), nil)
	if diff := vttest.Diff(b, fresh.Framebuffer(), caps); diff != "" {
		t.Fatalf("after NewFrame(blank, b): %s", diff)
	}
}

// randomPair returns two screens of one emulator, b after more output.
func randomPair(rng *rand.Rand, w, h int) (a, b *vt.Framebuffer) {
	e := vt.NewEmulator(w, h)
	e.Feed(vttest.RandomOutput(rng, w, h, rng.IntN(200)), nil)
	a = e.Framebuffer().Clone()
	if rng.IntN(10) == 0 {
		e.Resize(1+rng.IntN(w+3), 1+rng.IntN(h+3))
	}
	e.Feed(vttest.RandomOutput(rng, w, h, rng.IntN(60)), nil)
	return a, e.Framebuffer().Clone()
}

func TestDisplayOracle(t *testing.T) {
	sizes := [][2]int{{1, 1}, {2, 2}, {5, 3}, {10, 4}, {13, 7}, {80, 24}}
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(p.name))))
			for i := range 3000 {
				sz := sizes[i%len(sizes)]
				a, b := randomPair(rng, sz[0], sz[1])
				checkFrames(t, p.caps, a, b)
			}
		})
	}
}

// FuzzDisplay runs the differential oracle on screens made from fuzzed
// output: the data is fed to an emulator, split into the screens a and b.
func FuzzDisplay(f *testing.F) {
	f.Add([]byte("hello\r\nworld\x1b[1;31mred"), uint16(5), uint8(20), uint8(5))
	f.Add([]byte("abcdefghij\x1b[2;2H中文\x1b[?1049h\x1b[5;1Hx"), uint16(10), uint8(7), uint8(4))
	f.Add([]byte("\x1b[2;4r\x1b[4;1H\n\n\nscroll\x1b]8;;u\x1b\\l\x1b[4:3m"), uint16(3), uint8(10), uint8(6))
	f.Add([]byte("a\x1b[1;10Hb\x1b[?7lcdefg\x1b[?7h\u0301\x1b]52;c;eA==\x07"), uint16(9), uint8(10), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, split uint16, w, h uint8) {
		e := vt.NewEmulator(int(w%90)+1, int(h%30)+1)
		cut := min(int(split), len(data))
		e.Feed(data[:cut], nil)
		a := e.Framebuffer().Clone()
		e.Feed(data[cut:], nil)
		b := e.Framebuffer().Clone()
		for _, p := range profiles {
			checkFrames(t, p.caps, a, b)
		}
	})
}

// TestDisplayOracleChain keeps one receiver across many frames, as a
// client's terminal does, with resizes in between.
func TestDisplayOracleChain(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(len(p.name))))
			for range 40 {
				w, h := 1+rng.IntN(30), 1+rng.IntN(12)
				src := vt.NewEmulator(w, h)
				rcv := vt.NewEmulator(w, h)
				d := vt.NewDisplay(p.caps)
				var shown *vt.Framebuffer
				for step := range 60 {
					if rng.IntN(15) == 0 {
						w, h = 1+rng.IntN(30), 1+rng.IntN(12)
						src.Resize(w, h)
						rcv.Resize(w, h)
					}
					src.Feed(vttest.RandomOutput(rng, w, h, rng.IntN(30)), nil)
					next := src.Framebuffer().Clone()
					rcv.Feed(d.NewFrame(nil, shown != nil, shown, next), nil)
					if diff := vttest.Diff(next, rcv.Framebuffer(), p.caps); diff != "" {
						t.Fatalf("step %d: %s\nwant:\n%s\ngot:\n%s", step, diff, vttest.Render(next), vttest.Render(rcv.Framebuffer()))
					}
					shown = next
				}
			}
		})
	}
}

package vt_test

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
)

// hostileInputs are malformed or abusive host outputs of about 2 MiB.
func hostileInputs() map[string][]byte {
	const n = 2 << 20
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), n/len(s)+1)[:n] }
	return map[string][]byte{
		"absurd CUP":        rep("\x1b[99999999;99999999H"),
		"endless OSC":       append([]byte("\x1b]2;"), rep("A")...),
		"endless OSC 52":    append([]byte("\x1b]52;c;"), rep("QUFB")...),
		"endless DCS":       append([]byte("\x1bP1$q"), rep("x")...),
		"endless CSI":       append([]byte("\x1b["), rep("1;")...),
		"many parameters":   rep("\x1b[" + strings.Repeat("1;", 200) + "m"),
		"invalid UTF-8":     rep("\xff\xe2\x82\xc0\xaf\xed\xa0\x80\xf4\x90"),
		"truncated escapes": rep("\x1b[1;\x1b]0\x1bP\x1b(\x1b[?\x18"),
		"huge REP":          rep("x\x1b[65535b"),
		"huge IL/ICH/ECH":   rep("\x1b[65535L\x1b[65535@\x1b[65535X\x1b[65535P\x1b[65535M"),
		"fresh hyperlinks":  rep("\x1b]8;;http://example.com/aaaaaaaaaaaaa\x1b\\x\x1b]8;;u\x07"),
		"combining storm":   rep("\u0301\u0302\u0303\u0304"),
		"queries":           rep("\x1b[6n\x1b[c"),
	}
}

// TestHostileInput feeds each hostile stream to an emulator: no panic, and
// the emulator keeps little memory afterwards.
func TestHostileInput(t *testing.T) {
	for name, in := range hostileInputs() {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			e := vt.NewEmulator(80, 24)
			for off := 0; off < len(in); off += 4096 {
				e.Feed(in[off:min(off+4096, len(in))], nil)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			if grown > 3*vt.MaxOSC {
				t.Errorf("heap grew by %d bytes", grown)
			}
			runtime.KeepAlive(e)
		})
	}
}

func BenchmarkHostile(b *testing.B) {
	for name, in := range hostileInputs() {
		b.Run(strings.ReplaceAll(name, " ", "-"), func(b *testing.B) {
			e := vt.NewEmulator(80, 24)
			b.SetBytes(int64(len(in)))
			var reply []byte
			for b.Loop() {
				reply = e.Feed(in, reply[:0])
			}
		})
	}
}

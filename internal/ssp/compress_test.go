package ssp

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// goldenZlibHex is C zlib's level-6 output for goldenInstruction
// (docs/protocol.md section 13). Go's compress/zlib emits different (equally
// valid) bytes, so the golden is checked by inflating it.
const goldenZlibHex = "789ce360126096605160d76036e2e46217625562ce29e6b562000013a0023a"

func TestInflateGolden(t *testing.T) {
	var c compressor
	got, err := c.inflate(nil, mustHex(t, goldenZlibHex), MaxInflated)
	if err != nil {
		t.Fatalf("inflate(spec zlib): %v", err)
	}
	if want := mustHex(t, goldenInstructionHex); !bytes.Equal(got, want) {
		t.Errorf("inflate(spec zlib) = %x, want %x", got, want)
	}
}

func TestCompressRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 3000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	tests := []struct {
		name       string
		in         []byte
		wantStored bool // the stored form is shorter than deflate's
	}{
		{"empty", nil, false}, // a fixed-code block with its end alone: 2 bytes
		{"golden instruction", mustHex(t, goldenInstructionHex), false},
		{"repetitive line", bytes.Repeat([]byte("\x1b[0;1;37;44m  hello  "), 20), false},
		{"repetitive screen (level 6)", bytes.Repeat([]byte("\x1b[0;1;37;44m  hello  "), 200), false},
		{"random", random, true},
	}
	var c compressor
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			z := c.compress([]byte("prefix"), tc.in)
			if string(z[:6]) != "prefix" {
				t.Fatalf("compress clobbered dst: %q", z[:6])
			}
			z = z[6:]
			if stored := len(z) == len(tc.in)+storedOverhead && z[2] == 0x01; stored != tc.wantStored {
				t.Errorf("stored = %v, want %v (zlib %x...)", stored, tc.wantStored, z[:min(len(z), 8)])
			}
			// Any zlib reader must accept it.
			zr, err := zlib.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatal(err)
			}
			var std bytes.Buffer
			if _, err := std.ReadFrom(zr); err != nil || !bytes.Equal(std.Bytes(), tc.in) {
				t.Fatalf("compress/zlib reads back %d bytes, %v", std.Len(), err)
			}
			got, err := c.inflate([]byte("x"), z, MaxInflated)
			if err != nil || !bytes.Equal(got[1:], tc.in) || got[0] != 'x' {
				t.Fatalf("inflate = %d bytes, %v", len(got), err)
			}
		})
	}
}

func TestInflateLimitAndGarbage(t *testing.T) {
	var c compressor
	bomb := c.compress(nil, make([]byte, MaxInflated+1))
	if len(bomb) > 10000 {
		t.Fatalf("bomb is %d bytes", len(bomb))
	}
	if _, err := c.inflate(nil, bomb, MaxInflated); !errors.Is(err, errInflateLimit) {
		t.Errorf("inflate(4 MiB + 1 zeros) error = %v, want errInflateLimit", err)
	}
	exact := c.compress(nil, make([]byte, MaxInflated))
	if got, err := c.inflate(nil, exact, MaxInflated); err != nil || len(got) != MaxInflated {
		t.Errorf("inflate(4 MiB zeros) = %d bytes, %v", len(got), err)
	}
	good := mustHex(t, goldenZlibHex)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"bad header", []byte{0x12, 0x34, 0x56}},
		{"truncated", good[:len(good)-5]},
		{"bad checksum", append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^1)},
	} {
		if _, err := c.inflate(nil, tc.in, MaxInflated); err == nil {
			t.Errorf("inflate(%s) succeeded", tc.name)
		}
	}
	// The compressor still works after failures.
	if got, err := c.inflate(nil, good, MaxInflated); err != nil || len(got) == 0 {
		t.Errorf("inflate after failures: %v", err)
	}
}

func TestCompressAllocs(t *testing.T) {
	var c compressor
	in := mustHex(t, goldenInstructionHex)
	buf := make([]byte, 0, 512)
	out := make([]byte, 0, 512)
	z := c.compress(nil, in)
	c.inflate(nil, z, MaxInflated)
	if n := testing.AllocsPerRun(100, func() { buf = c.compress(buf[:0], in) }); n != 0 {
		t.Errorf("compress allocates %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { out, _ = c.inflate(out[:0], z, MaxInflated) }); n != 0 {
		t.Errorf("inflate allocates %v times, want 0", n)
	}
}

// TestSmallDeflateSize: below compressBestMin, smallDeflate's output is
// within a few bytes of compress/flate's at level 1 (which it replaced,
// saving 1.2 MB of tables per transport) on what a session sends: a
// keystroke instruction, an echo's, a screen's frame, a flood's frame.
func TestSmallDeflateSize(t *testing.T) {
	var screen, flood bytes.Buffer
	for i := range 24 {
		fmt.Fprintf(&screen, "\x1b[%d;1H\x1b[0;1;34m%-20s\x1b[0m%-40s", i+1, fmt.Sprintf("row %d", i), "the quick brown fox jumps over the lazy dog")
		fmt.Fprintf(&flood, "\r\n%d", 1000000+i*7)
	}
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"golden instruction", mustHex(t, goldenInstructionHex)},
		{"echo", append(mustHex(t, goldenInstructionHex), "\x1b[24;3Hls -l\x1b[K"...)},
		{"screen", screen.Bytes()[:compressBestMin-1]},
		{"flood", flood.Bytes()},
	} {
		var small smallDeflate
		got := small.compress(nil, tc.in)
		var std bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&std, zlib.BestSpeed)
		zw.Write(tc.in)
		zw.Close()
		t.Logf("%s: %d bytes, smallDeflate %d, level 1 %d", tc.name, len(tc.in), len(got), std.Len())
		if len(got) > std.Len()+std.Len()/10+4 {
			t.Errorf("%s: smallDeflate %d bytes, level 1 %d", tc.name, len(got), std.Len())
		}
	}
}

// FuzzSmallDeflate: whatever the input, smallDeflate's stream inflates
// back to it (through compress/zlib and the transport's inflate).
func FuzzSmallDeflate(f *testing.F) {
	f.Add([]byte(nil))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
	f.Add(bytes.Repeat([]byte("\x1b[0;1;37;44m  hello  "), 90))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) >= compressBestMin {
			in = in[:compressBestMin-1]
		}
		var c compressor
		z := c.small.compress([]byte("x"), in)
		zr, err := zlib.NewReader(bytes.NewReader(z[1:]))
		if err != nil {
			t.Fatal(err)
		}
		var std bytes.Buffer
		if _, err := std.ReadFrom(zr); err != nil || !bytes.Equal(std.Bytes(), in) {
			t.Fatalf("compress/zlib reads back %q, %v; want %q", std.Bytes(), err, in)
		}
		if got, err := c.inflate(nil, z[1:], MaxInflated); err != nil || !bytes.Equal(got, in) {
			t.Fatalf("inflate = %q, %v", got, err)
		}
	})
}

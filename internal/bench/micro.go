package bench

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// Case is one micro-benchmark: the body runs under [testing.Benchmark] in
// gosh bench, and under go test -bench in the packages' own benchmarks,
// which use the same inputs from this package.
type Case struct {
	Name string
	F    func(b *testing.B)
}

// CryptoSizes are the plaintext sizes of the crypto benchmarks: a
// keystroke-sized message and the two largest datagram payloads.
var CryptoSizes = []int{64, 1280, 1400}

// benchKey is a fixed AES-128 key, so runs are comparable.
var benchKey = []byte("gosh bench key!!")

// cryptoCases seal and open with gosh's AES-128-OCB and, beside it, Go's
// AES-128-GCM.
func cryptoCases() []Case {
	var cs []Case
	aeads := []struct {
		name string
		make func() (cipher.AEAD, error)
	}{
		{"OCB", func() (cipher.AEAD, error) { return sspcrypto.New(benchKey) }},
		{"GCM", func() (cipher.AEAD, error) {
			blk, err := aes.NewCipher(benchKey)
			if err != nil {
				return nil, err
			}
			return cipher.NewGCM(blk)
		}},
	}
	for _, a := range aeads {
		for _, n := range CryptoSizes {
			cs = append(cs,
				Case{fmt.Sprintf("crypto/%s/Seal-%d", a.name, n), func(b *testing.B) { sealBench(b, a.make, n) }},
				Case{fmt.Sprintf("crypto/%s/Open-%d", a.name, n), func(b *testing.B) { openBench(b, a.make, n) }})
		}
	}
	return cs
}

func sealBench(b *testing.B, mk func() (cipher.AEAD, error), n int) {
	aead, err := mk()
	if err != nil {
		b.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	pt := make([]byte, n)
	dst := make([]byte, 0, n+aead.Overhead())
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		dst = aead.Seal(dst[:0], nonce, pt, nil)
	}
}

func openBench(b *testing.B, mk func() (cipher.AEAD, error), n int) {
	aead, err := mk()
	if err != nil {
		b.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	ct := aead.Seal(nil, nonce, make([]byte, n), nil)
	dst := make([]byte, 0, n+aead.Overhead())
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := aead.Open(dst[:0], nonce, ct, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// Input is one emulator workload.
type Input struct {
	Name string
	Data []byte
}

// EmulatorInputs are the four emulator workloads, about 1 MiB each: plain
// ASCII that scrolls, SGR-heavy coloured output, CJK/wide text, and
// full-screen cursor-addressed redraws.
func EmulatorInputs() []Input {
	const size = 1 << 20
	var ascii, sgr, cjk, redraw strings.Builder
	for i := 0; ascii.Len() < size; i++ {
		fmt.Fprintf(&ascii, "%06d The quick brown fox jumps over the lazy dog; pack my box with five dozen.\r\n", i)
	}
	for i := 0; sgr.Len() < size; i++ {
		fmt.Fprintf(&sgr, "\x1b[0m\x1b[01;34mdir%d\x1b[0m  \x1b[38;5;%dmfile.go\x1b[0m  \x1b[1;31;42mERR\x1b[0m \x1b[38;2;%d;100;200mrgb\x1b[0m \x1b[3;4mnote\x1b[0m\r\n", i, i%256, i%256)
	}
	for cjk.Len() < size {
		cjk.WriteString("日本語のテキストと中文文本、한국어 텍스트를 섞은 줄입니다。終わり\r\n")
	}
	for f := 0; redraw.Len() < size; f++ {
		for y := 1; y <= 24; y++ {
			fmt.Fprintf(&redraw, "\x1b[%d;1H\x1b[%dm%-80s", y, 30+(y+f)%8, fmt.Sprintf("row %d frame %d: %s", y, f, strings.Repeat("=", 40)))
		}
	}
	return []Input{
		{"ascii", []byte(ascii.String())},
		{"sgr", []byte(sgr.String())},
		{"cjk", []byte(cjk.String())},
		{"redraw", []byte(redraw.String())},
	}
}

// Screens returns a w×h screen full of coloured text, the same with one
// cell changed, and a completely different screen: the differ's inputs.
func Screens(w, h int) (base, one, full *vt.Framebuffer) {
	fill := func(seed int) *vt.Framebuffer {
		e := vt.NewEmulator(w, h)
		var sb strings.Builder
		for y := range h {
			fmt.Fprintf(&sb, "\x1b[%d;1H\x1b[%dm", y+1, 31+(y+seed)%7)
			for x := range w {
				sb.WriteByte(byte('a' + (x+y+seed)%26))
			}
		}
		sb.WriteString("\x1b[H\x1b[0m")
		e.Feed([]byte(sb.String()), nil)
		return e.Framebuffer()
	}
	base = fill(0)
	one = base.Clone()
	one.SetCell(w/2, h/2, vt.NewCell('#', vt.Rendition{}))
	full = fill(1)
	return base, one, full
}

func vtCases() []Case {
	var cs []Case
	for _, in := range EmulatorInputs() {
		cs = append(cs, Case{"vt/Emulator/" + in.Name, func(b *testing.B) {
			e := vt.NewEmulator(80, 24)
			b.SetBytes(int64(len(in.Data)))
			b.ReportAllocs()
			for b.Loop() {
				e.Feed(in.Data, nil)
			}
		}})
	}
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		base, one, full := Screens(sz[0], sz[1])
		for _, c := range []struct {
			name string
			next *vt.Framebuffer
		}{{"one-cell", one}, {"full", full}} {
			cs = append(cs, Case{fmt.Sprintf("vt/Display/%dx%d/%s", sz[0], sz[1], c.name), func(b *testing.B) {
				d := vt.NewDisplay(vt.WireDisplayCaps(0))
				var out []byte
				b.ReportAllocs()
				for b.Loop() {
					out = d.NewFrame(out[:0], true, base, c.next)
				}
			}})
		}
	}
	return cs
}

// sspCases measure one screen update through the whole transport: the
// server's Tick (diff, encode, compress, fragment, seal) and the client's
// Receive (open, reassemble, inflate, decode, apply).
func sspCases() []Case {
	return []Case{
		{"ssp/EchoUpdate/server-Tick", func(b *testing.B) { echoBench(b, false) }},
		{"ssp/EchoUpdate/client-Receive", func(b *testing.B) { echoBench(b, true) }},
	}
}

// echoBench types one character at a shell prompt per iteration: the
// server's screen gains the echo and the echo ack moves.
func echoBench(b *testing.B, measureReceive bool) {
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Unix(1000, 0)
	srvAddr := netip.MustParseAddrPort("127.0.0.1:60001")
	cliAddr := netip.MustParseAddrPort("127.0.0.1:50000")
	cli, err := ssp.NewTransport(ssp.Config{Key: key, Remote: srvAddr}, statesync.NewUserStream(), statesync.NewComplete(80, 24), now)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := ssp.NewTransport(ssp.Config{Key: key, Server: true}, statesync.NewComplete(80, 24), statesync.NewUserStream(), now)
	if err != nil {
		b.Fatal(err)
	}
	// Connect: the client's first datagrams tell the server where it is.
	exchange := func() {
		out, _ := cli.Tick(now)
		for _, d := range out {
			_ = srv.Receive(now, d, cliAddr)
		}
		out, _ = srv.Tick(now)
		for _, d := range out {
			_ = cli.Receive(now, d, srvAddr)
		}
	}
	exchange()
	srv.Current().Feed([]byte("user@host:~$ "), nil)
	b.ReportAllocs()
	var tickTime, recvTime time.Duration
	for i := 0; b.Loop(); i++ {
		now = now.Add(300 * time.Millisecond) // past every pacing deadline
		srv.Current().Feed([]byte{byte('a' + i%26)}, nil)
		srv.Current().SetEchoAck(uint64(i + 1))
		t0 := time.Now()
		out, err := srv.Tick(now)
		t1 := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range out {
			_ = cli.Receive(now, d, srvAddr)
		}
		t2 := time.Now()
		tickTime += t1.Sub(t0)
		recvTime += t2.Sub(t1)
		// Keep the acks flowing so the server diffs from a recent state.
		if out, _ := cli.Tick(now); len(out) > 0 {
			for _, d := range out {
				_ = srv.Receive(now, d, cliAddr)
			}
		}
	}
	n := float64(b.N)
	if measureReceive {
		b.ReportMetric(float64(recvTime.Nanoseconds())/n, "recv-ns/op")
	} else {
		b.ReportMetric(float64(tickTime.Nanoseconds())/n, "tick-ns/op")
	}
}

// MicroCases lists every micro-benchmark gosh bench runs.
func MicroCases() []Case {
	var cs []Case
	cs = append(cs, cryptoCases()...)
	cs = append(cs, sspCases()...)
	cs = append(cs, vtCases()...)
	return cs
}

package ssp_test

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// BenchmarkReceiveHostile measures the CPU a server spends on one hostile
// datagram of each kind, the figure behind "floods at line rate": at
// 1 Gbit/s of 1400-byte datagrams (about 90 000 a second), a kind that
// costs 11 µs or less is absorbed by one core.
func BenchmarkReceiveHostile(b *testing.B) {
	key, _ := sspcrypto.NewKey(fixedReader(21))
	from := netip.MustParseAddrPort("192.0.2.10:50000")
	newServer := func() *ssp.Transport[*ssptest.Log, *ssptest.Log] {
		tr, err := ssp.NewTransport(ssp.Config{Key: key, Server: true}, ssptest.NewLog(), ssptest.NewLog(), simEpoch)
		if err != nil {
			b.Fatal(err)
		}
		return tr
	}
	other, _ := sspcrypto.NewKey(fixedReader(22))
	r := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 1400)
	for i := range garbage {
		garbage[i] = byte(r.Uint32())
	}
	wrongKey := newForger(b, other, sspcrypto.ToServer, 0).plaintext(make([]byte, 1300))
	valid := newForger(b, key, sspcrypto.ToServer, 0)
	replayed := valid.instruction(ssp.Instruction{ProtocolVersion: ssp.ProtocolVersion, OldNum: 0, NewNum: 1})[0]
	bomb := valid.compressed(zlibBytes(make([]byte, 64<<20)))
	unknown := valid.instruction(ssp.Instruction{ProtocolVersion: ssp.ProtocolVersion, OldNum: 1 << 40, NewNum: 1<<40 + 1, Diff: []byte("x")})[0]
	cases := []struct {
		name string
		ds   [][]byte // cycled through
	}{
		{"garbage", [][]byte{garbage}},
		{"wrong-key", [][]byte{wrongKey}},
		{"replayed", [][]byte{replayed}},
		{"unknown-base", [][]byte{unknown}},
		{"zlib-bomb-fragment", bomb}, // one fragment of a 64 MiB bomb; the last inflates to the cap
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			tr := newServer()
			b.SetBytes(int64(len(c.ds[0])))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_ = tr.Receive(simEpoch, c.ds[i%len(c.ds)], from)
				i++
			}
		})
	}
}

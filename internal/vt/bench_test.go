package vt_test

import (
	"fmt"
	"testing"

	"github.com/gosh-term/gosh/internal/bench"
	"github.com/gosh-term/gosh/internal/vt"
)

// The workloads come from internal/bench, so "gosh bench" and go test
// -bench measure the same inputs.

func BenchmarkEmulator(b *testing.B) {
	for _, in := range bench.EmulatorInputs() {
		b.Run(in.Name, func(b *testing.B) {
			e := vt.NewEmulator(80, 24)
			b.SetBytes(int64(len(in.Data)))
			b.ReportAllocs()
			for b.Loop() {
				e.Feed(in.Data, nil)
			}
		})
	}
}

func BenchmarkDisplay(b *testing.B) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		base, one, full := bench.Screens(sz[0], sz[1])
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

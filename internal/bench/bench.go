package bench

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// Options select what [Run] measures.
type Options struct {
	// Only restricts the run to benchmarks whose name contains it; the
	// simulations are named "ssp/sim".
	Only string
	// Count repeats each micro-benchmark and reports the median.
	Count int
	// SimDuration is the simulated time of each link simulation; zero
	// skips the simulations.
	SimDuration time.Duration
	// Losses are the loss rates simulated; nil means 0, 10, 30, 50 and 70%.
	Losses []float64
	// Lambdas are the reference-state policies simulated; nil means 0
	// (Mosh) and 0.5.
	Lambdas []float64
}

// Run measures and writes a report to w.
func Run(w io.Writer, o Options) error {
	if o.Count <= 0 {
		o.Count = 1
	}
	fmt.Fprintf(w, "%-36s %12s %10s %10s %s\n", "micro-benchmark", "ns/op", "MB/s", "allocs/op", "")
	for _, c := range MicroCases() {
		if !strings.Contains(c.Name, o.Only) {
			continue
		}
		r := median(c, o.Count)
		mbs := ""
		if r.Bytes > 0 && r.T > 0 {
			mbs = fmt.Sprintf("%10.1f", float64(r.Bytes)*float64(r.N)/r.T.Seconds()/1e6)
		}
		extra := ""
		for k, v := range r.Extra {
			extra += fmt.Sprintf(" %.0f %s", v, k)
		}
		fmt.Fprintf(w, "%-36s %12d %10s %10d%s\n", c.Name, r.NsPerOp(), mbs, r.AllocsPerOp(), extra)
	}
	if o.SimDuration <= 0 || !strings.Contains("ssp/sim", o.Only) {
		return nil
	}
	losses, lambdas := o.Losses, o.Lambdas
	if losses == nil {
		losses = []float64{0, 0.1, 0.3, 0.5, 0.7}
	}
	if lambdas == nil {
		lambdas = []float64{0, 0.5}
	}
	fmt.Fprintf(w, "\nssp/sim: screen changing every 20 ms, 50 ms each way, %v simulated per row\n", o.SimDuration)
	fmt.Fprintf(w, "%6s %6s %12s %12s %12s %10s %10s\n", "loss", "λ", "mean age", "p99 age", "max age", "datagrams", "frames seen")
	for _, loss := range losses {
		for _, l := range lambdas {
			r, err := Simulate(SimConfig{Loss: loss, Delay: 50 * time.Millisecond, Duration: o.SimDuration,
				FrameInterval: 20 * time.Millisecond, Lambda: l, Seed: 1})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%5.0f%% %6.2f %12v %12v %12v %10d %5d/%d\n", loss*100, l,
				r.MeanAge.Round(time.Millisecond), r.P99Age.Round(time.Millisecond), r.MaxAge.Round(time.Millisecond),
				r.Datagrams, r.Seen, r.Frames)
		}
	}
	return nil
}

// median runs c count times and returns the run with the median ns/op.
func median(c Case, count int) testing.BenchmarkResult {
	rs := make([]testing.BenchmarkResult, count)
	for i := range rs {
		rs[i] = testing.Benchmark(c.F)
	}
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].NsPerOp() < rs[j-1].NsPerOp(); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	return rs[len(rs)/2]
}

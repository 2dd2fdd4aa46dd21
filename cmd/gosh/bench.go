package main

import (
	"io"
	"time"

	"github.com/gosh-term/gosh/internal/bench"
	"github.com/spf13/cobra"
)

// BenchOptions is what "gosh bench" was asked to measure.
type BenchOptions struct {
	// Only restricts the run to benchmarks whose name contains it.
	Only string
	// Count repeats each micro-benchmark; the median is reported.
	Count int
	// Sim is the simulated time of each link simulation (0 skips them).
	Sim time.Duration

	Stdout, Stderr io.Writer
}

func newBenchCmd(runF func(*BenchOptions) error) *cobra.Command {
	o := &BenchOptions{}
	cmd := &cobra.Command{
		Use:   "bench [options]",
		Short: "Measure gosh's hot paths and protocol behaviour on this machine",
		Long: `Measure gosh on this machine: the crypto, framing, emulator and differ hot
paths (the same functions "go test -bench" measures), and SSP over emulated
lossy, delayed links.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Stdout, o.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runF(o)
		},
	}
	cmd.Flags().StringVar(&o.Only, "only", "", "run only the benchmarks whose name contains this text (the link simulations are ssp/sim)")
	cmd.Flags().IntVar(&o.Count, "count", 5, "run each micro-benchmark this many times and report the median")
	cmd.Flags().DurationVar(&o.Sim, "sim", 60*time.Second, "simulated time of each link simulation (0 skips them)")
	return cmd
}

func runBench(o *BenchOptions) error {
	if o.Count < 1 {
		return usagef("gosh bench: --count must be at least 1")
	}
	return bench.Run(o.Stdout, bench.Options{Only: o.Only, Count: o.Count, SimDuration: o.Sim})
}

package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// BenchOptions is what "gosh bench" was asked to measure.
type BenchOptions struct {
	// Only restricts the run to benchmarks whose name contains it.
	Only string

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
	cmd.Flags().StringVar(&o.Only, "only", "", "run only the benchmarks whose name contains this text")
	return cmd
}

func runBench(o *BenchOptions) error {
	return fmt.Errorf("bench: %w", errNotLanded)
}

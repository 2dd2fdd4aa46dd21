package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/bench"
	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/spf13/cobra"
)

// BenchOptions is what "gosh bench micro" and "gosh bench sim" (and plain
// "gosh bench", which runs both) were asked to measure.
type BenchOptions struct {
	// Only restricts the run to benchmarks whose name contains it.
	Only string
	// Count repeats each micro-benchmark; the median is reported.
	Count int
	// Sim is the simulated time of each link simulation (0 skips them).
	Sim time.Duration

	Stdout, Stderr io.Writer
}

// TypingOptions is what "gosh bench typing" was asked to measure.
type TypingOptions struct {
	Link      string
	Delay     time.Duration
	Jitter    time.Duration
	Loss      float64
	Rate      string
	Queue     int
	Trace     string
	With      []string
	Workload  string
	Seed      uint64
	Runs      int
	Quick     bool
	Keys      int
	SVG, JSON string
	Pacing    ssp.Pacing

	ctx            context.Context
	custom         bool // a link flag was given
	Stdout, Stderr io.Writer
}

// PaperOptions is what "gosh bench paper" was asked to do.
type PaperOptions struct {
	Quick  bool
	Seed   uint64
	Runs   int
	Out    string
	Pacing ssp.Pacing
	Only   []string

	ctx            context.Context
	Stdout, Stderr io.Writer
}

// ForwardOptions is everything "gosh bench forward" was asked to do.
type ForwardOptions struct {
	Link  string
	Bytes int
	Seed  uint64
	// Typing times a typist's echo during the transfer (--typing).
	Typing bool

	bytesSet       bool // --bytes was given
	ctx            context.Context
	Stdout, Stderr io.Writer
}

func newBenchForwardCmd(runF func(*ForwardOptions) error) *cobra.Command {
	o := &ForwardOptions{}
	cmd := &cobra.Command{
		Use:   "forward [options]",
		Short: "Port forwarding throughput and round trip, ssh -L beside gosh -L, over an emulated link",
		Long: `Measure port forwarding over an emulated link, SSH (a direct-tcpip channel over
TCP in gVisor's userspace stack) beside gosh (a channel in the session's
stream), both ends in this process: the throughput of --bytes sent through a
forwarded connection to an echo server and back, and the round trip of a small
request on a new connection (for gosh, its agent channel, as ssh-add opens it).

With --typing, a typist types into the same session (prediction off) while the
bytes go (10 MiB unless --bytes says otherwise): the table gives each
transport's keystroke echo times during the transfer beside its throughput.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Stdout, o.Stderr, o.ctx = cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.Context()
			o.bytesSet = cmd.Flags().Changed("bytes")
			return runF(o)
		},
	}
	cmd.Flags().StringVar(&o.Link, "link", "lan", "the link profile ("+strings.Join(linkem.ProfileNames(), ", ")+")")
	cmd.Flags().IntVar(&o.Bytes, "bytes", 1<<20, "bytes sent through the forwarded connection and back")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 1, "seed of the link's randomness")
	cmd.Flags().BoolVar(&o.Typing, "typing", false, "time a typist's keystroke echo during the transfer")
	return cmd
}

func runForward(o *ForwardOptions) error {
	link, err := linkem.LookupProfile(o.Link)
	if err != nil {
		return usagef("gosh bench forward: %v", err)
	}
	if o.Bytes < 1 || o.Bytes > 1<<30 {
		return usagef("gosh bench forward: --bytes must be 1 to 1073741824")
	}
	run := bench.Forward
	if o.Typing {
		run = bench.ForwardTyping
		if !o.bytesSet {
			o.Bytes = 10 << 20
		}
	}
	res, err := run(o.ctx, link, o.Bytes, o.Seed, o.Stderr)
	write := bench.WriteForward
	if o.Typing {
		write = bench.WriteForwardTyping
	}
	write(o.Stdout, link.Name+" ("+link.Description+")", res)
	return err
}

func newBenchCmd(runF func(*BenchOptions) error) *cobra.Command {
	o := &BenchOptions{}
	cmd := &cobra.Command{
		Use:   "bench [command] [options]",
		Short: "Measure gosh, SSH and Mosh on this machine",
		Long: `Measure gosh on this machine.

  gosh bench typing   keystroke response time of ssh, gosh and mosh over an emulated link
  gosh bench paper    the Mosh paper's experiments, measured beside its published numbers
  gosh bench forward  port forwarding, ssh -L beside gosh -L, over an emulated link
  gosh bench micro    the hot paths (crypto, framing, emulator, differ)
  gosh bench sim      SSP over emulated lossy links in simulated time

Plain "gosh bench" runs micro and sim.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Stdout, o.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runF(o)
		},
	}
	addMicroFlags(cmd, o)
	cmd.AddCommand(newBenchMicroCmd(runF), newBenchSimCmd(runF),
		newBenchTypingCmd(runTyping), newBenchPaperCmd(runPaper), newBenchForwardCmd(runForward), newBenchTapCmd())
	return cmd
}

// newBenchTapCmd is the hidden command a typing run starts on the server
// side, around the shell: it records what the shell draws (bench.TapMain).
func newBenchTapCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "tap LOG COLS ROWS -- COMMAND...",
		Short:              "Run a command in a pseudo-terminal of its own, logging its output (for gosh bench typing)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := bench.TapMain(args); code != 0 {
				return &exitStatusError{err: errors.New("gosh bench tap failed"), code: code}
			}
			return nil
		},
	}
}

// selfBinary is this gosh binary, which the gosh transports of the typing
// benchmarks run as a user runs it; "" (the loops in-process) if it
// cannot be found.
func selfBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

func addMicroFlags(cmd *cobra.Command, o *BenchOptions) {
	cmd.Flags().StringVar(&o.Only, "only", "", "run only the benchmarks whose name contains this text (the link simulations are ssp/sim)")
	cmd.Flags().IntVar(&o.Count, "count", 5, "run each micro-benchmark this many times and report the median")
	cmd.Flags().DurationVar(&o.Sim, "sim", 60*time.Second, "simulated time of each link simulation (0 skips them)")
}

func newBenchMicroCmd(runF func(*BenchOptions) error) *cobra.Command {
	o := &BenchOptions{}
	cmd := &cobra.Command{
		Use:   "micro [options]",
		Short: "Time the hot paths: crypto, framing, emulator, differ",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Stdout, o.Stderr, o.Sim = cmd.OutOrStdout(), cmd.ErrOrStderr(), 0
			return runF(o)
		},
	}
	cmd.Flags().StringVar(&o.Only, "only", "", "run only the benchmarks whose name contains this text")
	cmd.Flags().IntVar(&o.Count, "count", 5, "run each micro-benchmark this many times and report the median")
	return cmd
}

func newBenchSimCmd(runF func(*BenchOptions) error) *cobra.Command {
	o := &BenchOptions{}
	cmd := &cobra.Command{
		Use:   "sim [options]",
		Short: "Simulate SSP over lossy links and measure the screen's Age of Information",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Stdout, o.Stderr, o.Only, o.Count = cmd.OutOrStdout(), cmd.ErrOrStderr(), "ssp/sim", 1
			return runF(o)
		},
	}
	cmd.Flags().DurationVar(&o.Sim, "sim", 60*time.Second, "simulated time of each link simulation")
	return cmd
}

func newBenchTypingCmd(runF func(*TypingOptions) error) *cobra.Command {
	o := &TypingOptions{}
	cmd := &cobra.Command{
		Use:   "typing [options]",
		Short: "Type into a real shell through ssh, gosh and mosh over an emulated link",
		Long: `Replay a typist's keystrokes (recorded inter-key times) into a real shell in a
pseudo-terminal, through each transport over the same emulated link, and report
per transport the keystroke response times (median, mean, p95, p99), the
fraction shown within 5 ms, the fraction ever shown wrongly, and the bytes on
the wire per keystroke.

Transports: ssh (golang.org/x/crypto/ssh over TCP in gVisor's userspace stack,
whose packets cross the link), gosh (this binary as a user runs it: gosh server
new, and gosh connect --direct in a pseudo-terminal), gosh-nopredict (the same
with --predict=never), mosh and mosh-nopredict (stock mosh-server and
mosh-client, when installed), and openssh (the system's ssh and sshd).

Every transport meets the same loss and jitter draws for a seed; --runs N types
the workload N times (seeds S, S+1, ...) and reports each figure's median and
range. "wrong" is the fraction of keystrokes during which the screen showed a
cell or a cursor that neither the server's program drew nor the keys in flight
make: n/a for a transport that predicts nothing.

Links: --link PROFILE (` + strings.Join(linkem.ProfileNames(), ", ") + `), or
--delay/--jitter/--loss/--rate/--queue, or --trace FILE (a Mahimahi packet
delivery trace, or one of the built-in ones: ` + strings.Join(linkem.TraceNames(), ", ") + `).

Workloads: ` + strings.Join(workloadNames(), ", ") + `, or a JSON file
({"keys":[{"key":"l","gap_ms":180},...]}).

Progress goes to stderr, results to stdout.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Stdout, o.Stderr, o.ctx = cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.Context()
			for _, f := range []string{"delay", "jitter", "loss", "rate", "queue"} {
				o.custom = o.custom || cmd.Flags().Changed(f)
			}
			return runF(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Link, "link", "evdo", "link profile")
	f.DurationVar(&o.Delay, "delay", 0, "one-way delay (instead of --link)")
	f.DurationVar(&o.Jitter, "jitter", 0, "extra random one-way delay, without reordering")
	f.Float64Var(&o.Loss, "loss", 0, "independent loss probability each way, 0 to 1")
	f.StringVar(&o.Rate, "rate", "", "bottleneck rate each way (e.g. 1mbit, 25Mbps)")
	f.IntVar(&o.Queue, "queue", 0, "bottleneck queue in packets (drop-tail)")
	f.StringVar(&o.Trace, "trace", "", "Mahimahi delivery trace, a file or a built-in name, both ways")
	f.StringSliceVar(&o.With, "with", nil, "transports to compare, of ssh, gosh, gosh-nopredict, mosh, mosh-nopredict, openssh (default ssh,gosh,gosh-nopredict and mosh when installed)")
	f.StringVar(&o.Workload, "workload", workload.Default(), "workload name or JSON file")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the link's randomness (of the first run)")
	f.IntVar(&o.Runs, "runs", 1, "type the workload this many times per transport, one seed after another, and report the median and range")
	f.BoolVar(&o.Quick, "quick", false, fmt.Sprintf("type only the first %d keystrokes", bench.QuickKeys))
	f.IntVar(&o.Keys, "keys", 0, "type only the first N keystrokes (0: all)")
	f.StringVar(&o.SVG, "svg", "", "write the response-time CDF to this SVG file")
	f.StringVar(&o.JSON, "json", "", "write the results to this JSON file")
	f.Var(&o.Pacing, "pacing", "the gosh transports' pacing: gosh (at once on an idle path, by the path's queue otherwise) or mosh (Mosh's exact timing)")
	return cmd
}

func newBenchPaperCmd(runF func(*PaperOptions) error) *cobra.Command {
	o := &PaperOptions{}
	cmd := &cobra.Command{
		Use:   "paper [options]",
		Short: "Run the Mosh paper's experiments and print the published numbers beside",
		Long: `Run the evaluation of the Mosh paper (Winstein & Balakrishnan, USENIX ATC 2012)
and of its Stanford CS244 reproduction, in this process, over emulated links:
keystroke response over EV-DO, over 50 % round-trip loss (also without
prediction), over CS244's 3G and Wi-Fi links, interrupting a flood with Ctrl-C,
and roaming; SSH, gosh and stock Mosh (when installed) in every one. Each typing
experiment types the shell workload whole and the traps workload beside it,
--runs times (5 by default, 1 with --quick), and prints the median and range of
each figure, with the paper's published figures labelled as such. Each CDF is
written as an SVG file in --out. A full run takes hours; --quick a few minutes;
--only runs some of the experiments, each with the seeds of a whole run.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Stdout, o.Stderr, o.ctx = cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.Context()
			return runF(o)
		},
	}
	cmd.Flags().BoolVar(&o.Quick, "quick", false, "a short run: the first keystrokes of each workload, EV-DO and 50 % loss, one run")
	cmd.Flags().Uint64Var(&o.Seed, "seed", 1, "seed of the links' randomness (of the first run)")
	cmd.Flags().IntVar(&o.Runs, "runs", 0, "runs of each experiment, one seed after another (default 5, 1 with --quick)")
	cmd.Flags().StringVar(&o.Out, "out", ".", "directory for the SVG figures")
	cmd.Flags().Var(&o.Pacing, "pacing", "the gosh transports' pacing: gosh (at once on an idle path, by the path's queue otherwise) or mosh (Mosh's exact timing)")
	cmd.Flags().StringSliceVar(&o.Only, "only", nil, "run only these experiments, of "+strings.Join(bench.PaperExperiments(), ", ")+
		" (each with the seeds it has in a whole run)")
	return cmd
}

// workloadNames lists the built-in workloads for the help text. It parses
// none of them: the command tree is built for every gosh command, the
// session daemon's too.
func workloadNames() []string { return workload.BuiltinNames() }

func runBench(o *BenchOptions) error {
	if o.Count < 1 {
		return usagef("gosh bench: --count must be at least 1")
	}
	return bench.Run(o.Stdout, bench.Options{Only: o.Only, Count: o.Count, SimDuration: o.Sim})
}

// typingLink turns the link flags into a profile.
func typingLink(o *TypingOptions) (linkem.Profile, error) {
	switch {
	case o.Trace != "" && o.custom:
		return linkem.Profile{}, usagef("gosh bench typing: --trace and --delay/--loss/--rate/--queue do not go together")
	case o.Trace != "":
		return traceProfile(o.Trace)
	case o.custom:
		var rate float64
		if o.Rate != "" {
			r, err := linkem.ParseRate(o.Rate)
			if err != nil {
				return linkem.Profile{}, usagef("gosh bench typing: --rate: %v", err)
			}
			rate = r
		}
		if o.Loss < 0 || o.Loss >= 1 || o.Delay < 0 || o.Jitter < 0 || o.Queue < 0 {
			return linkem.Profile{}, usagef("gosh bench typing: --loss must be in [0, 1) and --delay, --jitter, --queue not negative")
		}
		p := linkem.Custom(o.Delay, o.Jitter, o.Loss, rate, o.Queue)
		if err := p.Validate(); err != nil {
			return linkem.Profile{}, usagef("gosh bench typing: %v", err)
		}
		return p, nil
	}
	p, err := linkem.LookupProfile(o.Link)
	if err != nil {
		return linkem.Profile{}, usagef("gosh bench typing: %v", err)
	}
	return p, nil
}

// typingWorkload finds the named workload or reads the file.
func typingWorkload(name string) (*workload.Workload, error) {
	if w, err := workload.Lookup(name); err == nil {
		return w, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, usagef("gosh bench typing: --workload %q is neither a built-in workload (%s) nor a readable file", name, strings.Join(workloadNames(), ", "))
	}
	defer f.Close()
	w, err := workload.Parse(f)
	if err != nil {
		return nil, usagef("gosh bench typing: %s: %v", name, err)
	}
	return w, nil
}

func runTyping(o *TypingOptions) error {
	link, err := typingLink(o)
	if err != nil {
		return err
	}
	w, err := typingWorkload(o.Workload)
	if err != nil {
		return err
	}
	for _, t := range o.With {
		if !slices.Contains(bench.Transports(), t) {
			return usagef("gosh bench typing: unknown transport %q in --with: want some of %s", t, strings.Join(bench.Transports(), ","))
		}
	}
	var with []string
	if len(o.With) > 0 {
		with = o.With
	}
	if o.Runs < 1 || o.Runs > 1000 {
		return usagef("gosh bench typing: --runs must be 1 to 1000")
	}
	opts := bench.TypingOptions{Link: link, With: with, Workload: w, Seed: o.Seed, Runs: o.Runs, Pacing: o.Pacing,
		Gosh: selfBinary(), Progress: o.Stderr}
	switch {
	case o.Keys < 0:
		return usagef("gosh bench typing: --keys must not be negative")
	case o.Quick && o.Keys > 0:
		return usagef("gosh bench typing: --quick and --keys do not go together")
	case o.Quick:
		opts.MaxKeys = bench.QuickKeys
	default:
		opts.MaxKeys = o.Keys
	}
	return bench.RunTypingReport(o.ctx, opts, bench.ReportFiles{Stdout: o.Stdout, SVG: o.SVG, JSON: o.JSON})
}

func runPaper(o *PaperOptions) error {
	if o.Runs < 0 || o.Runs > 1000 {
		return usagef("gosh bench paper: --runs must be 1 to 1000")
	}
	for _, name := range o.Only {
		if !slices.Contains(bench.PaperExperiments(), name) {
			return usagef("gosh bench paper: --only %q is not an experiment: want some of %s", name, strings.Join(bench.PaperExperiments(), ", "))
		}
	}
	return bench.Paper(o.ctx, bench.PaperOptions{Quick: o.Quick, Seed: o.Seed, Runs: o.Runs, Out: o.Out, Pacing: o.Pacing,
		Only: o.Only, Gosh: selfBinary(), Stdout: o.Stdout, Progress: o.Stderr})
}

// traceProfile is a link that replays a Mahimahi delivery trace both ways:
// a built-in trace by name, or a file.
func traceProfile(name string) (linkem.Profile, error) {
	tr, err := linkem.LookupTrace(name)
	if err != nil {
		f, ferr := os.Open(name)
		if ferr != nil {
			return linkem.Profile{}, usagef("gosh bench typing: --trace %q is neither a built-in trace (%s) nor a readable file", name, strings.Join(linkem.TraceNames(), ", "))
		}
		defer f.Close()
		if tr, err = linkem.ParseTrace(f); err != nil {
			return linkem.Profile{}, usagef("gosh bench typing: %s: %v", name, err)
		}
	}
	c := linkem.Config{Trace: tr}
	return linkem.Profile{Name: "trace", Description: fmt.Sprintf("trace %s (%s average) each way", name, linkem.FormatRate(tr.Rate())), Up: c, Down: c}, nil
}

package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/bench/report"
	"github.com/gosh-term/gosh/internal/buildinfo"
)

// ReportFiles say where a typing report goes.
type ReportFiles struct {
	// Stdout receives the text report.
	Stdout io.Writer
	// SVG and JSON, if not empty, are files to write the CDF and the
	// figures to.
	SVG, JSON string
}

// Machine describes this machine and build for a report.
func Machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%s, %d CPUs, %s, gosh %s, host %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		runtime.Version(), buildinfo.Version, host)
}

// RunTypingReport runs [Typing] and reports: a text table on Stdout, and
// the CDF and figures in the files asked for.
func RunTypingReport(ctx context.Context, o TypingOptions, files ReportFiles) error {
	results, err := Typing(ctx, o)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("%s over %s (%s), %s", o.Workload.Name, o.Link.Name, o.Link.Description, seedsText(o.Seed, max(o.Runs, 1)))
	fmt.Fprintf(files.Stdout, "machine: %s\n", Machine())
	if err := writeResults(files.Stdout, title, results); err != nil {
		return err
	}
	rows := rowsOf(results)
	if files.SVG != "" {
		if err := writeFile(files.SVG, func(w io.Writer) error { return report.WriteCDF(w, title, seriesOf(rows)) }); err != nil {
			return err
		}
	}
	if files.JSON != "" {
		if err := writeFile(files.JSON, func(w io.Writer) error { return report.WriteJSON(w, title, rows) }); err != nil {
			return err
		}
	}
	return nil
}

// seedsText says which seeds runs runs from seed used.
func seedsText(seed uint64, runs int) string {
	if runs == 1 {
		return fmt.Sprintf("seed %d", seed)
	}
	return fmt.Sprintf("%d runs, seeds %d-%d", runs, seed, seed+uint64(runs)-1)
}

// writeResults writes the table of the transports that ran, then what
// was skipped, how each ran, any final screen that differed from the
// reference, and the check of the wrong column on the transports that do
// not predict.
func writeResults(w io.Writer, title string, results []TypingResult) error {
	if err := report.WriteTable(w, title, rowsOf(results)); err != nil {
		return err
	}
	var control []string
	silent := false
	for _, r := range results {
		if len(r.Runs) > 0 && r.Runs[0].Stats.Silent > 0 && !silent {
			silent = true
			fmt.Fprintf(w, "  %d of the %d keystrokes change nothing on the screen (as a character typed at a password prompt): "+
				"they have no response time, and are left out of the times, ≤5ms and never, not out of wrong\n",
				r.Runs[0].Stats.Silent, r.Runs[0].Stats.Keys)
		}
		switch {
		case r.Skipped != "":
			fmt.Fprintf(w, "  %s: skipped: %s\n", r.Transport, r.Skipped)
		case r.Note != "":
			fmt.Fprintf(w, "  %s: %s\n", r.Transport, r.Note)
		}
		for _, f := range r.Failed {
			fmt.Fprintf(w, "  %s: failed, not in the figures: %s\n", r.Transport, strings.ReplaceAll(f, "\n", " "))
		}
		for _, run := range r.Runs {
			if run.Mismatch != "" {
				fmt.Fprintf(w, "  %s (seed %d): warning: %s\n", r.Transport, run.Seed, strings.ReplaceAll(run.Mismatch, "\n", "\n    "))
			}
		}
		if !r.Predicts && r.Skipped == "" && len(r.Runs) > 0 {
			control = append(control, fmt.Sprintf("%s %s", r.Transport, wrongRange(r.Runs)))
		}
	}
	if len(control) > 0 {
		fmt.Fprintf(w, "  the wrong check on transports that do not predict (n/a above; anything but 0 is the check's own error): %s\n",
			strings.Join(control, ", "))
	}
	return nil
}

// wrongRange is the wrong figure of runs: a percentage, or a range.
func wrongRange(runs []TypingRun) string {
	lo, hi := runs[0].Stats.Wrong, runs[0].Stats.Wrong
	for _, r := range runs[1:] {
		lo, hi = min(lo, r.Stats.Wrong), max(hi, r.Stats.Wrong)
	}
	if lo == hi {
		return fmt.Sprintf("%.1f%%", 100*lo)
	}
	return fmt.Sprintf("%.1f%%–%.1f%%", 100*lo, 100*hi)
}

// rowsOf turns the results of the transports that ran into report rows:
// each figure the median of the runs', with their range.
func rowsOf(results []TypingResult) []report.Row {
	var rows []report.Row
	for _, r := range results {
		if r.Skipped != "" || len(r.Runs) == 0 {
			continue
		}
		row := report.Row{Name: r.Transport, Keys: r.Runs[0].Stats.Keys, Runs: len(r.Runs)}
		var med, mean, p95, p99 []time.Duration
		var instant, wrong, bpk []float64
		var never []int
		shown := false
		for _, run := range r.Runs {
			s := run.Stats
			med, mean, p95, p99 = append(med, s.Median), append(mean, s.Mean), append(p95, s.P95), append(p99, s.P99)
			instant, wrong, bpk = append(instant, s.Instant), append(wrong, s.Wrong), append(bpk, run.BytesPerKey())
			never = append(never, s.NeverShown)
			shown = shown || !s.NoPrediction
			for i, d := range run.Result.Latency {
				if run.Result.Silent == nil || !run.Result.Silent[i] {
					row.Latencies = append(row.Latencies, d)
				}
			}
		}
		row.WrongNA = !r.Predicts || !shown
		row.Median, row.Mean, row.P95, row.P99 = middle(med), middle(mean), middle(p95), middle(p99)
		row.Instant, row.Wrong, row.BytesPerKey, row.NeverShown = middle(instant), middle(wrong), middle(bpk), middle(never)
		if len(r.Runs) > 1 {
			row.Spread = &report.Spread{Median: extent(med), Mean: extent(mean), P95: extent(p95), P99: extent(p99),
				Instant: extent(instant), Wrong: extent(wrong), NeverShown: extent(never), BytesPerKey: extent(bpk)}
		}
		rows = append(rows, row)
	}
	return rows
}

// number is what middle and extent work on.
type number interface {
	~int | ~int64 | ~float64
}

// middle is the median of xs: the middle value, or the mean of the two
// middle values.
func middle[T number](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// extent is the lowest and highest of xs.
func extent[T number](xs []T) [2]T { return [2]T{slices.Min(xs), slices.Max(xs)} }

func seriesOf(rows []report.Row) []report.Series {
	s := make([]report.Series, len(rows))
	for i, r := range rows {
		s[i] = r.Series()
	}
	return s
}

// writeFile writes a file through write.
func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

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
	title := fmt.Sprintf("%s over %s (%s), seed %d", o.Workload.Name, o.Link.Name, o.Link.Description, o.Seed)
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

// writeResults writes the table of the transports that ran, then what
// was skipped and any final screen that differed from the reference.
func writeResults(w io.Writer, title string, results []TypingResult) error {
	if err := report.WriteTable(w, title, rowsOf(results)); err != nil {
		return err
	}
	for _, r := range results {
		switch {
		case r.Skipped != "":
			fmt.Fprintf(w, "  %s: skipped: %s\n", r.Transport, r.Skipped)
		case r.Note != "":
			fmt.Fprintf(w, "  %s: %s\n", r.Transport, r.Note)
		}
		if r.Mismatch != "" {
			fmt.Fprintf(w, "  %s: warning: %s\n", r.Transport, strings.ReplaceAll(r.Mismatch, "\n", "\n    "))
		}
	}
	return nil
}

// rowsOf turns the results of the transports that ran into report rows.
func rowsOf(results []TypingResult) []report.Row {
	var rows []report.Row
	for _, r := range results {
		if r.Skipped != "" {
			continue
		}
		s := r.Stats
		rows = append(rows, report.Row{Name: r.Transport, Keys: s.Keys, Median: s.Median, Mean: s.Mean, P95: s.P95, P99: s.P99,
			Instant: s.Instant, Wrong: s.Wrong, NeverShown: s.NeverShown, BytesPerKey: r.BytesPerKey(), Latencies: r.Result.Latency})
	}
	return rows
}

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

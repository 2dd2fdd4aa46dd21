package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Row is one transport's figures in a typing report. Measured over
// several runs (seeds), each figure is the median of the runs' figures,
// and Spread holds their range.
type Row struct {
	// Name is the transport: "ssh", "gosh", "gosh --predict=never", "mosh".
	Name string
	// Keys is the number of keystrokes measured in each run.
	Keys int
	// Runs is the number of runs measured; 0 means 1.
	Runs int
	// Median, Mean, P95 and P99 summarise the response times, a keystroke
	// never shown counting as the measurement's cap.
	Median, Mean, P95, P99 time.Duration
	// Instant is the fraction of keystrokes shown within 5 ms.
	Instant float64
	// Wrong is the fraction of keystrokes during which the screen showed
	// a wrong prediction; WrongNA says there is no such figure: the
	// transport does not predict, or showed no prediction ("n/a").
	Wrong   float64
	WrongNA bool
	// NeverShown is the number of keystrokes the screen never showed.
	NeverShown int
	// BytesPerKey is the bytes on the wire (both directions) per
	// keystroke, as the caller counted them; 0 if not measured.
	BytesPerKey float64
	// Spread is the range of each figure over the runs; nil for one run.
	Spread *Spread
	// Latencies are the response times of the keystrokes in order,
	// negative for one never shown, every run's one after another: the
	// raw data of the CDF.
	Latencies []time.Duration
}

// Spread is the lowest and the highest value of each figure of a [Row]
// over its runs.
type Spread struct {
	Median, Mean, P95, P99 [2]time.Duration
	Instant, Wrong         [2]float64
	NeverShown             [2]int
	BytesPerKey            [2]float64
}

// Series returns r's latencies as a curve of [WriteCDF].
func (r Row) Series() Series { return Series{Name: r.Name, Latencies: r.Latencies} }

// runs is r's number of runs, at least 1.
func (r Row) runs() int { return max(r.Runs, 1) }

// columns are the table's headings; the first is left-aligned, the rest
// right-aligned.
var columns = []string{"transport", "keys", "median", "mean", "p95", "p99", "≤5ms", "wrong", "never", "bytes/key"}

// WriteTable writes title and an aligned text table of rows, one line per
// row, times in milliseconds. Rows measured over several runs show the
// median of the runs, and a second table shows each figure's range; then
// a line names the figures on which two transports' ranges overlap, where
// the runs do not tell them apart.
func WriteTable(w io.Writer, title string, rows []Row) error {
	cells := [][]string{columns}
	var spread [][]string
	runs := 1
	for _, r := range rows {
		wrong := percent(r.Wrong)
		if r.WrongNA {
			wrong = "n/a"
		}
		cells = append(cells, []string{r.Name, fmt.Sprint(r.Keys),
			millis(r.Median), millis(r.Mean), millis(r.P95), millis(r.P99),
			percent(r.Instant), wrong, fmt.Sprint(r.NeverShown), bytesPer(r.BytesPerKey)})
		runs = max(runs, r.runs())
		if s := r.Spread; s != nil {
			wrong := percent(s.Wrong[0]) + "–" + percent(s.Wrong[1])
			if r.WrongNA {
				wrong = "n/a"
			}
			spread = append(spread, []string{r.Name, fmt.Sprint(r.runs()),
				millisRange(s.Median), millisRange(s.Mean), millisRange(s.P95), millisRange(s.P99),
				percent(s.Instant[0]) + "–" + percent(s.Instant[1]), wrong,
				fmt.Sprintf("%d–%d", s.NeverShown[0], s.NeverShown[1]),
				bytesPer(s.BytesPerKey[0]) + "–" + bytesPer(s.BytesPerKey[1])})
		}
	}
	var b strings.Builder
	if title != "" {
		b.WriteString(title + "\n")
	}
	writeAligned(&b, cells)
	b.WriteString("times in ms; a keystroke never shown counts as the cap in median, mean, p95 and p99\n")
	switch {
	case len(spread) > 0:
		heads := append([]string{"range over runs", "runs"}, columns[2:]...)
		fmt.Fprintf(&b, "each figure above is the median of %d runs (one seed each); their range:\n", runs)
		writeAligned(&b, append([][]string{heads}, spread...))
		b.WriteString(overlaps(rows))
	case len(rows) > 1:
		b.WriteString("one run: its spread is not measured, so a difference between two rows may be noise (--runs N)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAligned writes rows of cells as an aligned table: the first column
// left-aligned, the others right-aligned.
func writeAligned(b *strings.Builder, cells [][]string) {
	widths := make([]int, len(cells[0]))
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range cells {
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			switch {
			case i == 0:
				b.WriteString(c + pad)
			default:
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
	}
}

// overlaps says, per figure, which pairs of rows have overlapping ranges:
// a difference between them is within the spread of the runs.
func overlaps(rows []Row) string {
	type figure struct {
		name  string
		rng   func(*Spread) [2]float64
		wrong bool
	}
	dur := func(d [2]time.Duration) [2]float64 { return [2]float64{float64(d[0]), float64(d[1])} }
	figures := []figure{
		{"median", func(s *Spread) [2]float64 { return dur(s.Median) }, false},
		{"mean", func(s *Spread) [2]float64 { return dur(s.Mean) }, false},
		{"p95", func(s *Spread) [2]float64 { return dur(s.P95) }, false},
		{"≤5ms", func(s *Spread) [2]float64 { return s.Instant }, false},
		{"wrong", func(s *Spread) [2]float64 { return s.Wrong }, true},
	}
	var parts []string
	for _, f := range figures {
		var pairs []string
		for i, a := range rows {
			for _, b := range rows[i+1:] {
				if a.Spread == nil || b.Spread == nil || f.wrong && (a.WrongNA || b.WrongNA) {
					continue
				}
				ra, rb := f.rng(a.Spread), f.rng(b.Spread)
				if ra[0] <= rb[1] && rb[0] <= ra[1] {
					pairs = append(pairs, a.Name+" ≈ "+b.Name)
				}
			}
		}
		if len(pairs) > 0 {
			parts = append(parts, f.name+": "+strings.Join(pairs, ", "))
		}
	}
	if len(parts) == 0 {
		return "no two rows' ranges overlap on median, mean, p95, ≤5ms or wrong: every difference is beyond the spread of the runs\n"
	}
	return "within the spread of the runs (ranges overlap; not a measured difference): " + strings.Join(parts, "; ") + "\n"
}

// millis formats d in milliseconds with one decimal.
func millis(d time.Duration) string {
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
}

// millisRange formats a range of durations in milliseconds.
func millisRange(r [2]time.Duration) string { return millis(r[0]) + "–" + millis(r[1]) }

// percent formats a fraction as a percentage with one decimal.
func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// bytesPer formats bytes per keystroke, "-" if not measured.
func bytesPer(f float64) string {
	if f <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", f)
}

package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Row is one transport's figures in a typing report.
type Row struct {
	// Name is the transport: "ssh", "gosh", "gosh --predict=never", "mosh".
	Name string
	// Keys is the number of keystrokes measured.
	Keys int
	// Median, Mean, P95 and P99 summarise the response times, a keystroke
	// never shown counting as the measurement's cap.
	Median, Mean, P95, P99 time.Duration
	// Instant is the fraction of keystrokes shown within 5 ms.
	Instant float64
	// Wrong is the fraction of keystrokes during which the screen showed
	// a wrong prediction.
	Wrong float64
	// NeverShown is the number of keystrokes the screen never showed.
	NeverShown int
	// BytesPerKey is the bytes on the wire (both directions) per
	// keystroke, as the caller counted them; 0 if not measured.
	BytesPerKey float64
	// Latencies are the response times of the keystrokes in order,
	// negative for one never shown: the raw data of the CDF.
	Latencies []time.Duration
}

// Series returns r's latencies as a curve of [WriteCDF].
func (r Row) Series() Series { return Series{Name: r.Name, Latencies: r.Latencies} }

// columns are the table's headings; the first is left-aligned, the rest
// right-aligned.
var columns = []string{"transport", "keys", "median", "mean", "p95", "p99", "≤5ms", "wrong", "never", "bytes/key"}

// WriteTable writes title and an aligned text table of rows, one line per
// row, times in milliseconds.
func WriteTable(w io.Writer, title string, rows []Row) error {
	cells := [][]string{columns}
	for _, r := range rows {
		bytes := "-"
		if r.BytesPerKey > 0 {
			bytes = fmt.Sprintf("%.0f", r.BytesPerKey)
		}
		cells = append(cells, []string{r.Name, fmt.Sprint(r.Keys),
			millis(r.Median), millis(r.Mean), millis(r.P95), millis(r.P99),
			percent(r.Instant), percent(r.Wrong), fmt.Sprint(r.NeverShown), bytes})
	}
	widths := make([]int, len(columns))
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	if title != "" {
		b.WriteString(title + "\n")
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
	b.WriteString("times in ms; a keystroke never shown counts as the cap in median, mean, p95 and p99\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// millis formats d in milliseconds with one decimal.
func millis(d time.Duration) string {
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
}

// percent formats a fraction as a percentage with one decimal.
func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

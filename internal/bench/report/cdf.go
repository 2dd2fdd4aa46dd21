package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// Series is one curve of [WriteCDF]: a transport's keystroke response
// times, negative for a keystroke never shown.
type Series struct {
	Name      string
	Latencies []time.Duration
}

// The chart's geometry, in SVG user units (pixels).
const (
	chartW, chartH = 820, 480
	plotL, plotR   = 80, 580 // the plot area's left and right edges
	plotT, plotB   = 50, 410 // its top and bottom edges
	legendX        = 600     // where the legend starts
)

// The time axis: decades from 1 ms to 10 s.
const (
	axisMin     = time.Millisecond
	axisDecades = 4
)

// decadeLabels name the decades of the time axis, from axisMin.
var decadeLabels = []string{"1 ms", "10 ms", "100 ms", "1 s", "10 s"}

// palette and dashes tell the curves apart, in colour and in grey.
var (
	palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}
	dashes  = []string{"", "8 4", "2 3", "10 3 2 3"}
)

// WriteCDF writes a standalone SVG chart of the cumulative distribution of
// each series' response times: x is the time on a logarithmic axis from
// 1 ms to 10 s (a keystroke faster than 1 ms is drawn at 1 ms), y the
// fraction of the series' keystrokes shown within that time, from 0 to 1.
// A keystroke never shown, or shown after 10 s, keeps its curve below 1.
func WriteCDF(w io.Writer, title string, series []Series) error {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="28" text-anchor="middle" font-size="15">%s</text>`+"\n", (plotL+plotR)/2, esc(title))
	writeGrid(&b)
	for i, s := range series {
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", curve(s.Latencies), color(i), dash(i))
	}
	writeLegend(&b, series)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGrid draws the plot frame, the grid, the tick labels and the axis
// titles.
func writeGrid(b *strings.Builder) {
	for i := 0; i <= 10; i++ {
		f := float64(i) / 10
		y := yOf(f)
		fmt.Fprintf(b, `<line x1="%d" y1="%.2f" x2="%d" y2="%.2f" stroke="%s"/>`+"\n", plotL, y, plotR, y, grey(i%5 == 0))
		if i%2 == 0 {
			fmt.Fprintf(b, `<text x="%d" y="%.2f" text-anchor="end">%.1f</text>`+"\n", plotL-8, y+4, f)
		}
	}
	for d := 0; d <= axisDecades; d++ {
		for m := 1; m <= 9 && (m == 1 || d < axisDecades); m++ {
			x := xOfLog(float64(d) + math.Log10(float64(m)))
			fmt.Fprintf(b, `<line x1="%.2f" y1="%d" x2="%.2f" y2="%d" stroke="%s"/>`+"\n", x, plotT, x, plotB, grey(m == 1))
		}
		x := xOfLog(float64(d))
		fmt.Fprintf(b, `<text x="%.2f" y="%d" text-anchor="middle">%s</text>`+"\n", x, plotB+18, esc(decadeLabels[d]))
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#000000"/>`+"\n", plotL, plotT, plotR-plotL, plotB-plotT)
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">keystroke response time (log scale)</text>`+"\n", (plotL+plotR)/2, plotB+40)
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">cumulative fraction of keystrokes</text>`+"\n",
		plotL-50, (plotT+plotB)/2, plotL-50, (plotT+plotB)/2)
}

// writeLegend names each curve beside a sample of its line, with the
// number of keystrokes never shown if any.
func writeLegend(b *strings.Builder, series []Series) {
	for i, s := range series {
		y := plotT + 10 + 22*i
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", legendX, y, legendX+30, y, color(i), dash(i))
		label := s.Name
		if n := neverShown(s.Latencies); n > 0 {
			label += fmt.Sprintf(" (%d never shown)", n)
		}
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", legendX+38, y+4, esc(label))
	}
}

// curve returns the path of the empirical CDF of lat as a step function
// over the plot area, in absolute M and L commands.
func curve(lat []time.Duration) string {
	var b strings.Builder
	point := func(cmd byte, x, y float64) { fmt.Fprintf(&b, "%c%.2f %.2f ", cmd, x, y) }
	if len(lat) == 0 {
		point('M', plotL, plotB)
		point('L', plotR, plotB)
		return strings.TrimSpace(b.String())
	}
	shown := make([]time.Duration, 0, len(lat))
	for _, d := range lat {
		if d >= 0 {
			shown = append(shown, max(d, axisMin))
		}
	}
	slices.Sort(shown)
	n := float64(len(lat))
	axisMax := axisMin * time.Duration(math.Pow10(axisDecades))
	i := 0
	for i < len(shown) && shown[i] == axisMin {
		i++
	}
	y := yOf(float64(i) / n)
	point('M', plotL, y)
	for i < len(shown) && shown[i] <= axisMax {
		d := shown[i]
		for i < len(shown) && shown[i] == d {
			i++
		}
		x := xOf(d)
		point('L', x, y)
		y = yOf(float64(i) / n)
		point('L', x, y)
	}
	point('L', plotR, y)
	return strings.TrimSpace(b.String())
}

// xOf is the x coordinate of response time d, within [axisMin, 10 s].
func xOf(d time.Duration) float64 {
	return xOfLog(math.Log10(float64(d) / float64(axisMin)))
}

// xOfLog is the x coordinate of decade position l (0 at axisMin),
// clamped to the plot area.
func xOfLog(l float64) float64 {
	l = min(max(l, 0), axisDecades)
	return plotL + l/axisDecades*(plotR-plotL)
}

// yOf is the y coordinate of cumulative fraction f.
func yOf(f float64) float64 { return plotB - f*(plotB-plotT) }

// neverShown counts the negative latencies.
func neverShown(lat []time.Duration) int {
	n := 0
	for _, d := range lat {
		if d < 0 {
			n++
		}
	}
	return n
}

// color is the stroke of curve i.
func color(i int) string { return palette[i%len(palette)] }

// dash is the stroke-dasharray attribute of curve i, or nothing.
func dash(i int) string {
	if d := dashes[i%len(dashes)]; d != "" {
		return ` stroke-dasharray="` + d + `"`
	}
	return ""
}

// grey is the stroke of a major or minor grid line.
func grey(major bool) string {
	if major {
		return "#b0b0b0"
	}
	return "#e4e4e4"
}

// esc escapes s for XML text and attribute values.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

package report

import (
	"encoding/json"
	"io"
	"math"
	"time"
)

// jsonReport is the JSON form written by [WriteJSON].
type jsonReport struct {
	Title string    `json:"title"`
	Rows  []jsonRow `json:"rows"`
}

// jsonRow is the JSON form of a [Row]: times in milliseconds (to the
// microsecond), a keystroke never shown as -1.
type jsonRow struct {
	Name        string      `json:"name"`
	Keys        int         `json:"keystrokes"`
	MedianMS    float64     `json:"median_ms"`
	MeanMS      float64     `json:"mean_ms"`
	P95MS       float64     `json:"p95_ms"`
	P99MS       float64     `json:"p99_ms"`
	Instant     float64     `json:"instant_fraction"`
	Wrong       *float64    `json:"wrong_fraction"`
	NeverShown  int         `json:"never_shown"`
	BytesPerKey float64     `json:"bytes_per_keystroke"`
	Runs        int         `json:"runs"`
	Spread      *jsonSpread `json:"range,omitempty"`
	LatenciesMS []float64   `json:"latencies_ms"`
}

// jsonSpread is the JSON form of a [Spread]: [lowest, highest] of each
// figure over the runs.
type jsonSpread struct {
	MedianMS    [2]float64  `json:"median_ms"`
	MeanMS      [2]float64  `json:"mean_ms"`
	P95MS       [2]float64  `json:"p95_ms"`
	P99MS       [2]float64  `json:"p99_ms"`
	Instant     [2]float64  `json:"instant_fraction"`
	Wrong       *[2]float64 `json:"wrong_fraction"`
	NeverShown  [2]int      `json:"never_shown"`
	BytesPerKey [2]float64  `json:"bytes_per_keystroke"`
}

// WriteJSON writes title and rows as one indented JSON object:
//
//	{"title": "…", "rows": [{"name": "gosh", "keystrokes": 335,
//	  "median_ms": 1.2, "mean_ms": …, "p95_ms": …, "p99_ms": …,
//	  "instant_fraction": 0.93, "wrong_fraction": 0.01, "never_shown": 0,
//	  "bytes_per_keystroke": 180, "runs": 5,
//	  "range": {"median_ms": [0.9, 1.5], …},
//	  "latencies_ms": [0.8, …, -1]}]}
//
// Times are in milliseconds to the microsecond; a keystroke never shown
// is -1; bytes_per_keystroke is 0 if not measured; wrong_fraction is null
// where there is no such figure (Row.WrongNA). Over several runs each
// figure is the median of the runs', "range" holds the lowest and the
// highest, and latencies_ms every run's keystrokes one after another.
func WriteJSON(w io.Writer, title string, rows []Row) error {
	rep := jsonReport{Title: title, Rows: make([]jsonRow, len(rows))}
	for i, r := range rows {
		lat := make([]float64, len(r.Latencies))
		for j, d := range r.Latencies {
			lat[j] = ms(d)
		}
		row := jsonRow{Name: r.Name, Keys: r.Keys, MedianMS: ms(r.Median), MeanMS: ms(r.Mean),
			P95MS: ms(r.P95), P99MS: ms(r.P99), Instant: r.Instant,
			NeverShown: r.NeverShown, BytesPerKey: r.BytesPerKey, Runs: r.runs(), LatenciesMS: lat}
		if !r.WrongNA {
			row.Wrong = &r.Wrong
		}
		if s := r.Spread; s != nil {
			row.Spread = &jsonSpread{MedianMS: msRange(s.Median), MeanMS: msRange(s.Mean), P95MS: msRange(s.P95),
				P99MS: msRange(s.P99), Instant: s.Instant, NeverShown: s.NeverShown, BytesPerKey: s.BytesPerKey}
			if !r.WrongNA {
				row.Spread.Wrong = &s.Wrong
			}
		}
		rep.Rows[i] = row
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// msRange converts a range of durations with ms.
func msRange(r [2]time.Duration) [2]float64 { return [2]float64{ms(r[0]), ms(r[1])} }

// ms converts d to milliseconds rounded to the microsecond; negative
// durations (never shown) become -1.
func ms(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

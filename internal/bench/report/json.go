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
	Name        string    `json:"name"`
	Keys        int       `json:"keystrokes"`
	MedianMS    float64   `json:"median_ms"`
	MeanMS      float64   `json:"mean_ms"`
	P95MS       float64   `json:"p95_ms"`
	P99MS       float64   `json:"p99_ms"`
	Instant     float64   `json:"instant_fraction"`
	Wrong       float64   `json:"wrong_fraction"`
	NeverShown  int       `json:"never_shown"`
	BytesPerKey float64   `json:"bytes_per_keystroke"`
	LatenciesMS []float64 `json:"latencies_ms"`
}

// WriteJSON writes title and rows as one indented JSON object:
//
//	{"title": "…", "rows": [{"name": "gosh", "keystrokes": 335,
//	  "median_ms": 1.2, "mean_ms": …, "p95_ms": …, "p99_ms": …,
//	  "instant_fraction": 0.93, "wrong_fraction": 0.01, "never_shown": 0,
//	  "bytes_per_keystroke": 180, "latencies_ms": [0.8, …, -1]}]}
//
// Times are in milliseconds to the microsecond; a keystroke never shown
// is -1; bytes_per_keystroke is 0 if not measured.
func WriteJSON(w io.Writer, title string, rows []Row) error {
	rep := jsonReport{Title: title, Rows: make([]jsonRow, len(rows))}
	for i, r := range rows {
		lat := make([]float64, len(r.Latencies))
		for j, d := range r.Latencies {
			lat[j] = ms(d)
		}
		rep.Rows[i] = jsonRow{Name: r.Name, Keys: r.Keys, MedianMS: ms(r.Median), MeanMS: ms(r.Mean),
			P95MS: ms(r.P95), P99MS: ms(r.P99), Instant: r.Instant, Wrong: r.Wrong,
			NeverShown: r.NeverShown, BytesPerKey: r.BytesPerKey, LatenciesMS: lat}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// ms converts d to milliseconds rounded to the microsecond; negative
// durations (never shown) become -1.
func ms(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

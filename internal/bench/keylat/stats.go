package keylat

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Stats are the figures of a typing measurement for a report.
type Stats struct {
	// Keys is the number of keystrokes measured.
	Keys int
	// NeverShown is the number of keystrokes never shown. They count as
	// Cap in Median, Mean, P95 and P99.
	NeverShown int
	// Cap is what a keystroke never shown, or shown later than Cap,
	// counts as.
	Cap time.Duration
	// Median, Mean, P95 and P99 summarise the latencies. Percentiles
	// interpolate linearly between the two nearest ranks, so the median
	// of an even number of keystrokes is the mean of the middle two.
	Median, Mean, P95, P99 time.Duration
	// Instant is the fraction of keystrokes shown within InstantLatency.
	Instant float64
	// Wrong is the fraction of keystrokes during which the screen showed
	// a wrong prediction.
	Wrong float64
	// Predicted is the fraction of keystrokes during which the screen
	// showed a prediction, right or wrong; NoPrediction says that it was
	// measured and none was shown, so that Wrong means nothing ("n/a").
	Predicted    float64
	NoPrediction bool
	// Silent is the number of keystrokes with nothing to show, left out
	// of Median, Mean, P95, P99, Instant and NeverShown; Keys counts
	// them, and so do Wrong and Predicted.
	Silent int
}

// NewStats computes the figures of per-keystroke latencies (negative for a
// keystroke never shown) and wrong flags (nil, or as long as latency),
// counting a keystroke never shown, or shown later than limit, as limit.
// All figures are zero if there are no keystrokes.
func NewStats(latency []time.Duration, wrong []bool, limit time.Duration) Stats {
	s := Stats{Keys: len(latency), Cap: limit}
	if len(latency) == 0 {
		return s
	}
	lat := make([]time.Duration, len(latency))
	var sum time.Duration
	instant, wrongs := 0, 0
	for i, d := range latency {
		if d < 0 {
			s.NeverShown++
			d = limit
		} else if d <= InstantLatency {
			instant++
		}
		d = min(d, limit)
		if i < len(wrong) && wrong[i] {
			wrongs++
		}
		lat[i] = d
		sum += d
	}
	slices.Sort(lat)
	n := float64(len(lat))
	s.Median = quantile(lat, 0.5)
	s.P95 = quantile(lat, 0.95)
	s.P99 = quantile(lat, 0.99)
	s.Mean = sum / time.Duration(len(lat))
	s.Instant = float64(instant) / n
	s.Wrong = float64(wrongs) / n
	return s
}

// quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted, a non-empty
// ascending slice, interpolating between the two nearest ranks.
func quantile(sorted []time.Duration, q float64) time.Duration {
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	frac := h - float64(lo)
	return sorted[lo] + time.Duration(math.Round(frac*float64(sorted[lo+1]-sorted[lo])))
}

// String formats the figures on one line.
func (s Stats) String() string {
	never := ""
	if s.NeverShown > 0 {
		never = fmt.Sprintf(", %d never shown (counted as %v)", s.NeverShown, s.Cap)
	}
	wrong := fmt.Sprintf("%.1f%% shown wrongly", 100*s.Wrong)
	if s.NoPrediction {
		wrong = "no prediction shown"
	}
	silent := ""
	if s.Silent > 0 {
		silent = fmt.Sprintf(" (%d with nothing to show)", s.Silent)
	}
	return fmt.Sprintf("%d keystrokes%s: %.1f%% shown within %v, %s, median %v, mean %v, p95 %v, p99 %v%s",
		s.Keys, silent, 100*s.Instant, InstantLatency, wrong, round(s.Median), round(s.Mean), round(s.P95), round(s.P99), never)
}

// round rounds d for display.
func round(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }

// Stats returns the figures of r, a keystroke never shown counting as
// NeverShownCap.
func (r Result) Stats() Stats {
	lat := r.Latency
	if r.Silent != nil {
		lat = nil
		for i, d := range r.Latency {
			if !r.Silent[i] {
				lat = append(lat, d)
			}
		}
	}
	s := NewStats(lat, nil, NeverShownCap)
	s.Keys, s.Silent = len(r.Latency), len(r.Latency)-len(lat)
	if s.Keys > 0 {
		s.Wrong = float64(count(r.Wrong)) / float64(s.Keys)
	}
	if r.Predicted != nil && s.Keys > 0 {
		n := count(r.Predicted)
		s.Predicted = float64(n) / float64(s.Keys)
		s.NoPrediction = n == 0
	}
	return s
}

// count is the number of true values in bs.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// Summary returns the headline figures of r: the fractions of keystrokes
// shown within InstantLatency and shown wrongly, and the median and mean
// latency (a keystroke never shown counting as NeverShownCap).
func (r Result) Summary() (instant, wrong float64, median, mean time.Duration) {
	s := r.Stats()
	return s.Instant, s.Wrong, s.Median, s.Mean
}

// String formats the summary.
func (r Result) String() string {
	instant, wrong, median, mean := r.Summary()
	return fmt.Sprintf("%d keystrokes: %.1f%% shown within %v, %.1f%% shown wrongly, median %v, mean %v",
		r.Keys, 100*instant, InstantLatency, 100*wrong, round(median), round(mean))
}

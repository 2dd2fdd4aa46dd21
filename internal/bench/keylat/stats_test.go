package keylat

import (
	"strings"
	"testing"
	"time"
)

func TestNewStats(t *testing.T) {
	const m = time.Millisecond
	for _, tc := range []struct {
		name    string
		latency []time.Duration
		wrong   []bool
		want    Stats
	}{
		{"none", nil, nil, Stats{Cap: 10 * time.Second}},
		{
			name:    "one",
			latency: []time.Duration{3 * m},
			want:    Stats{Keys: 1, Cap: 10 * time.Second, Median: 3 * m, Mean: 3 * m, P95: 3 * m, P99: 3 * m, Instant: 1},
		},
		{
			name:    "even count: the median is between the middle two",
			latency: []time.Duration{40 * m, 10 * m, 20 * m, 30 * m},
			wrong:   []bool{false, true, false, false},
			want: Stats{Keys: 4, Cap: 10 * time.Second, Median: 25 * m, Mean: 25 * m,
				P95: 38500 * time.Microsecond, P99: 39700 * time.Microsecond, Wrong: 0.25},
		},
		{
			name:    "never shown counts as the cap",
			latency: []time.Duration{1 * m, 5 * m, 6 * m, -1},
			want: Stats{Keys: 4, NeverShown: 1, Cap: 10 * time.Second, Median: 5500 * time.Microsecond,
				Mean: (12*m + 10*time.Second) / 4, P95: 8500900 * time.Microsecond, P99: 9700180 * time.Microsecond, Instant: 0.5},
		},
		{
			name:    "later than the cap counts as the cap",
			latency: []time.Duration{20 * time.Second, 0},
			want: Stats{Keys: 2, Cap: 10 * time.Second, Median: 5 * time.Second, Mean: 5 * time.Second,
				P95: 9500 * m, P99: 9900 * m, Instant: 0.5},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewStats(tc.latency, tc.wrong, 10*time.Second); got != tc.want {
				t.Errorf("NewStats(%v, %v) =\n%+v, want\n%+v", tc.latency, tc.wrong, got, tc.want)
			}
		})
	}
}

// TestPercentilesOfHundred checks the percentiles on 1..100 ms, where
// the 95th and 99th percentiles fall between ranks.
func TestPercentilesOfHundred(t *testing.T) {
	lat := make([]time.Duration, 100)
	for i := range lat {
		lat[i] = time.Duration(100-i) * time.Millisecond
	}
	s := NewStats(lat, nil, NeverShownCap)
	for _, tc := range []struct {
		name      string
		got, want time.Duration
	}{
		{"median", s.Median, 50500 * time.Microsecond},
		{"mean", s.Mean, 50500 * time.Microsecond},
		{"p95", s.P95, 95050 * time.Microsecond},
		{"p99", s.P99, 99010 * time.Microsecond},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if s.Instant != 0.05 {
		t.Errorf("Instant = %v, want 0.05 (1 to 5 ms)", s.Instant)
	}
}

func TestResultSummary(t *testing.T) {
	r := Result{Keys: 3, Latency: []time.Duration{time.Millisecond, 300 * time.Millisecond, -1}, Wrong: []bool{false, false, true}}
	instant, wrong, median, mean := r.Summary()
	if instant != 1.0/3 || wrong != 1.0/3 || median != 300*time.Millisecond || mean != (301*time.Millisecond+NeverShownCap)/3 {
		t.Errorf("Summary() = %v, %v, %v, %v", instant, wrong, median, mean)
	}
	if s := r.String(); !strings.HasPrefix(s, "3 keystrokes: 33.3% shown within 5ms, 33.3% shown wrongly, median 300ms") {
		t.Errorf("String() = %q", s)
	}
	if s := r.Stats().String(); !strings.Contains(s, "1 never shown (counted as 10s)") {
		t.Errorf("Stats().String() = %q, want the keystroke never shown", s)
	}
}

package linkem

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// t0 is the synthetic start of every model test.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ms is a shorthand for a number of milliseconds.
func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestDelayExact(t *testing.T) {
	for _, d := range []time.Duration{0, time.Microsecond, 500 * time.Microsecond, 250 * time.Millisecond} {
		m := NewModel(Config{Delay: d}, 1, t0)
		for i := range 1000 {
			now := t0.Add(time.Duration(i) * 3 * time.Millisecond)
			at, ok := m.Offer(now, 100)
			if !ok || !at.Equal(now.Add(d)) {
				t.Fatalf("delay %v: Offer(%v) = %v, %v, want %v, true", d, now.Sub(t0), at.Sub(t0), ok, now.Add(d).Sub(t0))
			}
		}
	}
}

func TestJitter(t *testing.T) {
	const (
		delay  = 100 * time.Millisecond
		jitter = 20 * time.Millisecond
		n      = 20000
	)
	for _, tc := range []struct {
		name    string
		reorder bool
		gap     time.Duration // between sends
	}{
		{"sparse", false, 50 * time.Millisecond}, // wider than the jitter: no holding back
		{"sparse-reorder", true, 50 * time.Millisecond},
		{"dense-reorder", true, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModel(Config{Delay: delay, Jitter: jitter, Reorder: tc.reorder}, 7, t0)
			var sum time.Duration
			for i := range n {
				now := t0.Add(time.Duration(i) * tc.gap)
				at, _ := m.Offer(now, 100)
				extra := at.Sub(now) - delay
				if extra < 0 || extra >= jitter {
					t.Fatalf("packet %d: extra delay %v outside [0, %v)", i, extra, jitter)
				}
				sum += extra
			}
			// Uniform on [0, J): mean J/2, standard deviation J/√12.
			mean := float64(sum) / n
			want := float64(jitter) / 2
			tol := 4 * float64(jitter) / math.Sqrt(12*n)
			if math.Abs(mean-want) > tol {
				t.Errorf("mean extra delay %v, want %v ± %v", time.Duration(mean), time.Duration(want), time.Duration(tol))
			}
		})
	}
}

func TestJitterOrder(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		m := NewModel(Config{Delay: 50 * time.Millisecond, Jitter: 30 * time.Millisecond, Reorder: reorder}, 3, t0)
		var last time.Time
		overtaken := 0
		for i := range 10000 {
			at, _ := m.Offer(t0.Add(time.Duration(i)*time.Millisecond), 100)
			if at.Before(last) {
				overtaken++
			}
			last = at
		}
		switch {
		case !reorder && overtaken != 0:
			t.Errorf("Reorder false: %d packets delivered before an earlier one", overtaken)
		case reorder && overtaken == 0:
			t.Errorf("Reorder true: no packet ever overtaken with 30 ms jitter at 1 ms spacing")
		}
	}
}

// decisions runs a mixed workload through a model and records every
// decision.
func decisions(cfg Config, seed uint64) []time.Duration {
	m := NewModel(cfg, seed, t0)
	var out []time.Duration
	for i := range 5000 {
		now := t0.Add(time.Duration(i) * 700 * time.Microsecond)
		at, ok := m.Offer(now, 100+i%1400)
		if !ok {
			out = append(out, -1)
			continue
		}
		out = append(out, at.Sub(t0))
	}
	return out
}

func TestDeterminism(t *testing.T) {
	burst := &GilbertElliott{PGoodBad: 0.01, PBadGood: 0.3, LossBad: 0.8}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"loss-jitter", Config{Delay: ms(20), Jitter: ms(10), Loss: 0.1, Burst: burst, Reorder: true}},
		{"rate", Config{Delay: ms(20), Jitter: ms(5), Loss: 0.05, Rate: 2e6, Queue: 20}},
		{"cellular", Config{Delay: ms(20), Cellular: &Cellular{}, Queue: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b, c := decisions(tc.cfg, 42), decisions(tc.cfg, 42), decisions(tc.cfg, 43)
			same, differ := true, false
			for i := range a {
				same = same && a[i] == b[i]
				differ = differ || a[i] != c[i]
			}
			if !same {
				t.Error("seed 42 gave different decisions on two runs")
			}
			if !differ {
				t.Error("seeds 42 and 43 gave identical decisions")
			}
		})
	}
}

func TestOutages(t *testing.T) {
	cfg := Config{Delay: ms(50), Outages: []Outage{
		{Start: 10 * time.Second, Duration: 5 * time.Second, Every: 30 * time.Second},
		{Start: 2 * time.Second, Duration: 100 * time.Millisecond},
	}}
	m := NewModel(cfg, 1, t0)
	for _, tc := range []struct {
		at   time.Duration
		lost bool
	}{
		{0, false},
		{2*time.Second - 1, false},
		{2 * time.Second, true},
		{2*time.Second + 99*time.Millisecond, true},
		{2*time.Second + 100*time.Millisecond, false},
		{10*time.Second - 1, false},
		{10 * time.Second, true},
		{15*time.Second - 1, true},
		{15 * time.Second, false},
		{39 * time.Second, false},
		{40 * time.Second, true},
		{44 * time.Second, true},
		{45 * time.Second, false},
		{3600*time.Second + 10*time.Second, true}, // 3610 = 10 + 120·30
	} {
		if _, ok := m.Offer(t0.Add(tc.at), 100); ok == tc.lost {
			t.Errorf("Offer at %v: ok = %v, want %v", tc.at, ok, !tc.lost)
		}
	}
	if s := m.Stats(); s.DroppedOutage != 7 || s.Delivered != 7 {
		t.Errorf("Stats = %+v, want 7 dropped by outage and 7 delivered", s)
	}
}

func TestSetOutageAndConfig(t *testing.T) {
	m := NewModel(Config{Delay: ms(10)}, 1, t0)
	at, _ := m.Offer(t0, 1)
	m.SetOutage(true)
	if _, ok := m.Offer(t0.Add(ms(1)), 1); ok {
		t.Error("packet survived SetOutage(true)")
	}
	m.SetOutage(false)
	m.SetConfig(t0.Add(ms(2)), Config{Delay: ms(1)})
	// 2 ms + 1 ms would overtake the first packet (due at 10 ms): held.
	at2, ok := m.Offer(t0.Add(ms(2)), 1)
	if !ok || !at2.Equal(at) {
		t.Errorf("after SetConfig: delivered at %v, want %v (held behind the earlier packet)", at2.Sub(t0), at.Sub(t0))
	}
	at3, _ := m.Offer(t0.Add(ms(20)), 1)
	if want := t0.Add(ms(21)); !at3.Equal(want) {
		t.Errorf("new delay: delivered at %v, want %v", at3.Sub(t0), want.Sub(t0))
	}
	if got := m.Config().Delay; got != ms(1) {
		t.Errorf("Config().Delay = %v, want 1ms", got)
	}
}

func TestOfferEarlierNow(t *testing.T) {
	m := NewModel(Config{Delay: ms(10)}, 1, t0)
	m.Offer(t0.Add(ms(5)), 1)
	at, _ := m.Offer(t0.Add(ms(1)), 1) // clock went backwards: treated as 5 ms
	if want := t0.Add(ms(15)); !at.Equal(want) {
		t.Errorf("Offer with an earlier now delivered at %v, want %v", at.Sub(t0), want.Sub(t0))
	}
}

func TestValidate(t *testing.T) {
	tr := SteadyTrace(1e6, time.Second)
	for _, tc := range []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"zero", Config{}, true},
		{"all", Config{Delay: 1, Jitter: 1, Loss: 1, Burst: &GilbertElliott{1, 1, 1, 1}, Rate: 1, Queue: 1,
			Outages: []Outage{{Start: 0, Duration: 1, Every: 1}}}, true},
		{"negative delay", Config{Delay: -1}, false},
		{"negative jitter", Config{Jitter: -1}, false},
		{"loss above 1", Config{Loss: 1.01}, false},
		{"loss NaN", Config{Loss: math.NaN()}, false},
		{"rate negative", Config{Rate: -1}, false},
		{"rate infinite", Config{Rate: math.Inf(1)}, false},
		{"queue negative", Config{Queue: -1}, false},
		{"rate and trace", Config{Rate: 1, Trace: tr}, false},
		{"cellular and trace", Config{Cellular: &Cellular{}, Trace: tr}, false},
		{"burst probability", Config{Burst: &GilbertElliott{PGoodBad: 2}}, false},
		{"cellular negative", Config{Cellular: &Cellular{Sigma: -1}}, false},
		{"cellular restart above max", Config{Cellular: &Cellular{MaxRate: 10, RestartRate: 20}}, false},
		{"empty trace", Config{Trace: &Trace{}}, false},
		{"outage zero duration", Config{Outages: []Outage{{Start: 1}}}, false},
		{"outage every < duration", Config{Outages: []Outage{{Duration: 2, Every: 1}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok %v", err, tc.ok)
			}
			if err != nil && (!errors.Is(err, errConfig) || !strings.HasPrefix(err.Error(), "linkem: ")) {
				t.Errorf("Validate() = %q, want a linkem: error wrapping errConfig", err)
			}
		})
	}
}

func TestNewModelPanicsOnBadConfig(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewModel with a negative delay did not panic")
		}
	}()
	NewModel(Config{Delay: -1}, 1, t0)
}

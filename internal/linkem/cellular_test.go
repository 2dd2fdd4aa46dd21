package linkem

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestCellularIncrements checks that the rate's increments, away from
// the clamps, have variance σ²·dt, over one step and over one Sprout
// tick.
func TestCellularIncrements(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps int // per increment
	}{
		{"step", 1},
		{"sprout-tick", int(SproutTick / CellularStep)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Cellular{RestartRate: 500}.withDefaults()
			p := newCellularProcess(c, 3, t0)
			dt := (time.Duration(tc.steps) * CellularStep).Seconds()
			want := c.Sigma * c.Sigma * dt
			margin := 6 * math.Sqrt(want) // clamping from further away is negligible
			var n int
			var sum, sum2 float64
			for range 400000 / tc.steps {
				before := p.lambda
				clear := !p.outage && before > margin && before < c.MaxRate-margin
				for range tc.steps {
					p.step()
				}
				if !clear {
					continue
				}
				d := p.lambda - before
				n++
				sum += d
				sum2 += d * d
			}
			mean := sum / float64(n)
			variance := sum2/float64(n) - mean*mean
			// The sample variance of n normals has relative standard
			// deviation √(2/n).
			tol := 4.5 * math.Sqrt(2/float64(n))
			if math.Abs(variance/want-1) > tol {
				t.Errorf("variance of %d increments over %v s = %.2f, want %.2f ± %.1f%%", n, dt, variance, want, tol*100)
			}
			if math.Abs(mean) > 4.5*math.Sqrt(want/float64(n)) {
				t.Errorf("mean increment %.3f, want 0", mean)
			}
		})
	}
}

// TestCellularTracksRate saturates a cellular link and checks that the
// packets delivered in each second match the integral of λ over it, as a
// Poisson count: the total within a few standard deviations and the
// dispersion of the per-second counts that of a Poisson variable.
func TestCellularTracksRate(t *testing.T) {
	const (
		seconds = 120
		offered = 1200 // packets per second, above MaxRate: never idle
	)
	m := NewModel(Config{Cellular: &Cellular{RestartRate: 200}, Queue: 1 << 20}, 8, t0)
	expect := make([]float64, seconds+1) // ∫λ over each second
	p := m.neck.(*opportunityLink).src.(*cellularProcess)
	p.observe = func(end time.Time, lambda float64) {
		if s := int(end.Add(-CellularStep).Sub(t0) / time.Second); s <= seconds {
			expect[s] += lambda * CellularStep.Seconds()
		}
	}
	got := make([]float64, seconds+1)
	for i := range seconds * offered {
		at, ok := m.Offer(t0.Add(time.Duration(i)*time.Second/offered), OpportunityBytes)
		if !ok {
			t.Fatalf("packet %d dropped: %+v", i, m.Stats())
		}
		if s := int(at.Sub(t0) / time.Second); s < seconds {
			got[s]++
		}
	}
	var total, want, chi2 float64
	k := 0
	for s := range seconds {
		total += got[s]
		want += expect[s]
		if expect[s] > 20 {
			chi2 += (got[s] - expect[s]) * (got[s] - expect[s]) / expect[s]
			k++
		}
	}
	if math.Abs(total-want) > 4.5*math.Sqrt(want) {
		t.Errorf("%v packets delivered in %d s, want ∫λ = %.0f ± %.0f", total, seconds, want, 4.5*math.Sqrt(want))
	}
	if math.Abs(chi2-float64(k)) > 4.5*math.Sqrt(2*float64(k)) {
		t.Errorf("Σ(count−∫λ)²/∫λ over %d seconds = %.1f, want %d ± %.1f", k, chi2, k, 4.5*math.Sqrt(2*float64(k)))
	}
	if want < 30*seconds {
		t.Errorf("∫λ = %.0f over %d s: the link barely ran", want, seconds)
	}
}

// outageStats runs a cellular process for d and returns its outages'
// durations, the fraction of the time in outage and whether any
// opportunity fell inside an outage.
func outageStats(c Cellular, seed uint64, d time.Duration) (durations []time.Duration, fraction float64, leak bool) {
	p := newCellularProcess(c, seed, t0)
	var begin time.Time // of the outage under way, if not zero
	var outages [][2]time.Time
	p.observe = func(end time.Time, lambda float64) {
		switch {
		case lambda == 0 && begin.IsZero():
			begin = end.Add(-CellularStep)
		case lambda > 0 && !begin.IsZero():
			outages = append(outages, [2]time.Time{begin, end.Add(-CellularStep)})
			begin = time.Time{}
		}
	}
	var opps []time.Time
	for {
		at := p.next()
		if at.Sub(t0) > d {
			break
		}
		opps = append(opps, at)
	}
	var down time.Duration
	for _, o := range outages {
		durations = append(durations, o[1].Sub(o[0]))
		down += o[1].Sub(o[0])
		i, _ := slices.BinarySearchFunc(opps, o[0], time.Time.Compare)
		leak = leak || (i < len(opps) && opps[i].Before(o[1]))
	}
	return durations, float64(down) / float64(d), leak
}

func TestCellularOutages(t *testing.T) {
	t.Run("restart-200", func(t *testing.T) {
		const d = 15 * time.Minute
		durations, fraction, leak := outageStats(Cellular{RestartRate: 200}, 1, d)
		if leak {
			t.Error("an opportunity arrived during an outage")
		}
		n := float64(len(durations))
		if perMin := n / d.Minutes(); perMin < 2 || perMin > 15 {
			t.Errorf("%.1f outages a minute, want about 6", perMin)
		}
		// Outage lengths are exponential (geometric in steps) with mean
		// 1/EscapeRate: standard deviation of the mean 1/(λz·√n).
		var sum time.Duration
		for _, o := range durations {
			sum += o
		}
		mean := sum.Seconds() / n
		if want := 1 / SproutEscapeRate; math.Abs(mean-want) > 4.5*want/math.Sqrt(n) {
			t.Errorf("mean outage %.3f s over %v outages, want %.3f s", mean, n, want)
		}
		if fraction <= 0 || fraction > 0.3 {
			t.Errorf("in outage %.0f%% of the time, want about 10%%", fraction*100)
		}
	})
	t.Run("sprout", func(t *testing.T) {
		durations, fraction, leak := outageStats(Cellular{}, 1, 5*time.Minute)
		if leak {
			t.Error("an opportunity arrived during an outage")
		}
		if len(durations) < 100 || fraction < 0.25 || fraction > 0.7 {
			t.Errorf("%d outages, in outage %.0f%% of the time; want many, nearly half the time", len(durations), fraction*100)
		}
	})
}

// TestCellularIndependentOfOffers checks that the opportunities do not
// depend on the traffic: an idle link and a busy one see the same
// opportunities after the idle period.
func TestCellularIndependentOfOffers(t *testing.T) {
	cfg := Config{Cellular: &Cellular{RestartRate: 200}, Queue: 1 << 20}
	busy, idle := NewModel(cfg, 4, t0), NewModel(cfg, 4, t0)
	for i := range 5000 {
		busy.Offer(t0.Add(time.Duration(i)*time.Millisecond), 10)
	}
	// Both now send one full packet well after the busy link drained.
	now := t0.Add(30 * time.Second)
	a, _ := busy.Offer(now, OpportunityBytes)
	b, _ := idle.Offer(now, OpportunityBytes)
	if !a.Equal(b) {
		t.Errorf("after 30 s: busy link delivers at %v, idle link at %v", a.Sub(t0), b.Sub(t0))
	}
}

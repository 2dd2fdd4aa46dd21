package linkem

import (
	"math"
	"testing"
	"time"
)

// offerN offers n packets 1 ms apart and returns which were lost.
func offerN(m *Model, n int) []bool {
	lost := make([]bool, n)
	for i := range lost {
		_, ok := m.Offer(t0.Add(time.Duration(i)*time.Millisecond), 100)
		lost[i] = !ok
	}
	return lost
}

// checkBinomial fails unless k successes out of n are within 4.5
// standard deviations of probability p.
func checkBinomial(t *testing.T, what string, k, n int, p float64) {
	t.Helper()
	sd := math.Sqrt(float64(n) * p * (1 - p))
	if d := math.Abs(float64(k) - float64(n)*p); d > 4.5*sd+1e-9 {
		t.Errorf("%s: %d of %d, want %.0f ± %.0f", what, k, n, float64(n)*p, 4.5*sd)
	}
}

func TestIndependentLoss(t *testing.T) {
	const n = 100000
	for _, p := range []float64{0, 0.01, 0.08, 0.293, 0.5, 1} {
		m := NewModel(Config{Loss: p}, 11, t0)
		k := 0
		for _, l := range offerN(m, n) {
			if l {
				k++
			}
		}
		checkBinomial(t, "losses", k, n, p)
		if s := m.Stats(); s.DroppedLoss != uint64(k) || s.Dropped() != uint64(k) || s.Offered != n {
			t.Errorf("loss %v: Stats = %+v, want %d dropped by loss of %d offered", p, s, k, n)
		}
	}
}

func TestGilbertElliott(t *testing.T) {
	const n = 200000
	for _, tc := range []struct {
		name string
		g    GilbertElliott
	}{
		// Gilbert: all of a bad period is lost, so bursts are bad periods.
		{"gilbert", GilbertElliott{PGoodBad: 0.02, PBadGood: 0.25, LossGood: 0, LossBad: 1}},
		{"gilbert-long", GilbertElliott{PGoodBad: 0.005, PBadGood: 0.1, LossGood: 0, LossBad: 1}},
		{"elliott", GilbertElliott{PGoodBad: 0.05, PBadGood: 0.2, LossGood: 0.01, LossBad: 0.6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			m := NewModel(Config{Burst: &g}, 5, t0)
			lost := offerN(m, n)
			k, bursts := 0, 0
			for i, l := range lost {
				if l {
					k++
					if i == 0 || !lost[i-1] {
						bursts++
					}
				}
			}
			// The stationary loss rate, with a tolerance for the chain's
			// correlation: the variance of the count of a two-state
			// chain grows by (1+ρ)/(1−ρ), ρ = 1 − p − r.
			p := g.LossRate()
			want := (g.PGoodBad*g.LossBad + g.PBadGood*g.LossGood) / (g.PGoodBad + g.PBadGood)
			if math.Abs(p-want) > 1e-12 {
				t.Fatalf("LossRate() = %v, want %v", p, want)
			}
			rho := 1 - g.PGoodBad - g.PBadGood
			sd := math.Sqrt(n*p*(1-p)*(1+rho)/(1-rho)) + math.Sqrt(n*p)
			if d := math.Abs(float64(k) - n*p); d > 4.5*sd {
				t.Errorf("lost %d of %d, want %.0f ± %.0f (stationary rate %.4f)", k, n, n*p, 4.5*sd, p)
			}
			if s := m.Stats(); s.DroppedBurst != uint64(k) {
				t.Errorf("Stats().DroppedBurst = %d, want %d", s.DroppedBurst, k)
			}
			if g.LossGood != 0 || g.LossBad != 1 {
				return
			}
			// Burst lengths are geometric with mean 1/PBadGood and
			// standard deviation √(1−r)/r.
			mean := float64(k) / float64(bursts)
			wantMean := 1 / g.PBadGood
			tol := 4.5 * math.Sqrt(1-g.PBadGood) / g.PBadGood / math.Sqrt(float64(bursts))
			if math.Abs(mean-wantMean) > tol {
				t.Errorf("mean burst %.3f over %d bursts, want %.3f ± %.3f", mean, bursts, wantMean, tol)
			}
		})
	}
}

func TestLossAndBurstCompose(t *testing.T) {
	const n = 100000
	g := GilbertElliott{PGoodBad: 0.01, PBadGood: 0.5, LossBad: 1}
	m := NewModel(Config{Loss: 0.1, Burst: &g}, 9, t0)
	offerN(m, n)
	s := m.Stats()
	// Loss applies to what the burst stage let through.
	want := 1 - (1-0.1)*(1-g.LossRate())
	// 5% of the mean is about four standard deviations here, the
	// burst part's correlation included.
	if got := float64(s.Dropped()) / n; math.Abs(got-want) > 0.05*want {
		t.Errorf("combined loss rate %.4f, want %.4f ± 5%%", got, want)
	}
	if s.DroppedLoss == 0 || s.DroppedBurst == 0 {
		t.Errorf("Stats = %+v, want both loss and burst drops", s)
	}
}

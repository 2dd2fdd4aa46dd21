package workload

import (
	"math"
	"math/rand/v2"
	"time"
)

// The typing model (see the package doc).
const (
	// IKIMean and IKIStdDev are the mean inter-key interval and its
	// standard deviation reported by Dhakal et al. (CHI 2018).
	IKIMean   = 238660 * time.Microsecond
	IKIStdDev = 111600 * time.Microsecond
	// ThinkMin and ThinkMax bound the pause before a command.
	ThinkMin = 500 * time.Millisecond
	ThinkMax = 1500 * time.Millisecond
	// MinGap and MaxBuiltinGap bound every gap the typist draws.
	MinGap        = 30 * time.Millisecond
	MaxBuiltinGap = 3 * time.Second
)

// Typist draws the pauses of a simulated typist from a seeded generator,
// the same for the same seed on every platform. A Typist is not safe for
// concurrent use.
type Typist struct {
	src       *rand.PCG
	mu, sigma float64 // of the log-normal gap, in log-milliseconds
}

// NewTypist returns a typist whose pauses follow from seed.
func NewTypist(seed uint64) *Typist {
	// A log-normal with mean m and standard deviation s has
	// σ² = ln(1 + s²/m²) and μ = ln m − σ²/2.
	m := float64(IKIMean) / float64(time.Millisecond)
	s := float64(IKIStdDev) / float64(time.Millisecond)
	sigma2 := math.Log1p(s * s / (m * m))
	return &Typist{src: rand.NewPCG(seed, 0x6b65797374726f6b), mu: math.Log(m) - sigma2/2, sigma: math.Sqrt(sigma2)}
}

// Gap returns the pause before a key typed in a burst: log-normal with the
// mean and spread of IKIMean and IKIStdDev, within MinGap and
// MaxBuiltinGap, rounded to the millisecond.
func (t *Typist) Gap() time.Duration {
	return clampGap(math.Exp(t.mu + t.sigma*t.normal()))
}

// Think returns the pause before the first key of a command: uniform
// between ThinkMin and ThinkMax, rounded to the millisecond.
func (t *Typist) Think() time.Duration {
	lo := float64(ThinkMin) / float64(time.Millisecond)
	hi := float64(ThinkMax) / float64(time.Millisecond)
	return clampGap(lo + (hi-lo)*t.uniform())
}

// clampGap rounds ms milliseconds to a whole millisecond within MinGap and
// MaxBuiltinGap.
func clampGap(ms float64) time.Duration {
	d := time.Duration(math.Round(ms)) * time.Millisecond
	return min(max(d, MinGap), MaxBuiltinGap)
}

// uniform returns a number in (0, 1) with 53 random bits.
func (t *Typist) uniform() float64 {
	return (float64(t.src.Uint64()>>11) + 0.5) / (1 << 53)
}

// normal returns a standard normal deviate (Box–Muller). It is written
// out, rather than taken from math/rand/v2, so that the committed
// workloads depend only on the PCG algorithm, which is fixed.
func (t *Typist) normal() float64 {
	u1, u2 := t.uniform(), t.uniform()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

package linkem

import (
	"math"
	"math/rand/v2"
	"time"
)

// cellularProcess generates the delivery opportunities of a [Cellular]
// link. λ is constant within each CellularStep and takes a Brownian
// increment at every step boundary. Opportunities are the instants where
// the integral of λ crosses successive sums of unit exponentials, which
// makes them exactly a Poisson process of the piecewise-constant rate.
// The process draws only from its own random stream, so the opportunities
// do not depend on the packets offered.
type cellularProcess struct {
	c      Cellular // with defaults
	rng    *rand.Rand
	stepSD float64 // σ·√CellularStep
	escape float64 // probability of leaving an outage in one step

	t       time.Time // the process is simulated up to t
	stepEnd time.Time // end of the current step
	lambda  float64   // rate over [t, stepEnd), packets per second
	outage  bool      // λ is stuck at 0 until an escape
	need    float64   // integral of λ still needed before the next opportunity

	// observe, if set (by tests), sees the rate of each step as it ends.
	observe func(stepEnd time.Time, lambda float64)
}

func newCellularProcess(c Cellular, seed uint64, start time.Time) *cellularProcess {
	c = c.withDefaults()
	step := CellularStep.Seconds()
	p := &cellularProcess{
		c:       c,
		rng:     rand.New(rand.NewPCG(seed, streamCellular)),
		stepSD:  c.Sigma * math.Sqrt(step),
		escape:  -math.Expm1(-c.EscapeRate * step),
		t:       start,
		stepEnd: start.Add(CellularStep),
		lambda:  c.InitialRate,
	}
	p.need = p.rng.ExpFloat64()
	return p
}

// next returns the next opportunity.
func (p *cellularProcess) next() time.Time {
	for {
		left := p.stepEnd.Sub(p.t).Seconds()
		avail := float64(p.lambda * left) // float64(): never fused, same result on every CPU
		if avail >= p.need {
			dt := p.need / p.lambda
			p.t = p.t.Add(time.Duration(dt * 1e9))
			if p.t.After(p.stepEnd) { // rounding
				p.t = p.stepEnd
			}
			p.need = p.rng.ExpFloat64()
			return p.t
		}
		p.need -= avail
		if p.observe != nil {
			p.observe(p.stepEnd, p.lambda)
		}
		p.t = p.stepEnd
		p.stepEnd = p.stepEnd.Add(CellularStep)
		p.step()
	}
}

// nextFrom returns the first opportunity at or after t. The process
// still runs through the time before t, so λ evolves the same whether or
// not packets were waiting.
func (p *cellularProcess) nextFrom(t time.Time) time.Time {
	for {
		if o := p.next(); !o.Before(t) {
			return o
		}
	}
}

// step moves λ across one step boundary.
func (p *cellularProcess) step() {
	if p.outage {
		if p.rng.Float64() < p.escape {
			p.outage = false
			p.lambda = p.c.RestartRate
			if p.lambda == 0 {
				p.lambda = math.Abs(p.rng.NormFloat64()) * p.c.Sigma * math.Sqrt(SproutTick.Seconds())
				p.lambda = min(p.lambda, p.c.MaxRate)
			}
		}
		return
	}
	p.lambda += float64(p.stepSD * p.rng.NormFloat64()) // not fused either
	switch {
	case p.lambda <= 0:
		p.lambda = 0
		p.outage = true
	case p.lambda > p.c.MaxRate:
		p.lambda = p.c.MaxRate
	}
}

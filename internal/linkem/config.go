package linkem

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Config is the model of one direction of a link. The zero value is a
// perfect link: no delay, no loss, no rate limit. Each packet goes through
// the stages in the order of the fields below (see the package doc):
// outages, random loss, the bottleneck queue, then propagation.
type Config struct {
	// Outages are periods during which every packet offered is lost.
	Outages []Outage

	// Burst, if set, loses packets in bursts.
	Burst *GilbertElliott

	// Loss is the probability that a packet is lost, independently of
	// every other packet.
	Loss float64

	// Rate is the bottleneck's capacity in bits per second; 0 means
	// unlimited. Packets are serialised one after another at this rate,
	// so each waits for the ones ahead of it. At most one of Rate,
	// Cellular and Trace may be set.
	Rate float64

	// Cellular, if set, makes the bottleneck a Sprout-style stochastic
	// cellular link.
	Cellular *Cellular

	// Trace, if set, makes the bottleneck replay a packet-delivery trace.
	Trace *Trace

	// Queue is the bottleneck's drop-tail limit in packets, counting the
	// one being transmitted; 0 means DefaultQueue. It applies only when
	// Rate, Cellular or Trace is set.
	Queue int

	// Delay is the one-way propagation delay after the bottleneck.
	Delay time.Duration

	// Jitter is extra delay per packet, drawn uniformly from [0, Jitter).
	Jitter time.Duration

	// Reorder lets jitter deliver a packet before an earlier one. When
	// false (the default), a packet whose jitter would overtake an
	// earlier packet is held until that packet has been delivered.
	Reorder bool
}

// GilbertElliott is a two-state Markov model of bursty loss, evaluated
// once per packet: the packet is lost with the loss probability of the
// current state, then the state moves. In the long run the link is bad
// a fraction PGoodBad / (PGoodBad + PBadGood) of the packets, and a stay
// in the bad state lasts 1/PBadGood packets on average. With LossGood 0
// and LossBad 1 it is the Gilbert model: losses come in bursts of mean
// length 1/PBadGood.
type GilbertElliott struct {
	PGoodBad float64 // probability of moving from good to bad after a packet
	PBadGood float64 // probability of moving from bad to good after a packet
	LossGood float64 // loss probability in the good state
	LossBad  float64 // loss probability in the bad state
}

// LossRate returns the long-run fraction of packets the model loses.
func (g *GilbertElliott) LossRate() float64 {
	if g.PGoodBad+g.PBadGood == 0 {
		return g.LossGood // never leaves the good state it starts in
	}
	bad := g.PGoodBad / (g.PGoodBad + g.PBadGood)
	return bad*g.LossBad + (1-bad)*g.LossGood
}

// Cellular is Sprout's model of a cellular link (Winstein, Sivaraman and
// Balakrishnan, "Stochastic Forecasts Achieve High Throughput and Low
// Delay over Cellular Networks", NSDI 2013, section 3.1). Delivery
// opportunities, each able to carry [OpportunityBytes], arrive as a
// Poisson process of rate λ. λ follows a Brownian motion of noise power
// Sigma, clamped to [0, MaxRate]. When λ reaches 0 the link is in an
// outage: no opportunity arrives until it escapes, at EscapeRate per
// second (so an outage lasts an exponential time of mean 1/EscapeRate).
// Packets queue (drop-tail, [Config.Queue]) for opportunities.
//
// A zero field takes Sprout's value: Sigma [SproutSigma], MaxRate
// [SproutMaxRate], EscapeRate [SproutEscapeRate]. λ starts at
// InitialRate, or MaxRate/2 if that is 0.
//
// In continuous time a Brownian motion that leaves 0 returns to it at
// once, so the model must say where λ goes after an outage. With
// RestartRate 0 it restarts one Sprout tick ([SproutTick]) of Brownian
// motion away from 0, as Sprout's discretised model does; the link is then
// in an outage nearly half the time, in outages of about a second, a
// pessimistic prior rather than a typical network. A RestartRate above 0
// restarts λ there, which spaces outages out (200 packets per second
// gives an outage every ten seconds or so).
type Cellular struct {
	Sigma       float64 // packets per second per √second
	MaxRate     float64 // packets per second
	EscapeRate  float64 // per second
	InitialRate float64 // packets per second
	RestartRate float64 // packets per second
}

// withDefaults returns c with Sprout's values in its zero fields.
func (c Cellular) withDefaults() Cellular {
	if c.Sigma == 0 {
		c.Sigma = SproutSigma
	}
	if c.MaxRate == 0 {
		c.MaxRate = SproutMaxRate
	}
	if c.EscapeRate == 0 {
		c.EscapeRate = SproutEscapeRate
	}
	if c.InitialRate == 0 {
		c.InitialRate = c.MaxRate / 2
	}
	return c
}

// Outage is a period of total loss: from Start after the link starts,
// for Duration. If Every is not zero the outage repeats, starting again
// at Start + k·Every for every k ≥ 1.
type Outage struct {
	Start    time.Duration
	Duration time.Duration
	Every    time.Duration
}

// covers reports whether the outage includes the instant offset after the
// link's start.
func (o Outage) covers(offset time.Duration) bool {
	if offset < o.Start {
		return false
	}
	since := offset - o.Start
	if o.Every > 0 {
		since %= o.Every
	}
	return since < o.Duration
}

// errConfig is wrapped by every error Validate returns.
var errConfig = errors.New("linkem: invalid config")

// Validate reports whether c is a usable configuration. [NewModel],
// [NewPipe] and their SetConfig methods panic on a configuration that
// fails it.
func (c *Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Delay < 0:
		return bad("negative delay %v", c.Delay)
	case c.Jitter < 0:
		return bad("negative jitter %v", c.Jitter)
	case !isProbability(c.Loss):
		return bad("loss %v not in [0, 1]", c.Loss)
	case !(c.Rate >= 0) || math.IsInf(c.Rate, 0):
		return bad("rate %v not a finite non-negative number", c.Rate)
	case c.Queue < 0:
		return bad("negative queue %d", c.Queue)
	}
	n := 0
	if c.Rate > 0 {
		n++
	}
	if c.Cellular != nil {
		n++
	}
	if c.Trace != nil {
		n++
	}
	if n > 1 {
		return bad("more than one of rate, cellular and trace")
	}
	if err := c.validateParts(); err != nil {
		return bad("%v", err)
	}
	return nil
}

// validateParts checks the optional parts of c.
func (c *Config) validateParts() error {
	if g := c.Burst; g != nil {
		for _, p := range []float64{g.PGoodBad, g.PBadGood, g.LossGood, g.LossBad} {
			if !isProbability(p) {
				return fmt.Errorf("burst probability %v not in [0, 1]", p)
			}
		}
	}
	if cl := c.Cellular; cl != nil {
		for _, v := range []float64{cl.Sigma, cl.MaxRate, cl.EscapeRate, cl.InitialRate, cl.RestartRate} {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("cellular parameter %v not a finite non-negative number", v)
			}
		}
		if d := cl.withDefaults(); d.InitialRate > d.MaxRate || d.RestartRate > d.MaxRate {
			return fmt.Errorf("cellular initial or restart rate above the maximum %v", d.MaxRate)
		}
	}
	if c.Trace != nil && len(c.Trace.ms) == 0 {
		return errors.New("empty trace")
	}
	for _, o := range c.Outages {
		if o.Start < 0 || o.Duration <= 0 || o.Every < 0 || (o.Every > 0 && o.Every < o.Duration) {
			return fmt.Errorf("outage %+v: want start ≥ 0, duration > 0 and every 0 or ≥ duration", o)
		}
	}
	return nil
}

func isProbability(p float64) bool { return p >= 0 && p <= 1 }

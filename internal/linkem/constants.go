package linkem

import "time"

// Model constants: the parameters of the link models this package
// reproduces, from the papers and tools they come from.
const (
	// OpportunityBytes is what one delivery opportunity of a [Trace] or a
	// [Cellular] link can carry: one full-size Ethernet packet, as in the
	// Mahimahi and Cellsim trace format.
	OpportunityBytes = 1500

	// SproutSigma is the noise power of the Brownian motion that the rate
	// of Sprout's cellular model follows, in packets per second per
	// square root of a second (Winstein et al., NSDI 2013, section 3.1).
	SproutSigma = 200.0

	// SproutMaxRate is the highest rate of Sprout's model, in packets per
	// second (its inference grid spans 0 to 1000 packets per second).
	SproutMaxRate = 1000.0

	// SproutEscapeRate is the outage escape rate of Sprout's model: while
	// the rate is zero, the link leaves the outage at this rate, per
	// second, so an outage lasts 1/SproutEscapeRate seconds on average.
	SproutEscapeRate = 1.0

	// SproutTick is the interval at which Sprout's receiver evolves its
	// model. A link escaping an outage restarts the walk one tick of
	// Brownian motion away from zero, as Sprout's discretised model does.
	SproutTick = 20 * time.Millisecond
)

// Implementation constants.
const (
	// DefaultQueue is the drop-tail limit, in packets, of a bottleneck
	// whose [Config.Queue] is zero.
	DefaultQueue = 1000

	// CellularStep is the step at which a [Cellular] link's rate takes a
	// Brownian increment; between steps the rate is constant.
	CellularStep = time.Millisecond

	// MaxTraceMillis bounds a trace timestamp (about 24.8 days).
	MaxTraceMillis = 1<<31 - 1

	// preciseWindow is how long before a delivery a [Pipe]'s timer fires,
	// leaving the rest to a sleep in the kernel: more than the lateness
	// of Go's timers (up to 1 ms on Linux).
	preciseWindow = 2 * time.Millisecond
)

// Independent random streams of one seed, so that enabling one feature
// (say, loss) never changes the random choices of another (say, the
// cellular rate walk).
const (
	streamLoss uint64 = iota + 0x6c696e6b656d0000 // "linkem"
	streamJitter
	streamCellular
)

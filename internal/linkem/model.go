package linkem

import (
	"math/rand/v2"
	"time"
)

// Model decides the fate of each packet offered to one direction of an
// emulated link: when it arrives, or that it is lost and why. It is a pure
// core: time comes in as now, and the same configuration, seed and
// sequence of offers always give the same decisions.
//
// A Model is not safe for concurrent use.
type Model struct {
	cfg   Config
	seed  uint64
	start time.Time

	lossRNG   *rand.Rand
	jitterRNG *rand.Rand
	bad       bool // Gilbert–Elliott state
	down      bool // SetOutage
	neck      bottleneck

	last        time.Time // latest now offered
	lastDeliver time.Time // latest delivery scheduled
	stats       Stats
}

// Stats counts what a link did with the packets offered to it. Bytes are
// the packets' sizes as offered: for a [UDPRelay], each datagram's payload
// and its IP and UDP headers.
type Stats struct {
	Offered      uint64 // packets offered
	OfferedBytes uint64

	// Delivered counts, for a [Model], the packets it accepted: each will
	// arrive at the time Offer returned. For a [Pipe] it counts those
	// handed to deliver, and Pending those accepted and still on their
	// way.
	Delivered      uint64
	DeliveredBytes uint64
	Pending        int

	DroppedOutage uint64 // offered during an outage
	DroppedLoss   uint64 // lost to Config.Loss
	DroppedBurst  uint64 // lost to Config.Burst
	DroppedQueue  uint64 // arrived at a full bottleneck queue

	// MaxQueueDelay is the longest time a packet spent in the
	// bottleneck, waiting and being transmitted.
	MaxQueueDelay time.Duration
}

// Bytes returns the bytes offered to the link, lost ones included: what
// the sender put on the wire.
func (s Stats) Bytes() int64 { return int64(s.OfferedBytes) }

// Dropped returns the number of packets lost for any reason.
func (s Stats) Dropped() uint64 {
	return s.DroppedOutage + s.DroppedLoss + s.DroppedBurst + s.DroppedQueue
}

// NewModel returns a model of a link configured by cfg, starting at start
// (the origin of cfg.Outages and of a trace). It panics if cfg is not
// valid ([Config.Validate]).
func NewModel(cfg Config, seed uint64, start time.Time) *Model {
	m := &Model{
		seed:        seed,
		start:       start,
		lossRNG:     rand.New(rand.NewPCG(seed, streamLoss)),
		jitterRNG:   rand.New(rand.NewPCG(seed, streamJitter)),
		last:        start,
		lastDeliver: start,
	}
	m.SetConfig(start, cfg)
	return m
}

// SetConfig replaces the model's configuration from now on. Packets
// already accepted keep their delivery times, and without Reorder later
// packets still never overtake them. A new bottleneck starts empty at
// now: a trace replays from its beginning and a cellular link's rate from
// its initial rate. Outages keep counting from the model's start. It
// panics if cfg is not valid.
func (m *Model) SetConfig(now time.Time, cfg Config) {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	now = m.advance(now)
	m.cfg = cfg
	if cfg.Burst == nil {
		m.bad = false
	}
	queue := cfg.Queue
	if queue == 0 {
		queue = DefaultQueue
	}
	switch {
	case cfg.Rate > 0:
		m.neck = newRateLink(cfg.Rate, queue)
	case cfg.Cellular != nil:
		m.neck = newOpportunityLink(newCellularProcess(*cfg.Cellular, m.seed, now), queue)
	case cfg.Trace != nil:
		m.neck = newOpportunityLink(newTraceSource(cfg.Trace, now), queue)
	default:
		m.neck = noBottleneck{}
	}
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// SetOutage starts (on) or ends (off) an outage on demand: while it lasts
// every packet offered is lost, as in a scheduled [Outage].
func (m *Model) SetOutage(on bool) { m.down = on }

// Stats returns the counts so far.
func (m *Model) Stats() Stats { return m.stats }

// advance records now as the latest time, treating a time earlier than
// one already offered as that one.
func (m *Model) advance(now time.Time) time.Time {
	if now.Before(m.last) {
		return m.last
	}
	m.last = now
	return now
}

// Offer decides the fate of a packet of size bytes sent at now: the time
// it arrives at the far end, or ok false if it is lost. Offers must come
// with non-decreasing now; an earlier now counts as the latest one seen.
func (m *Model) Offer(now time.Time, size int) (deliverAt time.Time, ok bool) {
	now = m.advance(now)
	m.stats.Offered++
	m.stats.OfferedBytes += uint64(size)
	if reason := m.lose(now); reason != nil {
		*reason++
		return time.Time{}, false
	}
	dep, ok := m.neck.admit(now, size)
	if !ok {
		m.stats.DroppedQueue++
		return time.Time{}, false
	}
	m.stats.MaxQueueDelay = max(m.stats.MaxQueueDelay, dep.Sub(now))
	at := dep.Add(m.cfg.Delay)
	if m.cfg.Jitter > 0 {
		at = at.Add(time.Duration(m.jitterRNG.Int64N(int64(m.cfg.Jitter))))
	}
	if !m.cfg.Reorder && at.Before(m.lastDeliver) {
		at = m.lastDeliver
	}
	if at.After(m.lastDeliver) {
		m.lastDeliver = at
	}
	m.stats.Delivered++
	m.stats.DeliveredBytes += uint64(size)
	return at, true
}

// lose applies the loss stages to a packet at now and returns the counter
// of the reason it is lost, or nil if it survives them. The
// Gilbert–Elliott chain moves once for every packet that reaches it.
func (m *Model) lose(now time.Time) *uint64 {
	if m.down || m.inOutage(now) {
		return &m.stats.DroppedOutage
	}
	if g := m.cfg.Burst; g != nil {
		p, move := g.LossGood, g.PGoodBad
		if m.bad {
			p, move = g.LossBad, g.PBadGood
		}
		lost := m.lossRNG.Float64() < p
		if m.lossRNG.Float64() < move {
			m.bad = !m.bad
		}
		if lost {
			return &m.stats.DroppedBurst
		}
	}
	if m.cfg.Loss > 0 && m.lossRNG.Float64() < m.cfg.Loss {
		return &m.stats.DroppedLoss
	}
	return nil
}

func (m *Model) inOutage(now time.Time) bool {
	off := now.Sub(m.start)
	for _, o := range m.cfg.Outages {
		if o.covers(off) {
			return true
		}
	}
	return false
}

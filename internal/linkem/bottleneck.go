package linkem

import (
	"time"
)

// A bottleneck is the queue and server in the middle of a link. admit
// decides, at the packet's arrival now, when the packet will have left the
// bottleneck, or that the drop-tail queue is full. Packets leave in the
// order they arrive, and a packet's departure never depends on later
// packets, which is why it can be decided at once.
type bottleneck interface {
	admit(now time.Time, size int) (departure time.Time, ok bool)
}

// noBottleneck is an infinitely fast link.
type noBottleneck struct{}

func (noBottleneck) admit(now time.Time, _ int) (time.Time, bool) { return now, true }

// fifo holds the departure times of the packets in a bottleneck, oldest
// first, to enforce the drop-tail limit.
type fifo struct {
	limit int
	deps  []time.Time // non-decreasing
	head  int
}

// full drops the packets gone by now and reports whether the queue is
// at its limit.
func (q *fifo) full(now time.Time) bool {
	for q.head < len(q.deps) && !q.deps[q.head].After(now) {
		q.head++
	}
	if q.head > 64 && q.head*2 > len(q.deps) {
		q.deps = append(q.deps[:0], q.deps[q.head:]...)
		q.head = 0
	}
	return len(q.deps)-q.head >= q.limit
}

func (q *fifo) push(dep time.Time) { q.deps = append(q.deps, dep) }

// rateLink serialises packets at a constant bit rate.
type rateLink struct {
	q       fifo
	bitTime float64   // nanoseconds per bit
	last    time.Time // departure of the latest admitted packet
}

func newRateLink(rate float64, queue int) *rateLink {
	return &rateLink{q: fifo{limit: queue}, bitTime: 1e9 / rate}
}

func (r *rateLink) admit(now time.Time, size int) (time.Time, bool) {
	if r.q.full(now) {
		return time.Time{}, false
	}
	start := now
	if r.last.After(start) {
		start = r.last
	}
	// Truncating keeps every queueing delay within its exact bound.
	r.last = start.Add(time.Duration(float64(size) * 8 * r.bitTime))
	r.q.push(r.last)
	return r.last, true
}

// opportunities is an endless, non-decreasing sequence of delivery
// opportunities, each able to carry OpportunityBytes.
type opportunities interface {
	// next returns the next opportunity not yet returned.
	next() time.Time
	// nextFrom returns the first opportunity not yet returned that is at
	// or after t, skipping (wasting) the earlier ones.
	nextFrom(t time.Time) time.Time
}

// opportunityLink serves packets in delivery opportunities, the way
// Mahimahi's link shell does: each opportunity carries OpportunityBytes of
// the queue's head, so several small packets can share one and a large
// one spans several; a packet leaves at the opportunity carrying its last
// byte. Bytes of an opportunity that the queue cannot use are lost.
type opportunityLink struct {
	q      fifo
	src    opportunities
	cur    time.Time // the latest opportunity used
	credit int       // bytes of cur still unused
}

func newOpportunityLink(src opportunities, queue int) *opportunityLink {
	return &opportunityLink{q: fifo{limit: queue}, src: src}
}

func (l *opportunityLink) admit(now time.Time, size int) (time.Time, bool) {
	if l.q.full(now) {
		return time.Time{}, false
	}
	if l.credit == 0 || l.cur.Before(now) {
		l.cur, l.credit = l.src.nextFrom(now), OpportunityBytes
	}
	for size > l.credit {
		size -= l.credit
		l.cur, l.credit = l.src.next(), OpportunityBytes
	}
	l.credit -= size
	l.q.push(l.cur)
	return l.cur, true
}

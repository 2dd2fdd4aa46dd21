package stream

import (
	"slices"
	"time"
)

// receiver is the receiving half of a stream: the bytes that arrived out
// of order, those ready in order, and what to acknowledge.
//
// receiver is not safe for concurrent use.
type receiver struct {
	next     uint64    // the first byte not yet arrived in order
	segs     []segment // bytes beyond next, sorted and disjoint
	segBytes int
	ready    []byte // in order, not yet read
	readBuf  []byte // what the last read returned

	recvd     ranges // packet numbers received (the newest maxRecvRanges runs)
	largest   uint64
	largestAt time.Time // when largest arrived
	pending   bool      // a packet that asks for an acknowledgement has none yet
	elicited  int       // such packets since the last acknowledgement
	ackNow    bool
	ackAt     time.Time // when the pending acknowledgement is due

	// One-way delays: the arrival time less the send time the packet
	// carries (the two clocks' offset included), the least in the current
	// and the previous half of owdWindow, and the excess of largest's.
	start             time.Time
	owdCur, owdPrev   time.Duration
	haveCur, havePrev bool
	owdAt             time.Time
	queue             time.Duration
	maxLen            int // the largest packet received
}

// owdSizeSlack: a packet within this many bytes of the largest counts for
// the one-way delays.
const owdSizeSlack = 64

// segment is a run of bytes at off.
type segment struct {
	off  uint64
	data []byte
}

func (r *receiver) init(now time.Time) { r.start, r.owdAt = now, now }

// owd folds in the one-way delay of a packet sent at sent (sender's
// clock) that arrived at now, and returns how much above the least
// recent one it is.
func (r *receiver) owd(now time.Time, sent time.Duration) time.Duration {
	d := now.Sub(r.start) - sent
	if now.Sub(r.owdAt) >= owdWindow/2 {
		r.owdPrev, r.havePrev = r.owdCur, r.haveCur
		r.haveCur, r.owdAt = false, now
	}
	if !r.haveCur || d < r.owdCur {
		r.owdCur, r.haveCur = d, true
	}
	base := r.owdCur
	if r.havePrev && r.owdPrev < base {
		base = r.owdPrev
	}
	return d - base
}

// accept checks p's data against the window and takes it. It changes
// nothing if it returns an error.
func (r *receiver) accept(p *Packet) error {
	if !p.HasData || len(p.Data.Bytes) == 0 {
		return nil
	}
	off, b := p.Data.Offset, p.Data.Bytes
	end := off + uint64(len(b))
	if end > r.next+Window {
		return ErrBeyondWindow
	}
	if end <= r.next {
		return nil // all of it arrived before
	}
	if off < r.next {
		b, off = b[r.next-off:], r.next
	}
	if off == r.next {
		r.ready = append(r.ready, b...)
		r.next = end
		r.drain()
		return nil
	}
	return r.insert(off, b)
}

// insert keeps b, at off beyond next, for later, trimming what is held
// already.
func (r *receiver) insert(off uint64, b []byte) error {
	i, _ := slices.BinarySearchFunc(r.segs, off, func(s segment, off uint64) int {
		switch {
		case s.off+uint64(len(s.data)) <= off:
			return -1
		case s.off > off:
			return 1
		}
		return 0
	})
	// Cut b into the pieces the held segments do not cover.
	var add []segment
	for len(b) > 0 {
		if i < len(r.segs) && r.segs[i].off <= off {
			have := r.segs[i].off + uint64(len(r.segs[i].data)) - off
			if have >= uint64(len(b)) {
				break
			}
			b, off = b[have:], off+have
			i++
			continue
		}
		n := uint64(len(b))
		if i < len(r.segs) && r.segs[i].off < off+n {
			n = r.segs[i].off - off
		}
		add = append(add, segment{off, append([]byte(nil), b[:n]...)})
		b, off = b[n:], off+n
	}
	if len(r.segs)+len(add) > maxSegments {
		return ErrFragmented
	}
	for _, s := range add {
		j, _ := slices.BinarySearchFunc(r.segs, s.off, func(x segment, off uint64) int {
			if x.off < off {
				return -1
			}
			return 1
		})
		r.segs = slices.Insert(r.segs, j, s)
		r.segBytes += len(s.data)
	}
	return nil
}

// drain moves the held segments that now continue the bytes in order.
func (r *receiver) drain() {
	k := 0
	for k < len(r.segs) && r.segs[k].off <= r.next {
		s := r.segs[k]
		if end := s.off + uint64(len(s.data)); end > r.next {
			r.ready = append(r.ready, s.data[r.next-s.off:]...)
			r.next = end
		}
		r.segBytes -= len(s.data)
		k++
	}
	if k > 0 {
		clear(r.segs[:k])
		r.segs = r.segs[k:]
	}
}

// read returns the bytes ready in order.
func (r *receiver) read() []byte {
	if len(r.ready) == 0 {
		return nil
	}
	r.readBuf, r.ready = r.ready, r.readBuf[:0]
	return r.readBuf
}

// received records packet p, accepted, arriving at now: what to
// acknowledge, and when.
func (r *receiver) received(now time.Time, p *Packet, size int) {
	first := r.recvd.len() == 0
	dup := r.recvd.contains(p.Number)
	gap := !first && p.Number != r.largest+1 && !dup
	r.recvd.add(p.Number, p.Number+1)
	r.recvd.dropOldest(maxRecvRanges)
	if first || p.Number > r.largest {
		r.largest, r.largestAt = p.Number, now
		// A packet's one-way delay includes its serialisation at the
		// bottleneck: only packets about as large as the largest count,
		// or a small one would set a base that every full one exceeds.
		if size > r.maxLen+owdSizeSlack {
			// Larger packets than any before: the base the smaller ones
			// set is below what a full one can take.
			r.haveCur, r.havePrev = false, false
		}
		r.maxLen = max(r.maxLen, size)
		if p.HasTime && size+owdSizeSlack >= r.maxLen {
			r.queue = r.owd(now, p.Time)
		}
	}
	if !p.elicits() {
		return
	}
	r.pending = true
	r.elicited++
	if r.elicited >= ackEvery || gap || dup {
		r.ackNow = true // reordering or loss: tell the sender at once
	} else if r.ackAt.IsZero() {
		r.ackAt = now.Add(MaxAckDelay)
	}
}

// forget stops acknowledging the packets up to n, which an
// acknowledgement the peer received named already (RFC 9000 section
// 13.2.4), keeping the largest: the ranges of a lossy path's old gaps
// would otherwise ride in every Ack frame, up to MaxAckRanges of them.
func (r *receiver) forget(n uint64) {
	r.recvd.dropBelow(min(n+1, r.largest))
}

// ackDue reports whether an acknowledgement must go at now, alone if
// need be.
func (r *receiver) ackDue(now time.Time) bool {
	return r.pending && (r.ackNow || !r.ackAt.IsZero() && !now.Before(r.ackAt))
}

// ack builds the acknowledgement of what was received, as of now.
func (r *receiver) ack(now time.Time) Ack {
	a := Ack{Largest: r.largest, Delay: now.Sub(r.largestAt), Queue: r.queue}
	for i := r.recvd.len() - 1; i >= 0 && len(a.Ranges) < MaxAckRanges; i-- {
		sp := r.recvd.r[i]
		a.Ranges = append(a.Ranges, Span{sp.lo, sp.hi - 1})
	}
	return a
}

// ackSent records that the acknowledgement went.
func (r *receiver) ackSent() {
	r.pending, r.elicited, r.ackNow, r.ackAt = false, 0, false, time.Time{}
}

// deadline returns when a delayed acknowledgement is due, or zero.
func (r *receiver) deadline() time.Time {
	if !r.pending {
		return time.Time{}
	}
	return r.ackAt
}

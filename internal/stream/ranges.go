package stream

// ranges is a set of disjoint, non-adjacent half-open intervals [lo, hi)
// of uint64, kept sorted: the packet numbers received, the stream bytes
// acknowledged beyond the cumulative point, the bytes to send again.
// Its size is its caller's to bound.
//
// ranges is not safe for concurrent use.
type ranges struct {
	r []span
}

// span is one interval [lo, hi).
type span struct{ lo, hi uint64 }

// add puts [lo, hi) into the set, merging what it touches.
func (s *ranges) add(lo, hi uint64) {
	if lo >= hi {
		return
	}
	i := s.search(lo) // the first span ending at or after lo
	j := i
	for j < len(s.r) && s.r[j].lo <= hi {
		lo, hi = min(lo, s.r[j].lo), max(hi, s.r[j].hi)
		j++
	}
	if i == j {
		s.r = append(s.r, span{})
		copy(s.r[i+1:], s.r[i:])
		s.r[i] = span{lo, hi}
		return
	}
	s.r[i] = span{lo, hi}
	s.r = append(s.r[:i+1], s.r[j:]...)
}

// remove takes [lo, hi) out of the set.
func (s *ranges) remove(lo, hi uint64) {
	if lo >= hi {
		return
	}
	out := s.r[:0:0]
	changed := false
	for _, sp := range s.r {
		if sp.hi <= lo || sp.lo >= hi {
			out = append(out, sp)
			continue
		}
		changed = true
		if sp.lo < lo {
			out = append(out, span{sp.lo, lo})
		}
		if sp.hi > hi {
			out = append(out, span{hi, sp.hi})
		}
	}
	if changed {
		s.r = out
	}
}

// search returns the index of the first span whose hi is at or after x.
func (s *ranges) search(x uint64) int {
	lo, hi := 0, len(s.r)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.r[m].hi < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// contains reports whether x is in the set.
func (s *ranges) contains(x uint64) bool {
	i := s.search(x + 1)
	return i < len(s.r) && s.r[i].lo <= x && x < s.r[i].hi
}

// first returns the lowest span; ok is false for an empty set.
func (s *ranges) first() (span, bool) {
	if len(s.r) == 0 {
		return span{}, false
	}
	return s.r[0], true
}

// dropBelow removes everything below x.
func (s *ranges) dropBelow(x uint64) {
	i := 0
	for i < len(s.r) && s.r[i].hi <= x {
		i++
	}
	s.r = s.r[i:]
	if len(s.r) > 0 && s.r[0].lo < x {
		s.r[0].lo = x
	}
}

// dropOldest keeps the newest n spans.
func (s *ranges) dropOldest(n int) {
	if len(s.r) > n {
		s.r = append(s.r[:0], s.r[len(s.r)-n:]...)
	}
}

// len returns the number of spans.
func (s *ranges) len() int { return len(s.r) }

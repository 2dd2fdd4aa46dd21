package ssp

import "time"

// msClock converts [time.Time] readings to Mosh's millisecond clock: whole
// milliseconds since an arbitrary epoch (the creation of the [Transport]).
// Only differences and values mod 65536 ever leave the process, so the
// epoch is invisible to the peer.
type msClock struct {
	epoch time.Time
}

// ms returns the whole milliseconds from the epoch to now; readings before
// the epoch count as 0.
func (c msClock) ms(now time.Time) uint64 {
	d := now.Sub(c.epoch)
	if d < 0 {
		return 0
	}
	return uint64(d / time.Millisecond)
}

// timestamp16 returns the 16-bit wire timestamp of the millisecond reading
// ms: ms mod 65536, except that the "none" value [NoTimestamp] is sent as 0.
func timestamp16(ms uint64) uint16 {
	ts := uint16(ms)
	if ts == NoTimestamp {
		ts = 0
	}
	return ts
}

// timestampDiff returns newer − older modulo 65536, in milliseconds.
func timestampDiff(newer, older uint16) time.Duration {
	return time.Duration(newer-older) * time.Millisecond
}

// Package netwatch tells a client when its machine's network changed: an
// interface came up or went down, an address or a route was added or
// removed, or the machine woke from sleep. These are the moments a link
// that was gone may be back, so a client that sends at once (rather than
// at its next heartbeat, up to 3 s later) finds out within a round trip.
//
// The sources are the operating system's own notifications: a netlink
// route socket on Linux, a routing socket (AF_ROUTE) on the BSDs and
// macOS, NotifyUnicastIpAddressChange on Windows; and everywhere a sleep
// detector, which notices that the wall clock moved further than the
// monotonic clock (which stops while the machine sleeps). Bursts are
// coalesced: the first change is reported at once and the rest of a burst
// once at its end, so a flapping route cannot make a client flood the
// path.
package netwatch

import (
	"context"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
)

const (
	// Quiet is how long after a reported change further changes are held
	// back and reported together, once, at its end.
	Quiet = 100 * time.Millisecond
	// sleepCheck is how often the sleep detector compares the clocks, and
	// sleepSlack how far they may drift apart before it reports a sleep.
	sleepCheck = 2 * time.Second
	sleepSlack = 2 * time.Second
)

// Watch reports changes of the local network on the returned channel
// until ctx is done, then closes it. logf receives why a source could not
// be watched (the others still are); nil discards it.
func Watch(ctx context.Context, logf logf.Func) <-chan struct{} {
	raw := make(chan struct{}, 1)
	if err := watchOS(ctx, raw); err != nil {
		logf.Printf("netwatch: %v (only sleep is detected)", err)
	}
	go watchSleep(ctx, raw)
	out := make(chan struct{}, 1)
	go coalesce(ctx, raw, out, Quiet)
	return out
}

// notify records a change without blocking: one pending change stands for
// any number.
func notify(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// coalesce forwards changes from in to out: the first at once, then at
// most one more per quiet period, for all that came during it. It closes
// out when ctx is done.
func coalesce(ctx context.Context, in <-chan struct{}, out chan<- struct{}, quiet time.Duration) {
	defer close(out)
	var hold <-chan time.Time // non-nil during a quiet period
	pending := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-in:
			if hold != nil {
				pending = true
				continue
			}
			notify(out)
			hold = time.After(quiet)
		case <-hold:
			hold = nil
			if pending {
				pending = false
				notify(out)
				hold = time.After(quiet)
			}
		}
	}
}

// sleepDetector notices a sleep: between two checks, the wall clock moved
// more than the monotonic clock did.
type sleepDetector struct {
	wall time.Time     // the wall clock at the last check
	mono time.Duration // the monotonic clock at the last check
}

// check takes the clocks' readings now and reports whether the machine
// slept since the last check.
func (d *sleepDetector) check(wall time.Time, mono time.Duration) bool {
	slept := !d.wall.IsZero() && wall.Sub(d.wall)-(mono-d.mono) > sleepSlack
	d.wall, d.mono = wall, mono
	return slept
}

// watchSleep runs the sleep detector until ctx is done.
func watchSleep(ctx context.Context, out chan<- struct{}) {
	start := time.Now()
	reading := func() (time.Time, time.Duration) {
		now := time.Now()
		return now.Round(0), now.Sub(start) // wall only; monotonic
	}
	var d sleepDetector
	d.check(reading())
	t := time.NewTicker(sleepCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if d.check(reading()) {
				notify(out)
			}
		}
	}
}

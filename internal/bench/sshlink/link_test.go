package sshlink

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
)

// delayLink is a test [Link]: it delivers every packet after a fixed
// one-way delay, except that it drops each one independently with
// probability loss, drawn from a seeded generator.
type delayLink struct {
	deliver func([]byte)
	delay   time.Duration

	wake chan struct{} // a packet was queued; buffered, capacity 1
	stop chan struct{} // closed by close
	done chan struct{} // closed when run returns

	mu    sync.Mutex // guards following
	loss  float64
	rng   *rand.Rand
	queue []timedPacket // in order of due time, since the delay is fixed
}

type timedPacket struct {
	b   []byte
	due time.Time
}

func newDelayLink(deliver func([]byte), delay time.Duration, loss float64, seed uint64) *delayLink {
	l := &delayLink{
		deliver: deliver,
		delay:   delay,
		loss:    loss,
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		rng:     rand.New(rand.NewPCG(seed, 0x5517)),
	}
	go l.run()
	return l
}

// setLoss changes the loss probability.
func (l *delayLink) setLoss(loss float64) {
	l.mu.Lock()
	l.loss = loss
	l.mu.Unlock()
}

// Send queues b, or drops it.
func (l *delayLink) Send(b []byte) {
	l.mu.Lock()
	lost := l.rng.Float64() < l.loss
	if !lost {
		l.queue = append(l.queue, timedPacket{b: b, due: time.Now().Add(l.delay)})
	}
	l.mu.Unlock()
	if !lost {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// run delivers packets as they fall due; one timer, re-armed for the head
// of the queue.
func (l *delayLink) run() {
	defer close(l.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		b, wait := l.next(time.Now())
		if b != nil {
			l.deliver(b)
			continue
		}
		timer.Reset(wait)
		select {
		case <-timer.C:
		case <-l.wake:
		case <-l.stop:
			return
		}
	}
}

// next pops the head packet if it is due, or says how long until it is.
func (l *delayLink) next(now time.Time) ([]byte, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) == 0 {
		return nil, time.Hour
	}
	if p := l.queue[0]; !now.Before(p.due) {
		l.queue = l.queue[1:]
		return p.b, 0
	}
	return nil, l.queue[0].due.Sub(now)
}

func (l *delayLink) close() {
	close(l.stop)
	<-l.done
}

// newTestNet builds a Net whose links each have the given one-way delay
// and loss, and closes it and stops the links when the test ends.
func newTestNet(t *testing.T, delay time.Duration, loss float64, seed uint64) *Net {
	t.Helper()
	return newNetOf(t, seed, func(deliver func([]byte), s uint64) (Link, func()) {
		l := newDelayLink(deliver, delay, loss, s)
		return l, l.close
	})
}

// newPipeNet builds a Net whose links are linkem pipes modelled by cfg
// each way, as the benchmarks' are, and closes it and the pipes when the
// test ends.
func newPipeNet(t *testing.T, cfg linkem.Config, seed uint64) *Net {
	t.Helper()
	return newNetOf(t, seed, func(deliver func([]byte), s uint64) (Link, func()) {
		p := linkem.NewPipe(cfg, s, deliver)
		return p, func() { p.Close() }
	})
}

// newNetOf builds a Net whose two links link makes (seeded seed and
// seed+1), and closes it and the links when the test ends.
func newNetOf(t *testing.T, seed uint64, link func(deliver func([]byte), seed uint64) (Link, func())) *Net {
	t.Helper()
	var closers []func()
	mk := func(s uint64) func(func([]byte)) Link {
		return func(deliver func([]byte)) Link {
			l, closeLink := link(deliver, s)
			closers = append(closers, closeLink)
			return l
		}
	}
	n, err := NewNet(mk(seed), mk(seed+1))
	t.Cleanup(func() {
		for _, c := range closers {
			c()
		}
	})
	if err != nil {
		t.Fatalf("NewNet: %v", err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// checkLeaks fails the test if, shortly after the test's cleanups, more
// goroutines run than before it. Call it first, so that its check runs
// last.
func checkLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("%d goroutines before the test, %d after:\n%s", before, runtime.NumGoroutine(), buf)
				return
			}
			time.Sleep(10 * time.Millisecond) // polling: goroutines end on their own time
		}
	})
}

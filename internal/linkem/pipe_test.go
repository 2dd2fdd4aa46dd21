package linkem

import (
	"bytes"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// goroutineLeakCheck fails the test if a pipe or relay goroutine is still
// running when it ends.
func goroutineLeakCheck(t *testing.T) {
	t.Cleanup(func() {
		buf := make([]byte, 1<<20)
		for range 10000 {
			n := runtime.Stack(buf, true)
			if !bytes.Contains(buf[:n], []byte("linkem.(*Pipe).run")) && !bytes.Contains(buf[:n], []byte("linkem.(*UDPRelay).read")) {
				return
			}
			runtime.Gosched()
		}
		n := runtime.Stack(buf, true)
		t.Errorf("linkem goroutines leaked:\n%s", buf[:n])
	})
}

// arrival is a packet as a pipe delivered it.
type arrival struct {
	at time.Time
	b  []byte
}

// recorder collects a pipe's deliveries.
type recorder struct {
	mu  sync.Mutex
	got []arrival
	ch  chan struct{} // signalled on each delivery
}

func newRecorder() *recorder { return &recorder{ch: make(chan struct{}, 1<<10)} }

func (r *recorder) deliver(b []byte) {
	r.mu.Lock()
	r.got = append(r.got, arrival{time.Now(), b})
	r.mu.Unlock()
	r.ch <- struct{}{}
}

func (r *recorder) arrivals() []arrival {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// TestPipeVirtualTime runs a pipe on synctest's clock, where delivery
// times are exact.
func TestPipeVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 50 * time.Millisecond
		rec := newRecorder()
		p := NewPipe(Config{Delay: delay, Jitter: 20 * time.Millisecond}, 1, rec.deliver)
		var sent []time.Time
		for i := range 100 {
			sent = append(sent, time.Now())
			p.Send([]byte{byte(i)})
			time.Sleep(time.Duration(i%5) * time.Millisecond) // virtual
		}
		time.Sleep(delay + 20*time.Millisecond)
		synctest.Wait()
		got := rec.arrivals()
		if len(got) != len(sent) {
			t.Fatalf("%d packets delivered, want %d", len(got), len(sent))
		}
		for i, a := range got {
			if a.b[0] != byte(i) {
				t.Fatalf("delivery %d carries packet %d: out of order", i, a.b[0])
			}
			if d := a.at.Sub(sent[i]); d < delay || d >= delay+20*time.Millisecond {
				t.Errorf("packet %d took %v, want [%v, %v)", i, d, delay, delay+20*time.Millisecond)
			}
		}
		s := p.Stats()
		if s.Offered != 100 || s.Delivered != 100 || s.DeliveredBytes != 100 || s.Pending != 0 {
			t.Errorf("Stats = %+v", s)
		}
		p.Close()
		p.Close() // idempotent
		p.Send([]byte{1})
	})
}

func TestPipeOutageAndConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder()
		p := NewPipe(Config{Delay: 10 * time.Millisecond}, 1, rec.deliver)
		defer p.Close()
		p.Send([]byte("a"))
		p.SetOutage(true)
		p.Send([]byte("lost"))
		p.SetOutage(false)
		p.SetConfig(Config{Delay: 30 * time.Millisecond})
		start := time.Now()
		p.Send([]byte("b"))
		time.Sleep(time.Second)
		got := rec.arrivals()
		if len(got) != 2 || string(got[0].b) != "a" || string(got[1].b) != "b" || got[1].at.Sub(start) != 30*time.Millisecond {
			t.Errorf("arrivals %v, want a then b after 30ms", got)
		}
		if s := p.Stats(); s.DroppedOutage != 1 {
			t.Errorf("Stats = %+v, want 1 dropped by outage", s)
		}
	})
}

func TestPipeCloseDiscards(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder()
		p := NewPipe(Config{Delay: time.Hour}, 1, rec.deliver)
		for range 10 {
			p.Send(make([]byte, 100))
		}
		if s := p.Stats(); s.Pending != 10 {
			t.Errorf("Pending = %d, want 10", s.Pending)
		}
		p.Close()
		if s := p.Stats(); s.Pending != 0 || s.Delivered != 0 {
			t.Errorf("after Close: Stats = %+v, want nothing pending or delivered", s)
		}
	})
}

// TestPipeRealTime checks the delivery times a pipe achieves on the real
// clock: never early, late by well under a millisecond typically. On an
// idle machine the median is about 0.1 ms (0.6 ms on Go's timers alone).
// A loaded 2-CPU machine running -race and parallel test packages is far
// from idle, and a burst of load can hold a whole measurement back, so it
// is taken up to three times: a coarse tick or a drifting schedule fails
// every one of them.
func TestPipeRealTime(t *testing.T) {
	goroutineLeakCheck(t)
	var median, worst time.Duration
	for try := range 3 {
		median, worst = pipeLateness(t)
		t.Logf("try %d: lateness median %v, max %v", try+1, median, worst)
		if median <= 2*time.Millisecond && worst <= 50*time.Millisecond {
			return
		}
	}
	t.Errorf("lateness median %v, max %v in each of three tries; want under 2 ms and 50 ms", median, worst)
}

// pipeLateness sends 100 packets through a pipe of 20 ms, one a
// millisecond, and returns how late the median and the latest were
// delivered. It fails t on a packet lost, reordered or early.
func pipeLateness(t *testing.T) (median, worst time.Duration) {
	t.Helper()
	const (
		delay = 20 * time.Millisecond
		n     = 100
	)
	rec := newRecorder()
	p := NewPipe(Config{Delay: delay}, 1, rec.deliver)
	defer p.Close()
	var sent []time.Time
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for i := range n {
		<-tick.C
		sent = append(sent, time.Now())
		p.Send([]byte{byte(i)})
	}
	timeout := time.After(5 * time.Second)
	for range n {
		select {
		case <-rec.ch:
		case <-timeout:
			t.Fatalf("only %d of %d packets delivered within 5 s", len(rec.arrivals()), n)
		}
	}
	var late []time.Duration
	for i, a := range rec.arrivals() {
		if a.b[0] != byte(i) {
			t.Fatalf("delivery %d carries packet %d: out of order", i, a.b[0])
		}
		d := a.at.Sub(sent[i]) - delay
		if d < 0 {
			t.Errorf("packet %d delivered %v early", i, -d)
		}
		late = append(late, d)
	}
	slices.Sort(late)
	return late[n/2], late[n-1]
}

package linkem

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestRateQueueSaturated(t *testing.T) {
	for _, tc := range []struct {
		rate  float64
		queue int
	}{
		{1e6, 100}, // cs244-3g
		{25e6, 0},  // cs244-wifi, default queue
		{64e3, 5},
	} {
		t.Run(fmt.Sprintf("%s-q%d", FormatRate(tc.rate), tc.queue), func(t *testing.T) {
			const size = 1500
			queue := tc.queue
			if queue == 0 {
				queue = DefaultQueue
			}
			tx := float64(size*8) / tc.rate                   // seconds per packet
			gap := time.Duration(tx / 3 * 1e9)                // offer at three times the rate
			n := int(math.Max(3*float64(queue)+300, 20/tx*3)) // past the queue filling, ≥ 20 s of link time
			bound := time.Duration(float64(queue) * tx * 1e9) // the drop-tail queue's longest delay
			m := NewModel(Config{Rate: tc.rate, Queue: tc.queue}, 1, t0)
			var deps []time.Time // of accepted packets, in order
			head := 0
			for i := range n {
				now := t0.Add(time.Duration(i) * gap)
				for head < len(deps) && !deps[head].After(now) {
					head++
				}
				occupancy := len(deps) - head
				at, ok := m.Offer(now, size)
				if ok != (occupancy < queue) {
					t.Fatalf("packet %d: ok = %v with %d of %d queued", i, ok, occupancy, queue)
				}
				if !ok {
					continue
				}
				if d := at.Sub(now); d > bound || d <= 0 {
					t.Fatalf("packet %d: queueing delay %v outside (0, %v]", i, d, bound)
				}
				deps = append(deps, at)
			}
			// Throughput: the link never idles once busy, so the k-th
			// packet leaves k transmission times after the first offer.
			span := deps[len(deps)-1].Sub(t0).Seconds()
			got := float64(len(deps)*size*8) / span
			if math.Abs(got-tc.rate)/tc.rate > 0.001 {
				t.Errorf("throughput %.0f bit/s, want %.0f ± 0.1%%", got, tc.rate)
			}
			s := m.Stats()
			if s.DroppedQueue == 0 || s.MaxQueueDelay > bound || s.MaxQueueDelay < bound-time.Duration(tx*1e9) {
				t.Errorf("Stats = %+v, want queue drops and MaxQueueDelay within one packet of %v", s, bound)
			}
		})
	}
}

func TestRateWorkConserving(t *testing.T) {
	const rate = 2e6
	m := NewModel(Config{Rate: rate, Delay: ms(30)}, 1, t0)
	var last time.Time
	now := t0
	for i := range 2000 {
		size := 40 + (i*7919)%1460
		now = now.Add(time.Duration(i%13) * 500 * time.Microsecond)
		at, ok := m.Offer(now, size)
		start := now
		if last.After(start) {
			start = last
		}
		want := start.Add(time.Duration(float64(size*8) / rate * 1e9))
		if !ok || at.Sub(want.Add(ms(30))).Abs() > time.Nanosecond {
			t.Fatalf("packet %d (%d bytes at %v): delivered %v, want %v", i, size, now.Sub(t0), at.Sub(t0), want.Add(ms(30)).Sub(t0))
		}
		last = at.Add(-ms(30))
	}
}

func TestTraceOpportunities(t *testing.T) {
	tr, err := NewTrace([]int64{5, 10, 10, 20})
	if err != nil {
		t.Fatal(err)
	}
	type offer struct {
		at   float64 // ms
		size int
		want float64 // departure in ms; -1 for a queue drop
	}
	for _, tc := range []struct {
		name   string
		queue  int
		offers []offer
	}{
		{"full packets loop", 0, []offer{
			{0, 1500, 5}, {0, 1500, 10}, {0, 1500, 10}, {0, 1500, 20}, {0, 1500, 25}, {0, 1500, 30},
		}},
		{"small packets share", 0, []offer{
			{0, 700, 5}, {1, 700, 5}, {2, 700, 10}, {3, 900, 10}, {4, 1, 10}, {4, 0, 10},
		}},
		{"wasted opportunities", 0, []offer{
			{0, 100, 5}, {11, 100, 20}, {20, 100, 20}, {21, 100, 25}, {20*1000 + 7, 100, 20*1000 + 10},
		}},
		{"large packet spans", 0, []offer{{0, 4000, 10}, {0, 500, 10}, {0, 1, 20}}},
		{"drop tail", 2, []offer{{0, 1500, 5}, {0, 1500, 10}, {0, 1500, -1}, {5, 1500, 10}, {5, 1, -1}, {10, 1, 20}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModel(Config{Trace: tr, Queue: tc.queue, Delay: ms(1)}, 1, t0)
			for i, o := range tc.offers {
				at, ok := m.Offer(t0.Add(ms(o.at)), o.size)
				got := -1.0
				if ok {
					got = float64(at.Sub(t0)-ms(1)) / float64(time.Millisecond)
				}
				if got != o.want {
					t.Errorf("offer %d (%d bytes at %v ms): left at %v ms, want %v", i, o.size, o.at, got, o.want)
				}
			}
		})
	}
}

// TestBuiltinTraceReplay saturates each built-in trace and checks that
// packets leave exactly at its opportunities, over two and a half loops.
func TestBuiltinTraceReplay(t *testing.T) {
	for _, name := range TraceNames() {
		t.Run(name, func(t *testing.T) {
			tr, err := LookupTrace(name)
			if err != nil {
				t.Fatal(err)
			}
			var want []time.Duration
			for loop := 0; len(want) < tr.Len()*5/2; loop++ {
				for i := range tr.Len() {
					want = append(want, time.Duration(loop)*tr.Period()+tr.Offset(i))
				}
			}
			want = want[:tr.Len()*5/2]
			// Keep the queue non-empty: offer a packet at each
			// opportunity's time minus 1 ms, at most, and never idle.
			m := NewModel(Config{Trace: tr, Queue: 1 << 20}, 1, t0)
			for i, w := range want {
				now := t0
				if i > 0 && want[i-1] > 0 {
					now = t0.Add(want[i-1] - time.Nanosecond) // still queued ahead: no gap
				}
				at, ok := m.Offer(now, OpportunityBytes)
				if !ok || at.Sub(t0) != w {
					t.Fatalf("packet %d: left at %v (ok %v), want %v", i, at.Sub(t0), ok, w)
				}
			}
		})
	}
}

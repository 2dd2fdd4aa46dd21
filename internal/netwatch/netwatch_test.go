package netwatch

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestCoalesce: the first change of a burst is reported at once, the rest
// of the burst once at the end of the quiet period, and nothing after.
func TestCoalesce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		in, out := make(chan struct{}, 1), make(chan struct{}, 1)
		go coalesce(ctx, in, out, Quiet)
		start := time.Now()
		var got []time.Duration
		go func() {
			for range out {
				got = append(got, time.Since(start))
			}
		}()
		for range 50 { // a burst of 50 changes over 50 ms
			notify(in)
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Second)
		notify(in) // a lone change later
		time.Sleep(time.Second)
		cancel()
		synctest.Wait()
		want := []time.Duration{0, Quiet, 1050 * time.Millisecond}
		if len(got) != len(want) {
			t.Fatalf("reported at %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("reported at %v, want %v", got, want)
			}
		}
	})
}

// TestSleepDetector: a wall clock that moved further than the monotonic
// clock by more than the slack is a sleep; clock steps within the slack
// and equal progress are not.
func TestSleepDetector(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var d sleepDetector
	steps := []struct {
		wall time.Duration // since base
		mono time.Duration
		want bool
	}{
		{0, 0, false},
		{2 * time.Second, 2 * time.Second, false},
		{4*time.Second + sleepSlack, 4 * time.Second, false}, // a step of exactly the slack
		{time.Hour, 6 * time.Second, true},                   // an hour asleep
		{time.Hour + 2*time.Second, 8 * time.Second, false},
		{time.Hour + 3*time.Second, 10 * time.Second, false}, // wall set back: not a sleep
	}
	for i, s := range steps {
		if got := d.check(base.Add(s.wall), s.mono); got != s.want {
			t.Errorf("step %d (wall %v, monotonic %v): slept=%v, want %v", i, s.wall, s.mono, got, s.want)
		}
	}
}

// TestWatchStops: Watch's channel closes once ctx is done.
func TestWatchStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := Watch(ctx, t.Logf)
	cancel()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-c:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the channel was not closed 5 s after the context ended")
		}
	}
}

package linkem

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestProfiles(t *testing.T) {
	want := []string{"lan", "evdo", "loss50", "cs244-3g", "cs244-wifi", "cellular", "sprout", "outage"}
	if got := ProfileNames(); !slices.Equal(got, want) {
		t.Errorf("ProfileNames() = %v, want %v", got, want)
	}
	for _, p := range Profiles() {
		if err := p.Validate(); err != nil {
			t.Errorf("profile %s: %v", p.Name, err)
		}
		if p.Description == "" {
			t.Errorf("profile %s has no description", p.Name)
		}
		got, err := LookupProfile(p.Name)
		if err != nil || got.Name != p.Name {
			t.Errorf("LookupProfile(%q) = %v, %v", p.Name, got.Name, err)
		}
	}
}

// TestProfileRoundTrips checks each fixed profile's round trip: its delay
// and, for loss50, the round-trip loss of the Mosh paper.
func TestProfileRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rtt      time.Duration // mean, for a lone 100-byte packet
		tol      time.Duration
		lossRTT  float64
		lossTol  float64
		packetsN int
	}{
		{"lan", time.Millisecond, 0, 0, 0, 1000},
		{"evdo", 500 * time.Millisecond, 2 * time.Millisecond, 0, 0, 2000},
		{"loss50", 100 * time.Millisecond, 0, 0.5, 0.01, 40000},
		{"cs244-wifi", 30*time.Millisecond + 64*time.Microsecond, 0, 1 - 0.92*0.92, 0.01, 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := LookupProfile(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			up, down := NewModel(p.Up, 1, t0), NewModel(p.Down, 2, t0)
			var sum time.Duration
			ok := 0
			for i := range tc.packetsN {
				now := t0.Add(time.Duration(i) * time.Second)
				at, ok1 := up.Offer(now, 100)
				if !ok1 {
					continue
				}
				back, ok2 := down.Offer(at, 100)
				if !ok2 {
					continue
				}
				ok++
				sum += back.Sub(now)
			}
			mean := sum / time.Duration(ok)
			if (mean - tc.rtt).Abs() > tc.tol+time.Microsecond {
				t.Errorf("mean RTT %v, want %v ± %v", mean, tc.rtt, tc.tol)
			}
			loss := 1 - float64(ok)/float64(tc.packetsN)
			if math.Abs(loss-tc.lossRTT) > tc.lossTol {
				t.Errorf("round-trip loss %.4f, want %.4f ± %v", loss, tc.lossRTT, tc.lossTol)
			}
		})
	}
}

func TestLookupProfileUnknown(t *testing.T) {
	_, err := LookupProfile("dialup")
	if !errors.Is(err, ErrUnknownProfile) {
		t.Fatalf("LookupProfile(dialup) = %v, want ErrUnknownProfile", err)
	}
	for _, name := range ProfileNames() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %s", err, name)
		}
	}
}

func TestCustom(t *testing.T) {
	p := Custom(40*time.Millisecond, 5*time.Millisecond, 0.02, 1e6, 0)
	want := Config{Delay: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02, Rate: 1e6}
	if p.Name != "custom" || p.Up.Delay != want.Delay || p.Up.Jitter != want.Jitter || p.Up.Loss != want.Loss ||
		p.Up.Rate != want.Rate || p.Down.Delay != want.Delay || p.Down.Rate != want.Rate {
		t.Errorf("Custom = %+v, want %+v both ways", p, want)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if !strings.Contains(p.Description, "1mbit") || !strings.Contains(p.Description, "1000-packet") {
		t.Errorf("Description %q lacks the rate or the queue", p.Description)
	}
	if err := Custom(0, 0, 2, 0, 0).Validate(); err == nil || !strings.Contains(err.Error(), "custom up") {
		t.Errorf("Custom with loss 2: Validate() = %v, want an error naming custom up", err)
	}
}

package bench

import (
	"strings"
	"testing"
	"time"
)

// TestSimulate checks the simulation's bookkeeping: a perfect link keeps
// the client within a round trip and a frame or two of the server, and a
// lossy one makes it staler, never fresher.
func TestSimulate(t *testing.T) {
	base := SimConfig{Delay: 50 * time.Millisecond, Duration: 20 * time.Second, FrameInterval: 20 * time.Millisecond, Seed: 3}
	perfect, err := Simulate(base)
	if err != nil {
		t.Fatal(err)
	}
	if perfect.MeanAge < base.Delay || perfect.MeanAge > 400*time.Millisecond {
		t.Errorf("perfect link: mean age %v, want between the one-way delay and 400ms", perfect.MeanAge)
	}
	if perfect.Frames != 999 || perfect.Seen == 0 || perfect.Seen > perfect.Frames {
		t.Errorf("perfect link: frames %d seen %d", perfect.Frames, perfect.Seen)
	}
	lossy := base
	lossy.Loss = 0.5
	bad, err := Simulate(lossy)
	if err != nil {
		t.Fatal(err)
	}
	if bad.MeanAge <= perfect.MeanAge {
		t.Errorf("50%% loss: mean age %v, not staler than the perfect link's %v", bad.MeanAge, perfect.MeanAge)
	}
	if bad.Seen == 0 {
		t.Error("50% loss: the client never saw a frame")
	}
}

// TestScreenState checks the stand-in screen state's contract: diffs apply
// only to their base, and a later base gives a smaller diff.
func TestScreenState(t *testing.T) {
	a, b, c := &screen{n: 1}, &screen{n: 2}, &screen{n: 40}
	if len(c.Diff(a)) <= len(c.Diff(b)) && len(c.Diff(b)) < 16+fullRepaint {
		t.Errorf("diff from an older base is not larger: %d vs %d", len(c.Diff(a)), len(c.Diff(b)))
	}
	x := a.Clone()
	if err := x.Apply(c.Diff(b)); err == nil {
		t.Error("a diff applied to the wrong base")
	}
	if err := x.Apply(c.Diff(a)); err != nil || !x.Equal(c) {
		t.Errorf("Apply(Diff) = %v, %v; want frame 40", err, x.n)
	}
}

// TestRunReport runs one cheap micro-benchmark and a short simulation
// through the report.
func TestRunReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	var b strings.Builder
	if err := Run(&b, Options{Only: "crypto/OCB/Seal-64", SimDuration: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := Run(&b, Options{Only: "ssp/sim", SimDuration: 2 * time.Second, Losses: []float64{0.5}, Lambdas: []float64{0.5}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"crypto/OCB/Seal-64", "ssp/sim", "50%"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

package linkem

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the built-in traces in testdata")

// generatedTraces makes the built-in traces. The cellular one comes from
// the model of the cellular profile with seed 14, picked for its 0.6 s
// outage.
func generatedTraces(t *testing.T) map[string]*Trace {
	t.Helper()
	cell, err := CellularTrace(Cellular{RestartRate: 200}, 14, 8*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// gap-3s: 2 Mbit/s for 5 s, a 3 s gap, then 2 Mbit/s for 2 s.
	var gap []int64
	for _, part := range []struct{ from, length time.Duration }{{0, 5 * time.Second}, {8 * time.Second, 2 * time.Second}} {
		s := SteadyTrace(2e6, part.length)
		for i := range s.Len() {
			gap = append(gap, (part.from + s.Offset(i)).Milliseconds())
		}
	}
	gapTrace, err := NewTrace(gap)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Trace{
		"steady-12mbps": SteadyTrace(12e6, time.Second),
		"cellular":      cell,
		"gap-3s":        gapTrace,
	}
}

// TestGenerateTraces checks that the committed traces are what the
// generators make; with -update it rewrites them.
func TestGenerateTraces(t *testing.T) {
	gen := generatedTraces(t)
	for name, tr := range gen {
		want, _ := tr.AppendText(nil)
		file := filepath.Join("testdata", name+traceExt)
		if *update {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := traceFiles.ReadFile("testdata/" + name + traceExt)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator (err %v); run go test -run TestGenerateTraces -update", file, err)
		}
		if n := tr.Len(); n < 300 || n > 5000 {
			t.Errorf("%s has %d lines, want a few hundred to a few thousand", name, n)
		}
	}
	if names := TraceNames(); !*update && len(names) != len(gen) {
		t.Errorf("TraceNames() = %v, want the %d generated traces", names, len(gen))
	}
}

func TestLookupTrace(t *testing.T) {
	for _, tc := range []struct {
		name   string
		period time.Duration
		rate   float64 // bits per second, to 1%
	}{
		{"steady-12mbps", time.Second, 12e6},
		{"gap-3s", 10 * time.Second, 2e6 * 7 / 10},
	} {
		tr, err := LookupTrace(tc.name)
		if err != nil {
			t.Fatalf("LookupTrace(%q): %v", tc.name, err)
		}
		if tr.Period() != tc.period || tr.Rate() < tc.rate*0.99 || tr.Rate() > tc.rate*1.01 {
			t.Errorf("%s: period %v rate %.0f, want %v and %.0f", tc.name, tr.Period(), tr.Rate(), tc.period, tc.rate)
		}
	}
	gap, _ := LookupTrace("gap-3s")
	for i := range gap.Len() {
		if o := gap.Offset(i); o > 5*time.Second && o <= 8*time.Second {
			t.Fatalf("gap-3s has an opportunity at %v, inside its gap", o)
		}
	}
	_, err := LookupTrace("verizon")
	if !errors.Is(err, ErrUnknownTrace) || !strings.Contains(err.Error(), strings.Join(TraceNames(), ", ")) {
		t.Errorf("LookupTrace(verizon) = %v, want ErrUnknownTrace listing the names", err)
	}
	if _, err := LookupTrace("../testdata/cellular"); err == nil {
		t.Error("LookupTrace accepted a path")
	}
	if !slices.IsSorted(TraceNames()) {
		t.Errorf("TraceNames() = %v, not sorted", TraceNames())
	}
}

func TestSteadyTrace(t *testing.T) {
	tr := SteadyTrace(12e6, time.Second)
	if tr.Len() != 1000 || tr.Offset(0) != time.Millisecond || tr.Period() != time.Second {
		t.Errorf("SteadyTrace(12 Mbit/s, 1 s): %d opportunities from %v, period %v; want 1000 from 1ms, 1s",
			tr.Len(), tr.Offset(0), tr.Period())
	}
}

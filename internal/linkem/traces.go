package linkem

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// The built-in traces, made by TestGenerateTraces (go test -run
// TestGenerateTraces -update rewrites them) from the generators below.
//
//go:embed testdata/*.trace
var traceFiles embed.FS

// traceExt ends the name of every built-in trace file.
const traceExt = ".trace"

// ErrUnknownTrace is wrapped by [LookupTrace]'s error.
var ErrUnknownTrace = errors.New("linkem: unknown trace")

// TraceNames returns the names of the built-in traces, sorted:
//
//	steady-12mbps  one opportunity every millisecond (12 Mbit/s), 1 s period
//	cellular       8 s of the cellular profile's model (seed 14), with a 0.6 s outage
//	gap-3s         2 Mbit/s for 5 s, nothing for 3 s, 2 Mbit/s for 2 s
func TraceNames() []string {
	entries, err := fs.ReadDir(traceFiles, "testdata")
	if err != nil {
		panic("linkem: embedded traces: " + err.Error())
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), traceExt))
	}
	sort.Strings(names)
	return names
}

// LookupTrace returns the built-in trace called name.
func LookupTrace(name string) (*Trace, error) {
	b, err := traceFiles.ReadFile(path.Join("testdata", name+traceExt))
	if err != nil || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownTrace, name, strings.Join(TraceNames(), ", "))
	}
	return ParseTrace(bytes.NewReader(b))
}

// SteadyTrace returns a trace of evenly spaced opportunities carrying
// rate bits per second over one period, rounded to whole milliseconds.
// It panics unless rate > 0 and period is at least a millisecond.
func SteadyTrace(rate float64, period time.Duration) *Trace {
	if !(rate > 0) || period < time.Millisecond {
		panic("linkem: SteadyTrace needs a positive rate and period")
	}
	n := int(rate*period.Seconds()/(OpportunityBytes*8) + 0.5)
	ms := make([]int64, max(n, 1))
	end := period.Milliseconds()
	for i := range ms {
		ms[i] = (int64(i) + 1) * end / int64(len(ms))
	}
	t, err := NewTrace(ms)
	if err != nil {
		panic("linkem: SteadyTrace: " + err.Error())
	}
	return t
}

// CellularTrace records d of the [Cellular] link c seeded with seed as a
// trace, each opportunity at the millisecond it falls in. The trace ends
// with the last opportunity before d.
func CellularTrace(c Cellular, seed uint64, d time.Duration) (*Trace, error) {
	if err := (&Config{Cellular: &c}).Validate(); err != nil {
		return nil, err
	}
	var start time.Time
	p := newCellularProcess(c, seed, start)
	var ms []int64
	for {
		at := p.next().Sub(start)
		if at >= d {
			break
		}
		ms = append(ms, at.Milliseconds())
	}
	return NewTrace(ms)
}

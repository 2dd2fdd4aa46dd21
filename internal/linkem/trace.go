package linkem

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Trace is a packet-delivery trace in the format of Mahimahi's link shell
// and Sprout's Cellsim: a list of delivery opportunities, each able to
// carry [OpportunityBytes], at whole milliseconds from the start of the
// link. Several opportunities may share a millisecond. The trace repeats:
// once past its last timestamp, the period, it starts again, so an
// opportunity at t also occurs at t + k·period for every k ≥ 0.
//
// A Trace is immutable and safe for concurrent use.
type Trace struct {
	ms []uint32 // non-decreasing; at least one; the last is the period and is > 0
}

// Errors of [ParseTrace] and [NewTrace].
var (
	ErrEmptyTrace = errors.New("linkem: trace has no opportunity")
	ErrTraceSpan  = errors.New("linkem: trace must end after 0 ms")
)

// TraceError is a malformed line of a trace.
type TraceError struct {
	Line int    // 1-based (for NewTrace, the index plus 1)
	Text string // the offending line, cut to 40 bytes
	Err  error  // what is wrong with it
}

// Error returns the line number, the line and the reason.
func (e *TraceError) Error() string {
	return fmt.Sprintf("linkem: trace line %d %q: %v", e.Line, e.Text, e.Err)
}

// Unwrap returns Err.
func (e *TraceError) Unwrap() error { return e.Err }

// Line errors wrapped by a [TraceError].
var (
	errTraceNumber = errors.New("not a whole number of milliseconds")
	errTraceRange  = fmt.Errorf("timestamp above %d ms", MaxTraceMillis)
	errTraceOrder  = errors.New("timestamp before the previous line's")
)

// ParseTrace reads a trace: one opportunity per line, given as a
// non-negative decimal number of milliseconds, in non-decreasing order.
// Spaces around a number and empty lines are ignored. The last timestamp
// must be above 0.
func ParseTrace(r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	var ms []uint32
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		v, err := parseMillis(text)
		if err == nil && len(ms) > 0 && v < ms[len(ms)-1] {
			err = errTraceOrder
		}
		if err != nil {
			return nil, &TraceError{Line: line, Text: cut(text, 40), Err: err}
		}
		ms = append(ms, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("linkem: reading trace: %w", err)
	}
	return newTrace(ms)
}

func parseMillis(s string) (uint32, error) {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, errTraceNumber
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > MaxTraceMillis {
		return 0, errTraceRange // all digits, so only too large
	}
	return uint32(v), nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// NewTrace returns the trace of the given opportunities, in milliseconds
// from the start, which must be non-decreasing, within [0,
// MaxTraceMillis], and end above 0.
func NewTrace(ms []int64) (*Trace, error) {
	t := make([]uint32, len(ms))
	for i, v := range ms {
		switch {
		case v < 0 || v > MaxTraceMillis:
			return nil, &TraceError{Line: i + 1, Text: strconv.FormatInt(v, 10), Err: errTraceRange}
		case i > 0 && v < ms[i-1]:
			return nil, &TraceError{Line: i + 1, Text: strconv.FormatInt(v, 10), Err: errTraceOrder}
		}
		t[i] = uint32(v)
	}
	return newTrace(t)
}

func newTrace(ms []uint32) (*Trace, error) {
	switch {
	case len(ms) == 0:
		return nil, ErrEmptyTrace
	case ms[len(ms)-1] == 0:
		return nil, ErrTraceSpan
	}
	return &Trace{ms: ms}, nil
}

// Len returns the number of opportunities in one period.
func (t *Trace) Len() int { return len(t.ms) }

// Offset returns the time of the i-th opportunity of the first period.
func (t *Trace) Offset(i int) time.Duration {
	return time.Duration(t.ms[i]) * time.Millisecond
}

// Period returns the time after which the trace repeats: its last
// timestamp.
func (t *Trace) Period() time.Duration { return t.Offset(len(t.ms) - 1) }

// Rate returns the trace's average capacity in bits per second.
func (t *Trace) Rate() float64 {
	return float64(len(t.ms)) * OpportunityBytes * 8 / t.Period().Seconds()
}

// AppendText appends the trace in the format ParseTrace reads, one
// timestamp per line.
func (t *Trace) AppendText(b []byte) ([]byte, error) {
	for _, v := range t.ms {
		b = strconv.AppendUint(b, uint64(v), 10)
		b = append(b, '\n')
	}
	return b, nil
}

// traceSource replays a trace from a start time, looping.
type traceSource struct {
	t      *Trace
	start  time.Time
	period time.Duration
	loop   int64 // current period
	i      int   // next opportunity within it
}

func newTraceSource(t *Trace, start time.Time) *traceSource {
	return &traceSource{t: t, start: start, period: t.Period()}
}

func (s *traceSource) peek() time.Time {
	return s.start.Add(time.Duration(s.loop)*s.period + s.t.Offset(s.i))
}

func (s *traceSource) next() time.Time {
	at := s.peek()
	if s.i++; s.i == len(s.t.ms) {
		s.i, s.loop = 0, s.loop+1
	}
	return at
}

// nextFrom jumps straight to the period containing t, so an idle link
// costs nothing however long it idles.
func (s *traceSource) nextFrom(t time.Time) time.Time {
	if !s.peek().Before(t) {
		return s.next()
	}
	off := t.Sub(s.start)
	loop := int64(off / s.period)
	rem := off - time.Duration(loop)*s.period
	i := sort.Search(len(s.t.ms), func(i int) bool { return s.t.Offset(i) >= rem })
	if i == len(s.t.ms) {
		i, loop = 0, loop+1
	}
	s.loop, s.i = loop, i
	return s.next()
}

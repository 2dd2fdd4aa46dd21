package linkem

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseTrace(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     string
		want   []uint32 // nil for an error
		line   int      // of the error, 0 if none is expected
		errIs  error
		period time.Duration
	}{
		{name: "one", in: "1\n", want: []uint32{1}, period: time.Millisecond},
		{name: "no final newline", in: "0\n0\n7", want: []uint32{0, 0, 7}, period: 7 * time.Millisecond},
		{name: "shared ms and blanks", in: "\n 3 \n3\n\n10\r\n", want: []uint32{3, 3, 10}, period: 10 * time.Millisecond},
		{name: "max", in: "2147483647\n", want: []uint32{MaxTraceMillis}, period: MaxTraceMillis * time.Millisecond},
		{name: "empty", in: "", errIs: ErrEmptyTrace},
		{name: "blank only", in: "\n \n", errIs: ErrEmptyTrace},
		{name: "zero span", in: "0\n0\n", errIs: ErrTraceSpan},
		{name: "decreasing", in: "1\n5\n4\n", line: 3, errIs: errTraceOrder},
		{name: "negative", in: "1\n-2\n", line: 2, errIs: errTraceNumber},
		{name: "plus sign", in: "+2\n", line: 1, errIs: errTraceNumber},
		{name: "fraction", in: "1\n\n2.5\n", line: 3, errIs: errTraceNumber},
		{name: "two fields", in: "1 2\n", line: 1, errIs: errTraceNumber},
		{name: "too large", in: "2147483648\n", line: 1, errIs: errTraceRange},
		{name: "huge", in: "99999999999999999999999\n", line: 1, errIs: errTraceRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ParseTrace(strings.NewReader(tc.in))
			if tc.want != nil {
				if err != nil {
					t.Fatalf("ParseTrace(%q) error %v", tc.in, err)
				}
				if !slices.Equal(tr.ms, tc.want) || tr.Period() != tc.period || tr.Len() != len(tc.want) {
					t.Errorf("ParseTrace(%q) = %v period %v, want %v period %v", tc.in, tr.ms, tr.Period(), tc.want, tc.period)
				}
				return
			}
			if err == nil || !errors.Is(err, tc.errIs) || !strings.HasPrefix(err.Error(), "linkem: ") {
				t.Fatalf("ParseTrace(%q) error %v, want %v", tc.in, err, tc.errIs)
			}
			var te *TraceError
			if got := errors.As(err, &te); got != (tc.line != 0) || (got && te.Line != tc.line) {
				t.Errorf("ParseTrace(%q) error %v, want one at line %d", tc.in, err, tc.line)
			}
		})
	}
}

func TestNewTrace(t *testing.T) {
	if _, err := NewTrace([]int64{1, -1}); !errors.Is(err, errTraceRange) {
		t.Errorf("NewTrace with a negative time: %v, want errTraceRange", err)
	}
	if _, err := NewTrace([]int64{3, 2}); !errors.Is(err, errTraceOrder) {
		t.Errorf("NewTrace decreasing: %v, want errTraceOrder", err)
	}
	tr, err := NewTrace([]int64{0, 250, 500})
	if err != nil || tr.Rate() != 3*OpportunityBytes*8/0.5 {
		t.Errorf("NewTrace: %v, rate %v, want 72000 bit/s", err, tr.Rate())
	}
}

func FuzzParseTrace(f *testing.F) {
	for _, s := range []string{"1\n", "0\n0\n5\n", "5\n4\n", "\n\n12\n", "a\n", "2147483648\n", "1\r\n2\r\n", "-1"} {
		f.Add([]byte(s))
	}
	if b, err := traceFiles.ReadFile("testdata/gap-3s.trace"); err == nil {
		f.Add(b[:min(len(b), 300)])
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := ParseTrace(strings.NewReader(string(in)))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "linkem: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		if tr.Len() == 0 || tr.Period() <= 0 || !slices.IsSorted(tr.ms) {
			t.Fatalf("ParseTrace(%q) accepted a malformed trace %v", in, tr.ms)
		}
		out, _ := tr.AppendText(nil)
		again, err := ParseTrace(strings.NewReader(string(out)))
		if err != nil || !slices.Equal(again.ms, tr.ms) {
			t.Fatalf("round trip of %q: %v, %v", in, again, err)
		}
		// A replay of any valid trace never goes back in time.
		src := newTraceSource(tr, t0)
		last := t0
		for i := range 3 * tr.Len() {
			at := src.next()
			if i%7 == 3 {
				at = src.nextFrom(at.Add(time.Duration(i) * time.Millisecond))
			}
			if at.Before(last) {
				t.Fatalf("replay went back from %v to %v", last.Sub(t0), at.Sub(t0))
			}
			last = at
		}
	})
}

func TestTraceSourceNextFrom(t *testing.T) {
	tr, _ := NewTrace([]int64{0, 4, 4, 9})
	for _, tc := range []struct {
		from time.Duration
		want time.Duration
	}{
		{0, 0},
		{ms(1), ms(4)},
		{ms(9), ms(9)},
		{ms(8.5), ms(9)}, // the last of period 0 and the first of period 1
		{ms(9.5), ms(13)},
		{ms(10), ms(13)},
		{ms(9*1000 + 1), ms(9*1000 + 4)},
	} {
		src := newTraceSource(tr, t0)
		if got := src.nextFrom(t0.Add(tc.from)).Sub(t0); got != tc.want {
			t.Errorf("nextFrom(%v) = %v, want %v", tc.from, got, tc.want)
		}
	}
}

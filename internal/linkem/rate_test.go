package linkem

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64 // -1 for an error
	}{
		{"1mbit", 1e6},
		{"25Mbps", 25e6},
		{"500kbit", 500e3},
		{"1.5m", 1.5e6},
		{"64000", 64000},
		{"64000bit", 64000},
		{"100bps", 100},
		{"2GBIT", 2e9},
		{" 10 kbit ", 10e3},
		{"0", 0},
		{"0mbit", 0},
		{"1e3k", 1e6},
		{".5k", 500},
		{"", -1},
		{"mbit", -1},
		{"-1mbit", -1},
		{"1 mbit/s", -1},
		{"fast", -1},
		{"inf", -1},
		{"NaN", -1},
		{"0x10", -1},
		{"1_000", -1},
		{"1e400", -1},
		{"1kk", -1},
	} {
		got, err := ParseRate(tc.in)
		switch {
		case tc.want < 0 && (err == nil || !errors.Is(err, ErrRate) || !strings.HasPrefix(err.Error(), "linkem: ")):
			t.Errorf("ParseRate(%q) = %v, %v, want an ErrRate", tc.in, got, err)
		case tc.want >= 0 && (err != nil || got != tc.want):
			t.Errorf("ParseRate(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestFormatRate(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{1e6, "1mbit"}, {25e6, "25mbit"}, {1500, "1.5kbit"}, {800, "800bit"}, {0, "0bit"}, {2.5e9, "2.5gbit"},
	} {
		if got := FormatRate(tc.in); got != tc.want {
			t.Errorf("FormatRate(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"1mbit", "25Mbps", "500kbit", "1.5m", "64000", "0", "1e3k", "-1", "inf", "kbit", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err != nil {
			return
		}
		if !(v >= 0) || math.IsInf(v, 0) || math.Signbit(v) {
			t.Fatalf("ParseRate(%q) = %v", s, v)
		}
		back, err := ParseRate(FormatRate(v))
		if err != nil || math.Abs(back-v) > 1e-12*v {
			t.Fatalf("ParseRate(FormatRate(%v)) = %v, %v (from %q)", v, back, err, s)
		}
	})
}

package termview

import (
	"bytes"
	"slices"
	"testing"
)

func TestCPRFilter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reads []string
		keys  string
		rows  []cprReport
	}{
		{"alone", []string{"\x1b[24;1R"}, "", []cprReport{{23, 0}}},
		{"among keys", []string{"ab\x1b[3;80Rcd"}, "abcd", []cprReport{{2, 79}}},
		{"split", []string{"x\x1b[", "12;", "5Ry"}, "xy", []cprReport{{11, 4}}},
		{"two", []string{"\x1b[1;1R\x1b[2;1R"}, "", []cprReport{{0, 0}, {1, 0}}},
		{"arrow keys", []string{"\x1bOA\x1b[A\x1b[1;5C"}, "\x1bOA\x1b[A\x1b[1;5C", nil},
		{"not a report", []string{"\x1b[12;R\x1b[;1R\x1b[0;1R"}, "\x1b[12;R\x1b[;1R\x1b[0;1R", nil},
		{"too many digits", []string{"\x1b[123456;1R"}, "\x1b[123456;1R", nil},
		{"escape then report", []string{"\x1b\x1b[5;1R"}, "\x1b", []cprReport{{4, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f cprFilter
			var keys []byte
			var rows []cprReport
			for _, r := range tc.reads {
				k, rs := f.take([]byte(r))
				keys, rows = append(keys, k...), append(rows, rs...)
			}
			keys = append(keys, f.flush()...)
			if string(keys) != tc.keys || !slices.Equal(rows, tc.rows) {
				t.Errorf("keys %q rows %v, want %q %v", keys, rows, tc.keys, tc.rows)
			}
		})
	}
}

// FuzzCPRFilter: whatever is typed, in whatever pieces, the filter
// neither loses nor invents a byte: the keys and the reports it found
// (re-encoded) add up to the input, in order of the keys.
func FuzzCPRFilter(f *testing.F) {
	f.Add([]byte("ab\x1b[3;80Rcd"), uint8(3))
	f.Add([]byte("\x1b[12;5R\x1b\x1b[1;2R"), uint8(1))
	f.Add([]byte("\x1b[123456;1R\x1b["), uint8(7))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		var fl cprFilter
		var keys []byte
		var rows []cprReport
		for p := in; len(p) > 0; {
			n := min(len(p), int(cut%16)+1)
			k, rs := fl.take(p[:n])
			keys, rows = append(keys, k...), append(rows, rs...)
			p = p[n:]
		}
		keys = append(keys, fl.flush()...)
		if len(keys) > len(in) {
			t.Fatalf("%d keys from %d bytes", len(keys), len(in))
		}
		// Whole, the input gives the same result.
		var whole cprFilter
		k, rs := whole.take(in)
		k = append(k, whole.flush()...)
		if !bytes.Equal(k, keys) || !slices.Equal(rs, rows) {
			t.Fatalf("pieces gave %q %v, whole %q %v", keys, rows, k, rs)
		}
		for _, r := range rows {
			if r.row < 0 || r.col < 0 {
				t.Fatalf("report %+v", r)
			}
		}
	})
}

package e2etest

import (
	"strconv"
	"testing"
)

// TestSeqTail: the history check takes seq's lines after older ones, and
// nothing less: not only the screen's, not a gap, a line twice or out of
// order.
func TestSeqTail(t *testing.T) {
	run := func(from, to int) []string {
		var out []string
		for n := from; n <= to; n++ {
			out = append(out, strconv.Itoa(n))
		}
		return out
	}
	join := func(parts ...[]string) []string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return all
	}
	prompt := []string{"e2e$ seq 5 9"}
	tests := []struct {
		name    string
		history []string
		ok      bool
	}{
		{"exact", join(prompt, run(5, 9), []string{"e2e$"}), true},
		{"older numbers first", join(run(1, 3), prompt, run(5, 9), []string{"e2e$", ""}), true},
		{"only the screen's", join(prompt, run(8, 9), []string{"e2e$"}), false},
		{"a gap", join(prompt, run(5, 6), run(8, 9)), false},
		{"twice", join(run(5, 9), run(5, 9)), false},
		{"out of order", join(run(5, 6), []string{"8", "7", "9"}), false},
		{"empty", nil, false},
	}
	for _, tc := range tests {
		if why := seqTail(tc.history, 5, 9); (why == "") != tc.ok {
			t.Errorf("%s: seqTail = %q, want ok %v", tc.name, why, tc.ok)
		}
	}
}

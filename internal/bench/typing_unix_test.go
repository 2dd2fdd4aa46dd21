//go:build unix

package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
)

// TestOpenSSHQuick: the system's OpenSSH (ssh against an sshd of the
// run's own, the TCP connection crossing the link in gVisor) over lan and
// evdo: every keystroke shown, the final screen the reference's, the
// median at least the round trip over EV-DO, and the report names it.
func TestOpenSSHQuick(t *testing.T) {
	t.Parallel() // real programs in real time, each in temp dirs of its own
	if testing.Short() {
		t.Skip("types for half a minute")
	}
	if _, _, err := opensshTools(); err != nil {
		t.Fatalf("%v: run make deps", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w, err := workload.Lookup("shell")
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	tb, why, err := newTypingBench(ctx, w, QuickKeys, &progress)
	if err != nil || tb == nil {
		t.Fatalf("preparing the shell workload: %v %s", err, why)
	}
	defer tb.close()
	for _, name := range []string{"lan", "evdo"} {
		link, err := linkem.LookupProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		results, err := tb.run(ctx, link, []string{TransportOpenSSH}, 1, 1)
		if err != nil {
			t.Fatalf("%s: %v\nprogress:\n%s", name, err, progress.String())
		}
		res := results[0]
		if res.Skipped != "" || len(res.Runs) != 1 {
			t.Fatalf("%s: skipped %q, %d runs", name, res.Skipped, len(res.Runs))
		}
		r := res.Runs[0]
		s := r.Stats
		t.Logf("%s/openssh: %v, %.0f bytes/key; %s", name, s, r.BytesPerKey(), res.Note)
		if s.Keys != QuickKeys || s.NeverShown != 0 || r.Mismatch != "" {
			t.Errorf("%s: %d keys, %d never shown, mismatch %q", name, s.Keys, s.NeverShown, r.Mismatch)
		}
		if r.Wire <= 0 || !strings.Contains(res.Note, "OpenSSH") {
			t.Errorf("%s: %d bytes on the link, note %q", name, r.Wire, res.Note)
		}
		if rtt := link.Up.Delay + link.Down.Delay; name == "evdo" && s.Median < rtt {
			t.Errorf("evdo: median %v below the round trip %v", s.Median, rtt)
		}
	}
}

// TestReferenceRecordedUntilTwoAgree: the reference is recorded until two
// recordings agree (twice for a deterministic workload); a workload whose
// screens differ every time ($RANDOM) is recorded at most referenceTries
// times and said not to agree.
func TestReferenceRecordedUntilTwoAgree(t *testing.T) {
	t.Parallel() // real programs in real time, each in temp dirs of its own
	if testing.Short() {
		t.Skip("records references in bash")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name, keys string
		tries      int
		warn       bool
	}{
		{"deterministic", "echo 42\r", 2, false},
		{"random", "echo $RANDOM$RANDOM\r", referenceTries, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &workload.Workload{Name: tc.name, Ready: "$"}
			for _, k := range tc.keys {
				w.Keys = append(w.Keys, workload.Key{Key: string(k)})
			}
			var progress strings.Builder
			tb, why, err := newTypingBench(ctx, w, 0, &progress)
			if err != nil || tb == nil {
				t.Fatalf("newTypingBench: %v %s", err, why)
			}
			defer tb.close()
			if n := strings.Count(progress.String(), "recording the reference"); n != tc.tries {
				t.Errorf("recorded %d times, want %d:\n%s", n, tc.tries, progress.String())
			}
			if warned := strings.Contains(progress.String(), "recordings of the reference agree"); warned != tc.warn {
				t.Errorf("warned %v, want %v:\n%s", warned, tc.warn, progress.String())
			}
		})
	}
}

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

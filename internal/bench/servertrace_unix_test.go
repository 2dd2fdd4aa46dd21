//go:build unix

package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/keylat"
	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
)

// TestServerRecordedWithoutTap: without the tap (as on Windows), the
// transports whose server side runs in this process, gosh's loops and the
// SSH baseline, record what the server's program wrote, and the session
// measured gets it as its Server: in time order, within the run, with the
// typed command's echo and its output.
func TestServerRecordedWithoutTap(t *testing.T) {
	t.Parallel() // real programs in real time, each in temp dirs of its own
	if testing.Short() {
		t.Skip("types into bash over two transports")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := &workload.Workload{Name: "echo", Ready: "$"}
	for _, k := range "echo 4''2\r" {
		w.Keys = append(w.Keys, workload.Key{Key: string(k), Gap: 20 * time.Millisecond})
	}
	var progress strings.Builder
	tb, why, err := newTypingBench(ctx, w, 0, &progress)
	if err != nil || tb == nil {
		t.Fatalf("newTypingBench: %v %s", err, why)
	}
	defer tb.close()
	tb.tap = ""
	link, err := linkem.LookupProfile("lan")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{TransportGosh, TransportSSH} {
		var sessions []keylat.Session
		tb.seeSession = func(s *keylat.Session) { sessions = append(sessions, *s) }
		start := time.Now()
		if _, err := tb.run(ctx, link, []string{name}, 1, 1); err != nil {
			t.Fatalf("%s: %v\nprogress:\n%s", name, err, progress.String())
		}
		if len(sessions) != 1 {
			t.Fatalf("%s: %d sessions measured, want 1", name, len(sessions))
		}
		srv := sessions[0].Server
		if srv == nil {
			t.Fatalf("%s: the session has no record of the server's program", name)
		}
		var all bytes.Buffer
		for i, o := range srv {
			if o.At.Before(start) || o.At.After(time.Now()) || (i > 0 && o.At.Before(srv[i-1].At)) {
				t.Errorf("%s: record %d at %v, out of order or outside the run", name, i, o.At)
			}
			all.Write(o.Data)
		}
		// The echo of what was typed ("4''2"), then its output ("42").
		if got := all.String(); !strings.Contains(got, "echo 4''2") || !strings.Contains(got, "42\r\n") {
			t.Errorf("%s: the record of the server's program lacks the command or its output:\n%q", name, got)
		}
	}
}

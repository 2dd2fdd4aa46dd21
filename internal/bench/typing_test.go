//go:build unix || windows

package bench

import (
	"context"
	"encoding/xml"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/report"
	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
)

// TestTypingQuick is "gosh bench typing --quick" over lan and over evdo
// for gosh and ssh: the structure and the sanity of the figures, not the
// speed. Every keystroke is accounted for and shown, the final screens
// match the reference's, ssh's median is at least the link's round trip,
// gosh shows some keystrokes at once over EV-DO, bytes crossed the link,
// and the CDF is well-formed SVG with one curve per transport. It checks
// each of those per link and transport; hence its length.
func TestTypingQuick(t *testing.T) {
	t.Parallel() // real programs in real time, each in temp dirs of its own
	if testing.Short() {
		t.Skip("types for about a minute")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	w, err := workload.Lookup(workload.Default())
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	tb, why, err := newTypingBench(ctx, w, QuickKeys, &progress)
	if err != nil || tb == nil {
		t.Fatalf("preparing the %s workload: %v %s", w.Name, err, why)
	}
	defer tb.close()
	for _, name := range []string{"lan", "evdo"} {
		link, err := linkem.LookupProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		results, err := tb.run(ctx, link, []string{TransportGosh, TransportSSH}, 1, 1)
		if err != nil {
			t.Fatalf("%s: %v\nprogress:\n%s", name, err, progress.String())
		}
		rtt := link.Up.Delay + link.Down.Delay
		for _, res := range results {
			if res.Skipped != "" || len(res.Runs) != 1 {
				t.Fatalf("%s/%s: %d runs, skipped %q; want one run", name, res.Transport, len(res.Runs), res.Skipped)
			}
			r := res.Runs[0]
			s := r.Stats
			t.Logf("%s/%s: %v, %.0f bytes/key", name, res.Transport, s, r.BytesPerKey())
			if s.Keys != QuickKeys || len(r.Result.Latency) != QuickKeys || len(r.Result.Wrong) != QuickKeys {
				t.Errorf("%s/%s: %d keystrokes measured (%d latencies), want %d", name, res.Transport, s.Keys, len(r.Result.Latency), QuickKeys)
			}
			if s.NeverShown != 0 {
				t.Errorf("%s/%s: %d keystrokes never shown", name, res.Transport, s.NeverShown)
			}
			if r.Mismatch != "" {
				t.Errorf("%s/%s: %s", name, res.Transport, r.Mismatch)
			}
			if r.Wire <= 0 {
				t.Errorf("%s/%s: no bytes crossed the link", name, res.Transport)
			}
			if res.Transport == TransportSSH && s.Median < rtt {
				t.Errorf("%s/ssh: median %v below the round trip %v", name, s.Median, rtt)
			}
			// On Windows the server's screens come from the transports'
			// in-process record of the pseudo console's output, on Unix
			// from the tap: either way none of ssh's is wrong.
			if res.Transport == TransportSSH && (s.Wrong != 0 || !s.NoPrediction) {
				t.Errorf("%s/ssh: the wrong check finds %.1f%% wrong, or a prediction shown (%v): it sees predictions where there are none", name, 100*s.Wrong, !s.NoPrediction)
			}
			if res.Transport == TransportGosh && name == "evdo" && (s.Instant == 0 || s.NoPrediction) {
				t.Errorf("evdo/gosh: no keystroke shown at once (%.0f%%), or no prediction seen (%v)", 100*s.Instant, s.NoPrediction)
			}
		}
		var svg strings.Builder
		if err := report.WriteCDF(&svg, name, seriesOf(rowsOf(results))); err != nil {
			t.Fatal(err)
		}
		if n := countPaths(t, svg.String()); n != len(results) {
			t.Errorf("%s: the SVG has %d paths for %d transports", name, n, len(results))
		}
	}
}

// countPaths parses an SVG document and counts its path elements.
func countPaths(t *testing.T, doc string) int {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	n := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			n++
		}
	}
}

// TestOtherSystemsWorkloadSkipped: a workload typed into a shell this
// system lacks (cmd.exe on Unix, a POSIX shell on Windows) is skipped with
// a line saying why, before anything runs; so is stock Mosh on Windows.
func TestOtherSystemsWorkloadSkipped(t *testing.T) {
	name, want := "cmd", "cmd.exe, which only Windows has"
	if runtime.GOOS == "windows" {
		name, want = "shell", "POSIX shell, which Windows does not have"
		if _, err := starterFor(TransportMosh, transportConfig{}); err == nil || !strings.Contains(err.Error(), "Unix only") {
			t.Errorf("starterFor(mosh) on Windows: %v, want Unix only", err)
		}
	}
	w, err := workload.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	tb, why, err := newTypingBench(context.Background(), w, QuickKeys, &progress)
	if err != nil || tb != nil {
		t.Fatalf("newTypingBench(%s) = %v, %v; want it skipped", name, tb, err)
	}
	if !strings.Contains(why, want) || !strings.Contains(progress.String(), name+": skipped: ") {
		t.Errorf("skipped because %q (progress %q), want %q", why, progress.String(), want)
	}
}

package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPaperRunsStockMosh: every experiment of gosh bench paper, a --quick
// run's too, has a stock Mosh row beside gosh's, and the one that runs
// gosh without prediction runs Mosh without prediction too.
func TestPaperRunsStockMosh(t *testing.T) {
	quick := 0
	for _, e := range experiments {
		if !slices.Contains(e.with, TransportMosh) {
			t.Errorf("%s: transports %v, no %s", e.name, e.with, TransportMosh)
		}
		if slices.Contains(e.with, TransportGoshNoPredict) && !slices.Contains(e.with, TransportMoshNoPredict) {
			t.Errorf("%s: transports %v: %s without %s", e.name, e.with, TransportGoshNoPredict, TransportMoshNoPredict)
		}
		if e.quick {
			quick++
		}
	}
	if quick == 0 {
		t.Error("no experiment runs with --quick")
	}
	if !slices.Contains(paperOthersWith, TransportMosh) {
		t.Errorf("the flood and roaming experiments run %v, no %s", paperOthersWith, TransportMosh)
	}
	if !strings.Contains(paperSource, "Mosh paper, 2012") {
		t.Errorf("the published figures are labelled %q, not with their source", paperSource)
	}
}

// TestPaperSaysMoshIsNotInstalled: on a machine without mosh-server and
// mosh-client, every experiment says so in one line per Mosh row (the
// typing table, the flood, roaming), and the published figures stand on
// a line of their own, labelled with their source.
func TestPaperSaysMoshIsNotInstalled(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("stock Mosh runs on Unix only: on Windows every row says so, not that it is not installed")
	}
	t.Setenv("PATH", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := t.TempDir()
	tb := &typingBench{base: base, spec: remoteSpec{Dir: filepath.Join(base, "run")}, progress: os.Stderr}
	tb.w.Name = "shell"
	tb.starters = func(name string) (starter, error) {
		if name == TransportMosh || name == TransportMoshNoPredict {
			return starterFor(name, transportConfig{})
		}
		return nil, errors.New("not under test")
	}
	e := experiments[slices.IndexFunc(experiments, func(e experiment) bool { return e.link == "loss50" })]
	var out strings.Builder
	if err := paperExperiment(ctx, e, []*typingBench{tb}, 1, 1, t.TempDir(), &out); err != nil {
		t.Fatal(err)
	}
	if err := paperFlood(ctx, tb, []string{TransportMosh}, 1, 1, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	if err := paperRoam(ctx, tb, []string{TransportMosh}, 1, 1, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// Why mosh cannot run: not installed here (Unix), or Unix only.
	_, why := starterFor(TransportMosh, transportConfig{})
	if why == nil {
		t.Fatal("stock Mosh's starter found mosh-server on an empty PATH")
	}
	for _, want := range []string{
		"  mosh: skipped: " + why.Error() + "\n",
		"  mosh-nopredict: skipped: " + why.Error() + "\n",
		"  " + paperSource + ": " + e.published + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report has no line %q:\n%s", want, got)
		}
	}
	n := 0
	for _, line := range strings.Split(got, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == TransportMosh && strings.HasPrefix(strings.Join(f[1:], " "), "skipped: mosh-server is not installed") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("the flood and roaming tables say mosh is not installed %d times, want 2:\n%s", n, got)
	}
}

// TestPaperOnlyUnknown: an experiment Paper does not know ends it with
// an error that lists the ones it does, before anything runs or prints.
func TestPaperOnlyUnknown(t *testing.T) {
	var out strings.Builder
	err := Paper(context.Background(), PaperOptions{Only: []string{"evdo", "telegraph"}, Stdout: &out})
	if err == nil || !strings.Contains(err.Error(), `"telegraph"`) || !strings.Contains(err.Error(), strings.Join(PaperExperiments(), ", ")) {
		t.Fatalf("Paper(Only telegraph) = %v, want an error naming it and the experiments", err)
	}
	if out.Len() > 0 {
		t.Errorf("Paper printed %q before it failed", out.String())
	}
}

// TestPaperHeaderSeeds: the report's first line claims no seeds that an
// experiment's table does not use (it said "seeds 1-5 for each
// experiment", when the second experiment's were 100001-100005).
func TestPaperHeaderSeeds(t *testing.T) {
	h := paperHeader("m", 5, 1)
	for i := range experiments {
		if s := seedsText(experimentSeed(1, i), 5); i > 0 && strings.Contains(h, "seeds 1-5") {
			t.Errorf("the header %q claims seeds 1-5 for %s, whose seeds are %s", h, experiments[i].name, s)
		}
	}
	if !strings.Contains(h, "5 run(s) of each experiment from seed 1") {
		t.Errorf("the header %q does not say the runs and the first seed", h)
	}
}

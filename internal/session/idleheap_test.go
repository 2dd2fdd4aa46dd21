package session_test

import (
	"flag"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
)

// idleHeapLimit bounds the live heap of a settled session's two loops
// together (with the test's terminal and shell). Each transport once held
// a 1.2 MB zlib writer for its small instructions: 2.7 MB in all then,
// some 0.45 MB since.
const idleHeapLimit = 800 << 10

// idleHeap starts a session, runs a command, lets it sit for ten seconds
// and returns the live heap it holds. It runs inside a synctest bubble.
func idleHeap(t *testing.T) uint64 {
	before := liveHeap()
	r := newRig(t)
	r.quiet = true
	r.startServer(session.ServerConfig{})
	r.startClient(session.ClientConfig{Predict: predict.NewEngine(predict.Adaptive, false)})
	r.waitScreen(ready, 2*time.Second)
	r.term.Type("echo settled\r")
	r.waitPrompt("settled", 5*time.Second)
	time.Sleep(10 * time.Second)
	return liveHeap() - before
}

// liveHeap returns the bytes of live heap objects, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestIdleHeap: a settled session's loops hold at most idleHeapLimit of
// live heap: nothing large is allocated before it is needed.
func TestIdleHeap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		live := idleHeap(t)
		t.Logf("live heap of a settled session: %d KiB", live>>10)
		if live > idleHeapLimit {
			t.Errorf("a settled session holds %d KiB of live heap, want at most %d KiB", live>>10, idleHeapLimit>>10)
		}
	})
}

// BenchmarkIdleHeap reports the live heap of a settled session's two
// loops (live-KiB), as TestIdleHeap measures it.
func BenchmarkIdleHeap(b *testing.B) {
	var live uint64
	for b.Loop() {
		inBubble(b, func(t *testing.T) { live = idleHeap(t) })
	}
	b.ReportMetric(float64(live>>10), "live-KiB")
}

// inBubble runs f in a synctest bubble from a benchmark: synctest.Test
// takes a *testing.T, which a benchmark does not have, so f runs as a
// test of its own (testing.RunTests, once whatever -count says). The
// benchmark fails if the test does.
func inBubble(b *testing.B, f func(t *testing.T)) {
	b.Helper()
	count := flag.Lookup("test.count")
	saved := count.Value.String()
	if err := count.Value.Set("1"); err != nil {
		b.Fatal(err)
	}
	defer count.Value.Set(saved)
	all := func(string, string) (bool, error) { return true, nil }
	if !testing.RunTests(all, []testing.InternalTest{{Name: b.Name(), F: func(t *testing.T) { synctest.Test(t, f) }}}) {
		b.Fatal("the run failed")
	}
}

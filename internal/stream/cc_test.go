package stream

import (
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
)

func profile(t *testing.T, name string) linkem.Profile {
	t.Helper()
	p, err := linkem.LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCS244Throughput: over CS244's 3G link (1 Mbit/s, 1 % loss, a
// 100-packet queue each way), 10 MiB each way at once move at 85 % of
// the link's rate or more (the framing costs 5 %, the acks and the first
// seconds some more), and a small datagram offered beside them (a
// keystroke's frame) waits little at the bottleneck: the median under 30
// ms, the 95th percentile under 60 ms (a key and its echo cross it once
// each way; the session's own guard is TestEchoDuringTransfer).
func TestCS244Throughput(t *testing.T) {
	s := newSim(t, profile(t, "cs244-3g"), Config{}, 1)
	s.probeEvery = 100 * time.Millisecond
	const size = 10 << 20
	took := s.transfer(testData(size), true, 5*time.Minute)
	rate := float64(size) / took.Seconds()
	prop := 225 * time.Millisecond
	med, p95 := percentile(s.queueing, 0.5)-prop, percentile(s.queueing, 0.95)-prop
	t.Logf("%.0f B/s (%.1f %% of 125000), %v; queueing median %v p95 %v; a %+v", rate, rate/1250, took, med, p95, s.a.Stats())
	if rate < 0.85*125000 {
		t.Errorf("%.0f B/s, want at least 85 %% of the link's 125000", rate)
	}
	if med > 30*time.Millisecond || p95 > 60*time.Millisecond {
		t.Errorf("queueing median %v, p95 %v; want at most 30 ms and 60 ms", med, p95)
	}
}

// TestEvdoStartup: over EV-DO (500 ms round trip, no rate limit), a
// megabyte there and back takes a few round trips: the window grows to
// the bandwidth-delay product.
func TestEvdoStartup(t *testing.T) {
	s := newSim(t, profile(t, "evdo"), Config{}, 1)
	took := s.transfer(testData(1<<20), true, time.Minute)
	t.Logf("%v; a %+v", took, s.a.Stats())
	if took > 3*time.Second {
		t.Errorf("1 MiB each way took %v; want under 3 s (6 round trips)", took)
	}
}

package stream

import (
	"testing"
	"time"
)

// TestDrainKeepsLinkBusy: over CS244's 3G link (1 Mbit/s, 450 ms round
// trip, without its random loss), startup's first round trip queues some
// 400 ms at the bottleneck; drain ends as that queue empties, by the
// sender's own estimate (what it sent since the latest packet that left
// the bottleneck behind a queue, at the bottleneck's rate), not when the
// peer's reports of the queue, a one-way delay and the way back's queue
// late, show it empty. In the first 3 s the receiver gets at least 95 %
// of what the link could carry once its first packet arrived. (Waiting
// for the reports left the link half idle for half a second: 88.5 %.)
func TestDrainKeepsLinkBusy(t *testing.T) {
	p := profile(t, "cs244-3g")
	p.Up.Loss, p.Down.Loss = 0, 0
	s := newSim(t, p, Config{}, 1)
	data := testData(1 << 20)
	wa, got := 0, 0
	first := time.Time{}
	end := simStart.Add(3 * time.Second)
	for s.now.Before(end) {
		if n := min(s.a.Room(), len(data)-wa); n > 0 {
			s.a.Write(data[wa : wa+n])
			wa += n
		}
		if n := len(s.b.Read()); n > 0 {
			if first.IsZero() {
				first = s.now
			}
			got += n
		}
		s.step(end)
	}
	// The link carries budget stream bytes in every budget+sealing.
	could := end.Sub(first).Seconds() * 125000 * budget / (budget + sealing)
	t.Logf("first bytes at %v; %d bytes by %v, %.1f %% of %.0f", first.Sub(simStart), got, end.Sub(simStart), 100*float64(got)/could, could)
	if float64(got) < 0.95*could {
		t.Errorf("%d bytes in the first 3 s, want at least 95 %% of %.0f", got, could)
	}
}

package stream

import (
	"os"
	"testing"
	"time"
)

// TestTrace prints a stream's controller over time (STREAM_TRACE=profile).
func TestTrace(t *testing.T) {
	name := os.Getenv("STREAM_TRACE")
	if name == "" {
		t.Skip("set STREAM_TRACE to a link profile")
	}
	s := newSim(t, profile(t, name), Config{}, 1)
	s.probeEvery = 100 * time.Millisecond
	data := testData(10 << 20)
	wa, wb := 0, 0
	var ga, gb int
	end := s.now.Add(120 * time.Second)
	next := s.now
	last := 0
	for s.now.Before(end) {
		if n := min(s.a.Room(), len(data)-wa); n > 0 {
			s.a.Write(data[wa : wa+n])
			wa += n
		}
		if n := min(s.b.Room(), len(data)-wb); n > 0 {
			s.b.Write(data[wb : wb+n])
			wb += n
		}
		gb += len(s.b.Read())
		ga += len(s.a.Read())
		if !s.now.Before(next) {
			st := s.a.Stats()
			q := time.Duration(0)
			if len(s.queueing) > last {
				q = s.queueing[len(s.queueing)-1]
			}
			last = len(s.queueing)
			sb := s.b.Stats()
			t.Logf("%6.2fs b %-7s q %-6v got %8d mode %-7s rate %7.0f bw %7.0f cwnd %7d infl %7d srtt %v min %v q %v probe %v lost %d",
				s.now.Sub(simStart).Seconds(), sb.Mode, sb.Queue.Round(time.Millisecond), gb, st.Mode, st.Rate, s.a.snd.cc.bandwidth(), st.Window, st.InFlight,
				st.SRTT.Round(time.Millisecond), st.MinRTT.Round(time.Millisecond), st.Queue.Round(time.Millisecond), q.Round(time.Millisecond), st.PacketsLost)
			next = next.Add(250 * time.Millisecond)
		}
		if gb == len(data) && ga == len(data) {
			break
		}
		s.step(end)
	}
}

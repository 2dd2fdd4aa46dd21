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
// 100-packet queue each way), 10 MiB each way at once move at 90 % of
// the link's rate or more (the framing costs 5 %, the acks and the first
// seconds some more), and a small datagram offered beside them (a
// keystroke's frame) waits little at the bottleneck: the median under 30
// ms, the 95th percentile under 60 ms (a key and its echo cross it once
// each way; the session's own guard is TestEchoDuringTransfer). Without
// the random loss too, where no loss ever empties the queue: cruise's
// dips do, so that the peer's measure of the path's delay does not creep
// up with a standing queue.
func TestCS244Throughput(t *testing.T) {
	for _, loss := range []bool{true, false} {
		p := profile(t, "cs244-3g")
		if !loss {
			p.Up.Loss, p.Down.Loss = 0, 0
		}
		s := newSim(t, p, Config{}, 1)
		s.probeEvery = 100 * time.Millisecond
		const size = 10 << 20
		took := s.transfer(testData(size), true, 5*time.Minute)
		rate := float64(size) / took.Seconds()
		prop := 225 * time.Millisecond
		med, p95 := percentile(s.queueing, 0.5)-prop, percentile(s.queueing, 0.95)-prop
		t.Logf("loss %v: %.0f B/s (%.1f %% of 125000), %v; queueing median %v p95 %v; a %+v", loss, rate, rate/1250, took, med, p95, s.a.Stats())
		if rate < 0.9*125000 {
			t.Errorf("loss %v: %.0f B/s, want at least 90 %% of the link's 125000", loss, rate)
		}
		if med > 30*time.Millisecond || p95 > 60*time.Millisecond {
			t.Errorf("loss %v: queueing median %v, p95 %v; want at most 30 ms and 60 ms", loss, med, p95)
		}
	}
}

// TestAckRangesForgotten: over a lossy path the Ack frames name the
// recent gaps only: a range the peer acknowledged receiving is not sent
// again, or each of its packets would carry up to MaxAckRanges of them
// (a tenth of a packet at CS244's 1 % loss).
func TestAckRangesForgotten(t *testing.T) {
	s := newSim(t, profile(t, "cs244-3g"), Config{}, 1)
	most, n, sum := 0, 0, 0
	s.tamper = func(fromA bool, p []byte) [][]byte {
		if pk, err := ParsePacket(p); err == nil && pk.HasAck && s.now.Sub(simStart) > 5*time.Second {
			most, n, sum = max(most, len(pk.Ack.Ranges)), n+1, sum+len(pk.Ack.Ranges)
		}
		return [][]byte{p}
	}
	s.transfer(testData(4<<20), true, 5*time.Minute)
	t.Logf("%d Ack frames: %.1f ranges on average, %d at most", n, float64(sum)/float64(n), most)
	if most > 8 {
		t.Errorf("an Ack frame named %d ranges, want at most 8", most)
	}
}

// TestCS244Short: 2 MiB each way over CS244's 3G link move at 85 % of its
// rate or more, the first seconds included, whether the loop that drives
// the streams wakes at their deadlines or some milliseconds after (a Go
// timer on Linux fires up to a millisecond late, a loaded machine's
// later): the pacing catches up what a late timer held back, and cruise
// starts at the bottleneck's rate, measured while startup's queue drained
// (not by the acknowledgements' timing, which the way back's queue
// bunches), rather than climbing to it.
func TestCS244Short(t *testing.T) {
	for _, late := range []time.Duration{0, time.Millisecond, 3 * time.Millisecond} {
		s := newSim(t, profile(t, "cs244-3g"), Config{}, 1)
		s.late = late
		const size = 2 << 20
		took := s.transfer(testData(size), true, 5*time.Minute)
		rate := float64(size) / took.Seconds()
		t.Logf("%v late: %.0f B/s (%.1f %%), %v", late, rate, rate/1250, took)
		if rate < 0.85*125000 {
			t.Errorf("%v late: %.0f B/s, want at least 85 %% of the link's 125000", late, rate)
		}
	}
}

// TestCruiseSeed: cruise starts from the bottleneck's rate (the link's
// 125000 B/s, counted as the stream counts, with the IP and UDP headers
// the link does not count), within a tenth.
func TestCruiseSeed(t *testing.T) {
	s := newSim(t, profile(t, "cs244-3g"), Config{}, 1)
	data := testData(2 << 20)
	wa, wb := 0, 0
	end := s.now.Add(time.Minute)
	for s.a.snd.cc.mode != modeCruise {
		if n := min(s.a.Room(), len(data)-wa); n > 0 {
			s.a.Write(data[wa : wa+n])
			wa += n
		}
		if n := min(s.b.Room(), len(data)-wb); n > 0 {
			s.b.Write(data[wb : wb+n])
			wb += n
		}
		s.a.Read()
		s.b.Read()
		if !s.step(end) {
			t.Fatalf("no cruise within a minute: %+v", s.a.Stats())
		}
	}
	link := 125000.0 * (budget + DefaultOverhead) / (budget + sealing)
	if got := s.a.snd.cc.roundBW(); got < 0.9*link || got > 1.1*link {
		t.Errorf("cruise starts from %.0f B/s, want %.0f within a tenth", got, link)
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

// TestRequestsAfterBulk: once a transfer is over, a small request and its
// answer each go at once, however many come one after another and in
// however many parts (an open, its data, a close): the answer arrives a
// round trip after the request (plus what the link takes to carry them),
// with no wait for the pacing or for an acknowledgement.
// Rounds of a few small packets tell nothing of the path's rate, and must
// not lower the rate the transfer found.
func TestRequestsAfterBulk(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bulk  int
		slack time.Duration // the link's serialisation of the request and answer, and a margin
	}{
		{"lan", 4 << 20, 100 * time.Microsecond},
		{"evdo", 1 << 20, 21 * time.Millisecond}, // its jitter: 0 to 10 ms each way
		{"cs244-3g", 1 << 20, 5 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := profile(t, tc.name)
			p.Up.Loss, p.Down.Loss = 0, 0 // a lost request waits for its recovery: not this test's concern
			s := newSim(t, p, Config{}, 1)
			s.transfer(testData(tc.bulk), true, 5*time.Minute)
			rtt := p.Up.Delay + p.Down.Delay
			for i := range 20 {
				s.idle(200 * time.Millisecond)
				took := s.exchange(20, 40, 10)
				if took > rtt+tc.slack {
					t.Fatalf("request %d: answered in %v, want at most %v; a %+v", i, took, rtt+tc.slack, s.a.Stats())
				}
			}
		})
	}
}

// TestShallowQueue: on a fast path whose bottleneck holds only 8 packets
// (a LAN's socket buffers; 0.4 ms of queue, below anything the delays
// show), the rounds that lose a fifth of their packets lower cruise's
// rate too, and the window allows the round trip the acknowledgements
// take: 8 MiB each way at 80 % of the link or more, under a sixth of the
// packets lost. (Cruise's rate once ignored such losses: 60 % of the
// link, a third of the packets lost.)
func TestShallowQueue(t *testing.T) {
	link := linkem.Config{Delay: 500 * time.Microsecond, Rate: 200e6, Queue: 8}
	s := newSim(t, linkem.Profile{Up: link, Down: link}, Config{}, 1)
	const size = 8 << 20
	took := s.transfer(testData(size), true, time.Minute)
	rate := float64(size) / took.Seconds()
	st := s.a.Stats()
	t.Logf("%.1f MB/s of 25; lost %d of %d packets", rate/1e6, st.PacketsLost, st.PacketsSent)
	if rate < 0.8*25e6 || st.PacketsLost*6 > st.PacketsSent {
		t.Errorf("%.1f MB/s with %d of %d packets lost; want at least 20 MB/s and under a sixth lost", rate/1e6, st.PacketsLost, st.PacketsSent)
	}
}

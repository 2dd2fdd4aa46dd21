package stream

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
)

// TestTransferTable: a transfer both ways arrives whole and in order
// whatever the path does to the packets: loss, reordering, duplication,
// corruption the session would have rejected (here: truncation, which
// the stream drops), an outage.
func TestTransferTable(t *testing.T) {
	lossy := linkem.Config{Delay: 20 * time.Millisecond, Loss: 0.1, Rate: 8e6, Queue: 200}
	reorder := linkem.Config{Delay: 20 * time.Millisecond, Jitter: 15 * time.Millisecond, Reorder: true}
	outage := linkem.Config{Delay: 30 * time.Millisecond, Outages: []linkem.Outage{{Start: 100 * time.Millisecond, Duration: 30 * time.Second}}}
	cases := []struct {
		name   string
		link   linkem.Config
		tamper func(rng *rand.Rand, p []byte) [][]byte
		limit  time.Duration
	}{
		{"clean", linkem.Config{Delay: 10 * time.Millisecond}, nil, 5 * time.Second},
		{"10% loss", lossy, nil, time.Minute},
		{"reordering", reorder, nil, 10 * time.Second},
		{"duplicates", linkem.Config{Delay: 10 * time.Millisecond}, func(rng *rand.Rand, p []byte) [][]byte {
			if rng.IntN(4) == 0 {
				return [][]byte{p, p}
			}
			return [][]byte{p}
		}, 10 * time.Second},
		{"truncated", linkem.Config{Delay: 10 * time.Millisecond}, func(rng *rand.Rand, p []byte) [][]byte {
			if rng.IntN(10) == 0 {
				// A cut at a frame's boundary leaves a valid packet of
				// fewer frames, which no path makes: the session's
				// authentication refuses any change. The stream must drop
				// the others.
				for {
					if cut := p[:rng.IntN(len(p))]; func() bool { _, err := ParsePacket(cut); return err != nil }() {
						return [][]byte{cut}
					}
				}
			}
			return [][]byte{p}
		}, 20 * time.Second},
		{"30 s outage", outage, nil, 2 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, linkem.Profile{Up: tc.link, Down: tc.link}, Config{}, 3)
			rng := rand.New(rand.NewPCG(1, 2))
			if tc.tamper != nil {
				s.tamper = func(_ bool, p []byte) [][]byte { return tc.tamper(rng, p) }
			}
			took := s.transfer(testData(1<<20), true, tc.limit)
			t.Logf("%v; a %+v", took, s.a.Stats())
		})
	}
}

// TestOutageResumes: after a 30 s outage the stream sends again within
// its probe timeout's cap of the link's return, and at the path's rate
// soon after: the congestion control starts again, and the packets the
// outage took are not losses of the path it starts on (counted as such,
// they ended its startup at once, and cruise crept up from nothing: the
// rest of 4 MiB took 6 s more).
func TestOutageResumes(t *testing.T) {
	link := linkem.Config{Delay: 30 * time.Millisecond, Outages: []linkem.Outage{{Start: 150 * time.Millisecond, Duration: 30 * time.Second}}}
	s := newSim(t, linkem.Profile{Up: link, Down: link}, Config{}, 1)
	took := s.transfer(testData(4<<20), false, 2*time.Minute)
	if limit := 30150*time.Millisecond + maxProbeTimeout + time.Second; took > limit {
		t.Errorf("4 MiB across a 30 s outage took %v; want under %v", took, limit)
	}
}

// TestWindowGrowth: on a path with no rate limit, the window grows to
// the bandwidth-delay product of what the sender has: 8 MiB over a 100
// ms round trip go in well under a second more than the round trips of
// a doubling each.
func TestWindowGrowth(t *testing.T) {
	link := linkem.Config{Delay: 50 * time.Millisecond}
	s := newSim(t, linkem.Profile{Up: link, Down: link}, Config{}, 1)
	took := s.transfer(testData(8<<20), false, time.Minute)
	if st := s.a.Stats(); took > 1500*time.Millisecond || st.Window < 1<<20 {
		t.Errorf("8 MiB over 100 ms took %v with a window of %d; want under 1.5 s and a window over 1 MiB", took, st.Window)
	}
}

// TestLateAckOfProbe: a probe carries again the bytes of the oldest
// packet in flight; when the original's acknowledgement comes first and
// the probe's after it, the probe's names bytes below what is already
// acknowledged in order. They stay acknowledged: the sender once took
// such an acknowledgement for the start of its data, moved back to it,
// and waited for ever for bytes it would never send again (a transfer
// over the lan link, losing a fifth of its packets at the sockets, hung
// one run in twenty).
func TestLateAckOfProbe(t *testing.T) {
	now := simStart
	a, b := New(Config{RTT: 10 * time.Millisecond}, now), New(Config{RTT: 10 * time.Millisecond}, now)
	data := testData(3 * budget)
	a.Write(data)
	var first [][]byte
	for p := a.Poll(now, nil, budget); p != nil; p = a.Poll(now, nil, budget) {
		first = append(first, p)
	}
	now = now.Add(time.Second) // nothing acknowledged: a probe timeout
	var probes [][]byte
	for p := a.Poll(now, nil, budget); p != nil; p = a.Poll(now, nil, budget) {
		probes = append(probes, p)
	}
	if len(first) == 0 || len(probes) == 0 {
		t.Fatalf("%d packets, then %d probes; want some of each", len(first), len(probes))
	}
	exchange := func(ps [][]byte) {
		for _, p := range ps {
			b.Receive(now, p)
		}
		for p := b.Poll(now, nil, budget); p != nil; p = b.Poll(now, nil, budget) {
			a.Receive(now, p)
		}
	}
	exchange(first)
	if a.Acked() != uint64(len(data)) {
		t.Fatalf("acked to %d after the first packets; want %d", a.Acked(), len(data))
	}
	now = now.Add(time.Millisecond)
	exchange(probes)
	if a.Acked() != uint64(len(data)) || a.Buffered() != 0 {
		t.Errorf("after the probes' acknowledgement: acked to %d with %d bytes buffered; want %d and 0", a.Acked(), a.Buffered(), len(data))
	}
	if got := b.Read(); len(got) != len(data) {
		t.Errorf("b read %d bytes; want %d", len(got), len(data))
	}
}

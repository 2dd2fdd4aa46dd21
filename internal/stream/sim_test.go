package stream

import (
	"bytes"
	"container/heap"
	"slices"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
)

// sealing is what the session adds to a stream packet in its datagram
// (nonce, tag, timestamps, aux header): the link model counts datagrams.
const sealing = DefaultOverhead - 28

// budget is the stream's packet size in the simulations: an IPv4
// datagram's 1252 bytes less the sealing.
const budget = 1252 - sealing

// sim runs two streams over two link models (a to b: up; b to a: down)
// in virtual time.
type sim struct {
	t        *testing.T
	now      time.Time
	a, b     *Stream
	up, down *linkem.Model
	q        deliveries
	seq      int
	// tamper, if set, may change, drop (nil) or duplicate a packet.
	tamper func(fromA bool, p []byte) [][]byte
	// Probes: small datagrams offered beside the streams, as a
	// keystroke's frame would be, and the delay each saw above the
	// link's propagation delay.
	probeEvery time.Duration
	nextProbe  time.Time
	queueing   []time.Duration
	// late is how much after a stream's deadline the sim polls it, as a
	// loop's timer fires late: Go's timers on Linux, a loaded machine.
	late time.Duration
}

type delivery struct {
	at    time.Time
	seq   int
	toA   bool
	probe time.Time // for a probe: when it was offered
	p     []byte
}

type deliveries []delivery

func (d deliveries) Len() int { return len(d) }
func (d deliveries) Less(i, j int) bool {
	return d[i].at.Before(d[j].at) || d[i].at.Equal(d[j].at) && d[i].seq < d[j].seq
}
func (d deliveries) Swap(i, j int) { d[i], d[j] = d[j], d[i] }
func (d *deliveries) Push(x any)   { *d = append(*d, x.(delivery)) }
func (d *deliveries) Pop() any {
	old := *d
	x := old[len(old)-1]
	*d = old[:len(old)-1]
	return x
}

var simStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func newSim(t *testing.T, p linkem.Profile, cfg Config, seed uint64) *sim {
	s := &sim{t: t, now: simStart}
	s.up = linkem.NewModel(p.Up, seed, s.now)
	s.down = linkem.NewModel(p.Down, seed+1, s.now)
	if cfg.RTT == 0 {
		cfg.RTT = 2*p.Up.Delay + time.Millisecond
	}
	s.a, s.b = New(cfg, s.now), New(cfg, s.now)
	return s
}

// offer puts a datagram on the link from a (or b).
func (s *sim) offer(fromA bool, p []byte, probe time.Time) {
	m := s.up
	if !fromA {
		m = s.down
	}
	at, ok := m.Offer(s.now, len(p)+sealing)
	if !ok {
		return
	}
	s.seq++
	heap.Push(&s.q, delivery{at: at, seq: s.seq, toA: !fromA, p: p, probe: probe})
}

// poll sends what both streams have to send now.
func (s *sim) poll() {
	for _, fromA := range []bool{true, false} {
		st := s.a
		if !fromA {
			st = s.b
		}
		for {
			p := st.Poll(s.now, nil, budget)
			if p == nil {
				break
			}
			ps := [][]byte{p}
			if s.tamper != nil {
				ps = s.tamper(fromA, p)
			}
			for _, p := range ps {
				s.offer(fromA, p, time.Time{})
			}
		}
	}
	if s.probeEvery > 0 && !s.now.Before(s.nextProbe) {
		s.nextProbe = s.now.Add(s.probeEvery)
		s.offer(true, make([]byte, 100-sealing), s.now)
		s.offer(false, make([]byte, 100-sealing), s.now)
	}
}

// step advances to the next event (a delivery or a deadline), at most to
// limit, and reports whether time moved.
func (s *sim) step(limit time.Time) bool {
	s.poll()
	next := limit
	for _, d := range []time.Time{s.a.NextDeadline(), s.b.NextDeadline()} {
		if d = d.Add(s.late); !d.IsZero() && d.Before(next) {
			next = d
		}
	}
	if !s.nextProbe.IsZero() && s.nextProbe.Before(next) {
		next = s.nextProbe
	}
	if len(s.q) > 0 && s.q[0].at.Before(next) {
		next = s.q[0].at
	}
	if !next.After(s.now) {
		next = s.now.Add(time.Microsecond)
	}
	if next.After(limit) {
		return false
	}
	s.now = next
	for len(s.q) > 0 && !s.q[0].at.After(s.now) {
		d := heap.Pop(&s.q).(delivery)
		if !d.probe.IsZero() {
			s.queueing = append(s.queueing, d.at.Sub(d.probe))
			continue
		}
		st := s.a
		if !d.toA {
			st = s.b
		}
		st.Receive(s.now, d.p)
	}
	return true
}

// transfer sends data from a to b (and back, if both) and returns how
// long until b (and a) had all of it, checking every byte.
func (s *sim) transfer(data []byte, both bool, limit time.Duration) time.Duration {
	s.t.Helper()
	start := s.now
	end := start.Add(limit)
	var gotB, gotA []byte
	wa, wb := 0, 0
	for {
		if n := min(s.a.Room(), len(data)-wa); n > 0 {
			s.a.Write(data[wa : wa+n])
			wa += n
		}
		if both {
			if n := min(s.b.Room(), len(data)-wb); n > 0 {
				s.b.Write(data[wb : wb+n])
				wb += n
			}
		}
		gotB = append(gotB, s.b.Read()...)
		gotA = append(gotA, s.a.Read()...)
		if len(gotB) == len(data) && (!both || len(gotA) == len(data)) {
			break
		}
		if !s.step(end) {
			s.t.Fatalf("after %v: b has %d of %d bytes, a %d; a: %+v; b: %+v", limit, len(gotB), len(data), len(gotA), s.a.Stats(), s.b.Stats())
		}
	}
	if !bytes.Equal(gotB, data) || both && !bytes.Equal(gotA, data) {
		s.t.Fatal("the bytes arrived corrupted")
	}
	return s.now.Sub(start)
}

// testData returns n bytes no two runs of which are alike.
func testData(n int) []byte {
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p)]
}

// idle lets d pass with nothing written.
func (s *sim) idle(d time.Duration) {
	end := s.now.Add(d)
	for s.step(end) {
		s.a.Read()
		s.b.Read()
	}
	s.now = end
}

// exchange writes a request from a to b in parts, each 10 µs after the
// one before (the first already sent), as a forwarded connection's open
// and its first data go; b answers likewise once the whole request
// arrived. It returns how long a waited for the whole answer.
func (s *sim) exchange(parts ...int) time.Duration {
	s.t.Helper()
	start := s.now
	end := start.Add(time.Minute)
	n := 0
	for _, p := range parts {
		n += p
	}
	s.send(s.a, parts)
	got, back := 0, 0
	for back < n {
		if got += len(s.b.Read()); got == n {
			s.send(s.b, parts)
			got++
		}
		back += len(s.a.Read())
		if back < n && !s.step(end) {
			s.t.Fatalf("no answer within a minute: b got %d of %d bytes, a %d", got, n, back)
		}
	}
	return s.now.Sub(start)
}

// send writes parts into st 10 µs apart, each sent (if its stream lets
// it) before the next is written.
func (s *sim) send(st *Stream, parts []int) {
	for i, p := range parts {
		if i > 0 {
			at := s.now.Add(10 * time.Microsecond)
			for s.step(at) {
			}
			s.now = at
		}
		st.Write(testData(p))
		s.poll()
	}
}

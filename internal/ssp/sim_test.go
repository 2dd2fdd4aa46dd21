package ssp_test

import (
	"container/heap"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// linkModel describes one direction of the simulated path.
type linkModel struct {
	loss    float64       // i.i.d. drop probability
	dup     float64       // probability of delivering a second copy
	reorder float64       // probability of an extra delay that reorders
	delay   time.Duration // one-way base delay
	jitter  time.Duration // uniform extra delay in [0, jitter)

	// em, if set, decides every datagram's fate instead (with 28 bytes
	// of IPv4 and UDP headers): a bottleneck with a queue, a cellular
	// link.
	em *linkem.Model
}

// delivery is a datagram in flight.
type delivery struct {
	at    time.Time
	toSrv bool
	from  netip.AddrPort
	data  []byte
	order int // FIFO among equal times
}

type deliveryHeap []delivery

func (h deliveryHeap) Len() int { return len(h) }
func (h deliveryHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].order < h[j].order
}
func (h deliveryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *deliveryHeap) Push(x any)   { *h = append(*h, x.(delivery)) }
func (h *deliveryHeap) Pop() any {
	old := *h
	d := old[len(old)-1]
	*h = old[:len(old)-1]
	return d
}

// sim runs a client and a server Transport over a simulated network in
// virtual time. Everything is deterministic for a given seed.
type sim struct {
	t        testing.TB
	now      time.Time
	r        *rand.Rand
	client   *ssp.Transport[*ssptest.Log, *ssptest.Log]
	server   *ssp.Transport[*ssptest.Log, *ssptest.Log]
	up       linkModel // client to server
	down     linkModel // server to client
	inFlight deliveryHeap
	seq      int

	clientAddr netip.AddrPort // the client's current source address
	serverAddr netip.AddrPort
	key        sspcrypto.Key

	// onSend, if set, sees every datagram sent (after the fact).
	onSend func(toSrv bool, at time.Time, data []byte)
}

// logState is the state both sides of a sim synchronize.
type logState = ssptest.Log

var simEpoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func newSim(t testing.TB, seed uint64, up, down linkModel, cfg ssp.Config) *sim {
	t.Helper()
	key, err := sspcrypto.NewKey(rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 1}))
	if err != nil {
		t.Fatal(err)
	}
	s := &sim{
		t: t, now: simEpoch, r: rand.New(rand.NewPCG(seed, 99)), up: up, down: down,
		clientAddr: netip.MustParseAddrPort("192.0.2.10:50000"),
		serverAddr: netip.MustParseAddrPort("198.51.100.1:60001"),
	}
	s.key = key
	ccfg, scfg := cfg, cfg
	ccfg.Key, scfg.Key = key, key
	ccfg.Remote, ccfg.Server = s.serverAddr, false
	scfg.Server = true
	ccfg.Rand = rand.NewChaCha8([32]byte{byte(seed), 2})
	scfg.Rand = rand.NewChaCha8([32]byte{byte(seed), 3})
	if s.client, err = ssp.NewTransport(ccfg, ssptest.NewLog(), ssptest.NewLog(), s.now); err != nil {
		t.Fatal(err)
	}
	if s.server, err = ssp.NewTransport(scfg, ssptest.NewLog(), ssptest.NewLog(), s.now); err != nil {
		t.Fatal(err)
	}
	return s
}

// tickAll ticks both transports at now and puts their datagrams in flight.
func (s *sim) tickAll() {
	s.tick(s.client, true)
	s.tick(s.server, false)
}

func (s *sim) tick(tr *ssp.Transport[*ssptest.Log, *ssptest.Log], toSrv bool) {
	out, err := tr.Tick(s.now)
	if err != nil {
		s.t.Fatalf("Tick: %v", err)
	}
	to, ok := tr.RemoteAddr()
	if !ok && len(out) > 0 {
		s.t.Fatalf("Tick returned %d datagrams with no remote address", len(out))
	}
	for _, d := range out {
		if s.onSend != nil {
			s.onSend(toSrv, s.now, d)
		}
		s.transmit(toSrv, to, append([]byte(nil), d...))
	}
}

// transmit applies the link model to one datagram.
func (s *sim) transmit(toSrv bool, to netip.AddrPort, data []byte) {
	m, from := s.down, s.serverAddr
	if toSrv {
		m, from = s.up, s.clientAddr
		if to != s.serverAddr {
			s.t.Fatalf("client sent to %v, not the server %v", to, s.serverAddr)
		}
	} else if to != s.clientAddr {
		return // to an address the client left: lost
	}
	if m.em != nil {
		if at, ok := m.em.Offer(s.now, len(data)+28); ok {
			s.seq++
			heap.Push(&s.inFlight, delivery{at: at, toSrv: toSrv, from: from, data: data, order: s.seq})
		}
		return
	}
	copies := 1
	if s.r.Float64() < m.dup {
		copies = 2
	}
	for range copies {
		if s.r.Float64() < m.loss {
			continue
		}
		delay := m.delay
		if m.jitter > 0 {
			delay += time.Duration(s.r.Int64N(int64(m.jitter)))
		}
		if s.r.Float64() < m.reorder {
			delay += 3 * m.delay
		}
		s.seq++
		heap.Push(&s.inFlight, delivery{at: s.now.Add(delay), toSrv: toSrv, from: from, data: data, order: s.seq})
	}
}

// deliverDue delivers every datagram due by now.
func (s *sim) deliverDue() {
	for len(s.inFlight) > 0 && !s.inFlight[0].at.After(s.now) {
		d := heap.Pop(&s.inFlight).(delivery)
		tr := s.client
		if d.toSrv {
			tr = s.server
		}
		// Drops are counted in Stats and checked by the tests.
		_ = tr.Receive(s.now, d.data, d.from)
	}
}

// next returns the earliest pending event: a transport deadline or a
// delivery; zero if none.
func (s *sim) next() time.Time {
	var t time.Time
	consider := func(x time.Time) {
		if !x.IsZero() && (t.IsZero() || x.Before(t)) {
			t = x
		}
	}
	consider(s.client.NextDeadline())
	consider(s.server.NextDeadline())
	if len(s.inFlight) > 0 {
		consider(s.inFlight[0].at)
	}
	return t
}

// runUntil advances virtual time, event by event, up to end or until
// done reports true (checked after every event). It reports whether done
// became true.
func (s *sim) runUntil(end time.Time, done func() bool) bool {
	stuck := 0
	for {
		s.deliverDue()
		s.tickAll()
		if done != nil && done() {
			return true
		}
		n := s.next()
		if n.IsZero() || n.After(end) {
			s.now = end
			s.deliverDue()
			s.tickAll()
			return done != nil && done()
		}
		if !n.After(s.now) {
			if stuck++; stuck > 1000 {
				s.t.Fatalf("at %v: deadline %v is due but nothing happens", s.now.Sub(simEpoch), n.Sub(simEpoch))
			}
			continue
		}
		stuck = 0
		s.now = n
	}
}

// run advances virtual time by d.
func (s *sim) run(d time.Duration) { s.runUntil(s.now.Add(d), nil) }

// converged reports whether each side's newest remote state equals the
// other side's live state.
func (s *sim) converged() bool {
	return s.server.Remote().Equal(s.client.Current()) && s.client.Remote().Equal(s.server.Current())
}

// checkNoBadDrops fails on any drop that a healthy session must never
// see; stale fragments (reordering across instructions) are allowed.
func checkNoBadDrops(t testing.TB, name string, st ssp.Stats) {
	t.Helper()
	for r := ssp.DropReason(0); r < ssp.NumDropReasons; r++ {
		if r != ssp.DropStale && st.Dropped[r] != 0 {
			t.Errorf("%s dropped %d datagrams for %q", name, st.Dropped[r], r)
		}
	}
}

// transmitCopy puts a copy of data in flight as if sent now (toSrv: from
// the client to the server), after everything already sent.
func (s *sim) transmitCopy(toSrv bool, data []byte) {
	to := s.clientAddr
	if toSrv {
		to = s.serverAddr
	}
	s.transmit(toSrv, to, append([]byte(nil), data...))
}

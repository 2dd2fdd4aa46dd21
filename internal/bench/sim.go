package bench

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net/netip"
	"slices"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// SimConfig is one emulated link and workload for [Simulate]: a server
// whose screen changes at a steady rate, sent to a client over a link with
// independent loss and a fixed delay in each direction.
type SimConfig struct {
	Loss     float64       // probability that a datagram is lost, each direction
	Delay    time.Duration // one-way delay
	Duration time.Duration // simulated time
	// FrameInterval is how often the server's screen changes.
	FrameInterval time.Duration
	// Lambda is the transport's reference-state policy: the probability of
	// diffing from the acknowledged state instead of the assumed one
	// (0 is Mosh's rule).
	Lambda float64
	Seed   uint64
}

// SimResult is what a simulation measured at the client.
type SimResult struct {
	// MeanAge, P99Age and MaxAge summarise the Age of Information: at each
	// millisecond, how long ago the server generated the newest screen the
	// client has.
	MeanAge, P99Age, MaxAge time.Duration
	// Datagrams and Bytes are what the server sent.
	Datagrams, Bytes int
	// Frames is how many screens the server generated; Seen how many
	// distinct ones the client ever held.
	Frames, Seen int
}

// Simulate runs a server and a client transport over an emulated link, in
// simulated time, and measures how fresh the client's copy of the server's
// screen is.
func Simulate(cfg SimConfig) (SimResult, error) {
	if cfg.Duration <= 0 || cfg.FrameInterval <= 0 {
		return SimResult{}, errors.New("bench: simulation needs a duration and a frame interval")
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x905))
	key, err := sspcrypto.NewKey(chachaReader{rand.NewChaCha8([32]byte{byte(cfg.Seed)})})
	if err != nil {
		return SimResult{}, err
	}
	start := time.Unix(1_000_000, 0)
	srvAddr := netip.MustParseAddrPort("192.0.2.1:60001")
	cliAddr := netip.MustParseAddrPort("198.51.100.7:50000")
	seeded := chachaReader{rand.NewChaCha8([32]byte{byte(cfg.Seed), 1})}
	cli, err := ssp.NewTransport(ssp.Config{Key: key, Remote: srvAddr, Rand: seeded},
		newScreen(), newScreen(), start)
	if err != nil {
		return SimResult{}, err
	}
	srv, err := ssp.NewTransport(ssp.Config{Key: key, Server: true, KnownStateProbability: cfg.Lambda, Rand: seeded},
		newScreen(), newScreen(), start)
	if err != nil {
		return SimResult{}, err
	}

	var res SimResult
	var q packetQueue
	var sent int
	generated := []time.Time{start} // generation time of each frame number
	send := func(now time.Time, out [][]byte, toServer bool) {
		for _, d := range out {
			if !toServer {
				res.Datagrams++
				res.Bytes += len(d)
			}
			if rng.Float64() < cfg.Loss {
				continue
			}
			sent++
			heap.Push(&q, simPacket{at: now.Add(cfg.Delay), toServer: toServer, data: slices.Clone(d), seq: sent})
		}
	}
	end := start.Add(cfg.Duration)
	nextFrame := start.Add(cfg.FrameInterval)
	var ages []time.Duration
	var sum time.Duration
	seen := map[uint64]bool{}
	for now := start; now.Before(end); now = now.Add(time.Millisecond) {
		for !nextFrame.After(now) {
			srv.Current().set(uint64(len(generated)))
			generated = append(generated, nextFrame)
			nextFrame = nextFrame.Add(cfg.FrameInterval)
		}
		for q.Len() > 0 && !q[0].at.After(now) {
			p := heap.Pop(&q).(simPacket)
			if p.toServer {
				_ = srv.Receive(now, p.data, cliAddr)
			} else {
				_ = cli.Receive(now, p.data, srvAddr)
			}
		}
		out, err := cli.Tick(now)
		if err != nil {
			return res, err
		}
		send(now, out, true)
		out, err = srv.Tick(now)
		if err != nil {
			return res, err
		}
		send(now, out, false)

		n := cli.Remote().n
		seen[n] = true
		age := now.Sub(generated[n])
		ages = append(ages, age)
		sum += age
	}
	res.Frames = len(generated) - 1
	res.Seen = len(seen) - 1
	slices.Sort(ages)
	res.MeanAge = sum / time.Duration(len(ages))
	res.P99Age = ages[len(ages)*99/100]
	res.MaxAge = ages[len(ages)-1]
	return res, nil
}

// screen is a stand-in for the terminal state: frame n of the server's
// screen. Like a real screen diff, a diff from an older frame is larger
// (more has changed since), up to a full repaint, and it applies only to
// the frame it was computed from.
type screen struct{ n uint64 }

const (
	bytesPerFrame = 60   // what one frame changes on the screen
	fullRepaint   = 2400 // a whole 80×24 screen
)

func newScreen() *screen               { return &screen{} }
func (s *screen) set(n uint64)         { s.n = n }
func (s *screen) Clone() *screen       { c := *s; return &c }
func (s *screen) Equal(o *screen) bool { return s.n == o.n }
func (s *screen) Subtract(*screen)     {}
func (s *screen) Footprint() int       { return fullRepaint }

// Diff encodes the base frame, the new frame and filler text standing for
// the changed cells.
func (s *screen) Diff(from *screen) []byte {
	if s.n == from.n {
		return nil
	}
	changed := min(int(s.n-from.n)*bytesPerFrame, fullRepaint)
	d := binary.BigEndian.AppendUint64(nil, from.n)
	d = binary.BigEndian.AppendUint64(d, s.n)
	for i := range changed {
		d = append(d, "the quick brown fox jumps over the lazy dog 0123456789"[(i*7+int(s.n))%54])
	}
	return d
}

var errWrongBase = errors.New("bench: screen diff applied to the wrong frame")

func (s *screen) Apply(diff []byte) error {
	if len(diff) < 16 {
		return errors.New("bench: short screen diff")
	}
	if binary.BigEndian.Uint64(diff) != s.n {
		return errWrongBase
	}
	s.n = binary.BigEndian.Uint64(diff[8:])
	return nil
}

type simPacket struct {
	at       time.Time
	toServer bool
	data     []byte
	seq      int // keeps equal-time packets in send order
}

type packetQueue []simPacket

func (q packetQueue) Len() int { return len(q) }
func (q packetQueue) Less(i, j int) bool {
	if q[i].at.Equal(q[j].at) {
		return q[i].seq < q[j].seq
	}
	return q[i].at.Before(q[j].at)
}
func (q packetQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *packetQueue) Push(x any)   { *q = append(*q, x.(simPacket)) }
func (q *packetQueue) Pop() any {
	old := *q
	p := old[len(old)-1]
	*q = old[:len(old)-1]
	return p
}

// chachaReader adapts a seeded ChaCha8 generator to io.Reader, so keys and
// chaff are reproducible.
type chachaReader struct{ c *rand.ChaCha8 }

func (r chachaReader) Read(p []byte) (int, error) { return r.c.Read(p) }

package linkem

import (
	"container/heap"
	"sync"
	"time"
)

// Pipe is one direction of an emulated link in real time: the I/O shell
// around a [Model]. Send offers a packet to the model at the current time,
// and the pipe's goroutine hands each surviving packet to deliver at its
// delivery time, in delivery-time order (packets due at the same instant
// in the order sent). One goroutine and one timer, re-armed to the
// earliest pending delivery, serve all packets.
//
// Go's timers can fire up to a millisecond late on Linux (the runtime
// waits for them in epoll_wait, which counts whole milliseconds), so
// where the platform allows, the pipe arms its timer 2 ms early and
// sleeps the rest of the way in the kernel, which keeps to tens of
// microseconds. A packet sent during that last stretch with an earlier
// delivery time than the one awaited (possible only with Reorder or after
// SetConfig) waits for the stretch to end. Under testing/synctest, whose
// clock a sleep in the kernel does not move, the pipe notices and uses
// its timer alone.
//
// A Pipe is safe for concurrent use.
type Pipe struct {
	// Owned by run:
	deliver func([]byte)
	precise bool // finish waits with preciseSleep

	mu      sync.Mutex // guards following
	model   *Model
	pending packetHeap
	seq     uint64 // of the next packet sent
	closed  bool
	handed  uint64 // packets handed to deliver
	bytes   uint64 // their bytes

	// Inputs to run:
	wake      chan struct{} // buffered 1: the earliest delivery changed
	done      chan struct{} // closed by Close
	stopped   chan struct{} // closed when run returns
	closeOnce sync.Once
}

// NewPipe starts a pipe modelled by cfg and seeded with seed, handing
// packets to deliver. deliver runs on the pipe's goroutine, one packet at
// a time; it must not call the pipe's Close. It panics if cfg is not
// valid ([Config.Validate]).
func NewPipe(cfg Config, seed uint64, deliver func([]byte)) *Pipe {
	p := &Pipe{
		deliver: deliver,
		precise: preciseSleepWorks,
		model:   NewModel(cfg, seed, time.Now()),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go p.run()
	return p
}

// Send offers b to the link now, as a packet of len(b) bytes. The pipe
// takes ownership of b. After Close, Send drops b.
func (p *Pipe) Send(b []byte) { p.SendSized(b, len(b)) }

// SendSized offers b to the link now as a packet of size bytes on the
// wire: b and the headers the link carries but b lacks (a UDP payload's
// IP and UDP headers). The bottleneck serialises size bytes, and the
// counts are of size. The pipe takes ownership of b. After Close,
// SendSized drops b.
func (p *Pipe) SendSized(b []byte, size int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	at, ok := p.model.Offer(time.Now(), size)
	if !ok {
		return
	}
	heap.Push(&p.pending, packet{at: at, seq: p.seq, b: b, size: size})
	p.seq++
	if p.pending[0].seq == p.seq-1 {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// SetConfig changes the link's configuration from now on, as
// [Model.SetConfig] does. It panics if cfg is not valid.
func (p *Pipe) SetConfig(cfg Config) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.model.SetConfig(time.Now(), cfg)
}

// SetOutage starts (on) or ends (off) a total outage of the link: packets
// sent meanwhile are lost; those already on their way still arrive.
func (p *Pipe) SetOutage(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.model.SetOutage(on)
}

// Stats returns the model's counts, except that Delivered counts the
// packets handed to deliver and Pending those accepted and not yet handed
// over (Close discards them).
func (p *Pipe) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.model.Stats()
	s.Delivered, s.DeliveredBytes, s.Pending = p.handed, p.bytes, len(p.pending)
	return s
}

// Close stops the pipe, discards the packets still pending and waits for
// its goroutine to return, including a deliver call under way. Close is
// idempotent.
func (p *Pipe) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.pending = nil
		p.mu.Unlock()
		close(p.done)
	})
	<-p.stopped
}

// run is the pipe's goroutine: it delivers the packets that are due,
// then sleeps until the next one is due or Send brings an earlier one.
func (p *Pipe) run() {
	defer close(p.stopped)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		due, next := p.takeDue(time.Now())
		for _, b := range due {
			p.deliver(b)
		}
		if next.IsZero() {
			timer.Stop()
		} else {
			wait := time.Until(next)
			if p.precise && wait <= preciseWindow {
				if wait > 0 {
					before := time.Now()
					preciseSleep(wait)
					p.precise = time.Now().After(before) // false in a synctest bubble
				}
				continue
			}
			if p.precise {
				wait -= preciseWindow
			}
			timer.Reset(wait)
		}
		select {
		case <-p.done:
			return
		case <-p.wake:
		case <-timer.C:
		}
	}
}

// takeDue removes and returns the packets due by now, in order, and the
// delivery time of the next one (zero if none).
func (p *Pipe) takeDue(now time.Time) (due [][]byte, next time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.pending) > 0 && !p.pending[0].at.After(now) {
		pk := heap.Pop(&p.pending).(packet)
		p.handed++
		p.bytes += uint64(pk.size)
		due = append(due, pk.b)
	}
	if len(p.pending) > 0 {
		next = p.pending[0].at
	}
	return due, next
}

// packet is a packet on its way through a Pipe.
type packet struct {
	at   time.Time // delivery time
	seq  uint64    // order of sending, to break ties
	b    []byte
	size int // on the wire (SendSized)
}

// packetHeap orders packets by delivery time, then by sending order.
type packetHeap []packet

func (h packetHeap) Len() int { return len(h) }
func (h packetHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h packetHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *packetHeap) Push(x any)   { *h = append(*h, x.(packet)) }
func (h *packetHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = packet{}
	*h = old[:len(old)-1]
	return x
}

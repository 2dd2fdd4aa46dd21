package stream

import (
	"errors"
	"time"
)

// DefaultTarget is the queueing delay a stream's congestion control
// holds at the path's bottleneck, unless Config says otherwise: a
// keystroke's frame and its echo each wait about this long behind the
// stream's data there.
const DefaultTarget = 3 * time.Millisecond

// DefaultOverhead is what a packet costs on the wire beyond its stream
// encoding, unless Config says otherwise: the session's sealing (nonce,
// tag, timestamps, aux header) and IPv4 and UDP headers.
const DefaultOverhead = 8 + 16 + 4 + 2 + 28

// Config configures a [Stream]. The zero value is the default of each
// field.
type Config struct {
	// Target is the queueing delay to hold at the bottleneck; zero
	// means DefaultTarget.
	Target time.Duration
	// RTT is the path's round trip as the caller knows it (the
	// session's); zero means 100 ms. The first round trip is paced
	// over it.
	RTT time.Duration
	// SendBuffer bounds, for Room, the bytes written and not yet
	// acknowledged in order; zero or above Window means Window.
	SendBuffer int
	// Overhead is what each packet costs on the wire beyond its
	// encoding, for pacing; zero means DefaultOverhead.
	Overhead int
}

func (c *Config) fill() {
	if c.Target <= 0 {
		c.Target = DefaultTarget
	}
	if c.RTT <= 0 {
		c.RTT = 100 * time.Millisecond
	}
	if c.SendBuffer <= 0 || c.SendBuffer > Window {
		c.SendBuffer = Window
	}
	if c.Overhead <= 0 {
		c.Overhead = DefaultOverhead
	}
}

// Stream is one end of a reliable, ordered, congestion-controlled byte
// stream over datagrams (see the package documentation). It is a pure
// core: the caller writes bytes with [Stream.Write], sends what
// [Stream.Poll] returns, feeds received packets to [Stream.Receive],
// takes the bytes that arrived in order with [Stream.Read], and calls
// Poll again at [Stream.NextDeadline].
//
// Stream is not safe for concurrent use.
type Stream struct {
	cfg   Config
	snd   sender
	rcv   receiver
	stats Stats

	scratch []byte // an Ack frame's encoding, for its size
}

// Stats are a stream's counts and estimates.
type Stats struct {
	PacketsSent, PacketsReceived uint64
	BytesSent                    uint64 // stream bytes sent, retransmissions included
	BytesRetransmitted           uint64
	PacketsLost                  uint64 // declared lost
	Spurious                     uint64 // declared lost, then acknowledged
	Dropped                      uint64 // received packets dropped (malformed, beyond the window, too fragmented)
	BadAcks                      uint64 // acknowledgements of packets never sent, ignored
	Probes                       uint64 // probe timeouts

	SRTT, MinRTT, Queue time.Duration
	Rate                float64 // pacing rate, bytes per second
	Window              int     // congestion window, bytes
	InFlight            int
	Mode                string
}

// Errors of Receive. The packet is dropped; the stream goes on.
var (
	ErrBeyondWindow = errors.New("stream: data beyond the receive window")
	ErrFragmented   = errors.New("stream: too many runs of bytes out of order")
)

// New returns a stream at its start (offset 0 both ways, packet 0 next)
// at now.
func New(cfg Config, now time.Time) *Stream {
	cfg.fill()
	s := &Stream{cfg: cfg}
	s.snd.init(&s.cfg, now)
	s.rcv.init(now)
	return s
}

// Write queues b to send. It takes all of b: the caller bounds what it
// writes by Room (control messages may go beyond it).
func (s *Stream) Write(b []byte) { s.snd.write(b) }

// Room returns how many more bytes the caller should write: about what
// the congestion window lets go now, plus unsentSlack bytes to wait for
// it (more would only wait here, in front of whatever the caller writes
// next), within the send buffer's bound.
func (s *Stream) Room() int {
	limit := min(s.cfg.SendBuffer, max(s.snd.inflight, s.snd.cc.cwnd)+unsentSlack)
	return max(0, limit-s.snd.buffered())
}

// unsentSlack is how much more than the window lets go now Room takes.
const unsentSlack = 64 << 10

// Buffered returns the bytes written and not yet acknowledged in order.
func (s *Stream) Buffered() int { return s.snd.buffered() }

// Acked returns the stream offset up to which the peer acknowledged
// every byte.
func (s *Stream) Acked() uint64 { return s.snd.base }

// Read returns the bytes that arrived in order since the last Read,
// valid until the next call to Receive.
func (s *Stream) Read() []byte { return s.rcv.read() }

// Receive takes a packet from the peer that arrived at now. An error
// means the packet was dropped (it did not parse, or it carries data the
// receiver cannot hold); nothing else changed.
func (s *Stream) Receive(now time.Time, b []byte) error {
	p, err := ParsePacket(b)
	if err == nil {
		err = s.rcv.accept(&p)
	}
	if err != nil {
		s.stats.Dropped++
		return err
	}
	s.stats.PacketsReceived++
	s.rcv.received(now, &p, len(b))
	if p.HasAck {
		s.snd.onAck(now, &p.Ack, &s.stats)
		if s.snd.ackSeen {
			s.rcv.forget(s.snd.ackSeenLargest)
		}
	}
	return nil
}

// Poll returns the next packet to send at now, appended to dst, with at
// most max bytes of encoding; nil when nothing is due (see NextDeadline).
// Call it until it returns nil.
func (s *Stream) Poll(now time.Time, dst []byte, max int) []byte {
	s.snd.timers(now, &s.stats)
	p := Packet{Number: s.snd.nextPN}
	room := max - varintLen(p.Number)
	ackDue := s.rcv.ackDue(now)
	if s.rcv.pending {
		p.Ack = s.rcv.ack(now)
		s.scratch = p.Ack.append(s.scratch[:0])
		room -= len(s.scratch)
	}
	header := 1 + varintLen(s.snd.end()+Window) + 2 // a Data frame's type, offset and length (under 2^14)
	header += 1 + varintLen(uint64(now.Sub(s.snd.start)/time.Microsecond))
	s.snd.fill(now, &p, room-header, &s.stats)
	if !p.elicits() && !ackDue {
		return nil
	}
	if p.elicits() {
		p.Time, p.HasTime = now.Sub(s.snd.start), true
	}
	if s.rcv.pending {
		p.HasAck = true
		s.rcv.ackSent()
	}
	out, _ := p.AppendBinary(dst)
	s.snd.sent(now, &p, len(out)-len(dst), &s.stats)
	s.stats.PacketsSent++
	return out
}

// NextDeadline returns when Poll has something to send without another
// event (an acknowledgement to send, the pacing, a loss or probe
// timeout), or the zero time.
func (s *Stream) NextDeadline() time.Time {
	d := s.snd.deadline()
	if a := s.rcv.deadline(); !a.IsZero() && (d.IsZero() || a.Before(d)) {
		d = a
	}
	return d
}

// PathChanged starts the congestion control again: the peer moved to
// another path (roaming, the relay). What is in flight is not lost for
// that; the probe timeout finds out.
func (s *Stream) PathChanged(now time.Time) { s.snd.pathChanged(now) }

// Stats returns the stream's counts and estimates.
func (s *Stream) Stats() Stats {
	st := s.stats
	c := s.snd.cc
	st.SRTT, st.MinRTT, st.Queue = s.snd.rtt.srtt, c.minRTT, c.queue()
	st.Rate, st.Window, st.InFlight = c.rate, c.cwnd, s.snd.inflight
	st.Mode = [...]string{"startup", "drain", "cruise"}[c.mode]
	return st
}

// varintLen returns the length of v as a uvarint.
func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

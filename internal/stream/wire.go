package stream

import (
	"encoding/binary"
	"errors"
	"time"
)

// The frame types of a packet (see the package documentation).
const (
	frameAck  = 0x01
	frameData = 0x02
	framePing = 0x03
	frameTime = 0x04
)

// Errors of ParsePacket. A packet that does not parse is dropped whole.
var (
	errShort     = errors.New("stream: packet truncated")
	errFrame     = errors.New("stream: unknown frame type")
	errAckRanges = errors.New("stream: ack ranges malformed or too many")
	errDataRange = errors.New("stream: data range overflows")
	errTwice     = errors.New("stream: frame repeated in one packet")
	errNumber    = errors.New("stream: packet number too large")
)

// maxPacketNumber bounds packet numbers (and so every number an Ack
// frame names), far beyond what a stream sends.
const maxPacketNumber = 1<<62 - 1

// Packet is one stream packet: its number and its frames, each at most
// once.
type Packet struct {
	Number uint64
	Ack    Ack // valid if HasAck
	HasAck bool
	Data   Data // valid if HasData
	// HasData says the packet carries a Data frame (which may be empty).
	HasData bool
	// Ping asks for an acknowledgement and carries nothing else.
	Ping bool
	// Time is when the packet was sent, on the sender's clock (from its
	// stream's start), for the receiver's one-way delays; valid if
	// HasTime.
	Time    time.Duration
	HasTime bool
}

// Ack acknowledges packet numbers: Ranges, highest first, the first
// ending at Largest (each Span is [Lo, Hi], both included).
type Ack struct {
	Largest uint64
	// Delay is how long the receiver held the acknowledgement of
	// Largest before sending it.
	Delay time.Duration
	// Queue is how much longer than the shortest the receiver has seen
	// Largest took on its way (by the send times of the packets): the
	// queue it met.
	Queue  time.Duration
	Ranges []Span
}

// Span is the packet numbers Lo to Hi, both included.
type Span struct{ Lo, Hi uint64 }

// Data is a run of stream bytes at Offset.
type Data struct {
	Offset uint64
	Bytes  []byte
}

// elicits reports whether the packet asks for an acknowledgement.
func (p *Packet) elicits() bool { return p.HasData || p.Ping }

// AppendBinary appends the packet's encoding to b.
func (p *Packet) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, p.Number)
	if p.HasAck {
		b = p.Ack.append(b)
	}
	if p.Ping {
		b = append(b, framePing)
	}
	if p.HasTime {
		b = append(b, frameTime)
		b = binary.AppendUvarint(b, uint64(p.Time/time.Microsecond))
	}
	if p.HasData {
		b = append(b, frameData)
		b = binary.AppendUvarint(b, p.Data.Offset)
		b = binary.AppendUvarint(b, uint64(len(p.Data.Bytes)))
		b = append(b, p.Data.Bytes...)
	}
	return b, nil
}

// append appends the Ack frame. Ranges must be valid (highest first,
// disjoint and not adjacent, the first ending at Largest).
func (a *Ack) append(b []byte) []byte {
	b = append(b, frameAck)
	b = binary.AppendUvarint(b, a.Largest)
	b = binary.AppendUvarint(b, uint64(a.Delay/time.Microsecond))
	b = binary.AppendUvarint(b, uint64(a.Queue/time.Microsecond))
	b = binary.AppendUvarint(b, uint64(len(a.Ranges)-1))
	b = binary.AppendUvarint(b, a.Ranges[0].Hi-a.Ranges[0].Lo)
	for i := 1; i < len(a.Ranges); i++ {
		b = binary.AppendUvarint(b, a.Ranges[i-1].Lo-a.Ranges[i].Hi-2) // the gap
		b = binary.AppendUvarint(b, a.Ranges[i].Hi-a.Ranges[i].Lo)
	}
	return b
}

// ParsePacket parses a packet. Data.Bytes aliases b.
func ParsePacket(b []byte) (Packet, error) {
	var p Packet
	r := reader{b: b}
	p.Number = r.uvarint()
	if p.Number > maxPacketNumber {
		return p, errNumber
	}
	for r.err == nil && len(r.b) > 0 {
		t := r.b[0]
		r.b = r.b[1:]
		switch t {
		case frameAck:
			if p.HasAck {
				return p, errTwice
			}
			p.HasAck = true
			p.Ack = r.ack()
		case frameData:
			if p.HasData {
				return p, errTwice
			}
			p.HasData = true
			p.Data = r.data()
		case framePing:
			p.Ping = true
		case frameTime:
			if p.HasTime {
				return p, errTwice
			}
			p.HasTime = true
			p.Time = durationField(r.uvarint(), maxTimeField)
		default:
			return p, errFrame
		}
	}
	return p, r.err
}

// reader takes varints and bytes off a packet, remembering the first
// error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// ack reads an Ack frame's body: at most MaxAckRanges ranges, each
// below the one before.
func (r *reader) ack() Ack {
	a := Ack{Largest: r.uvarint()}
	a.Delay = durationField(r.uvarint(), maxAckDelayField)
	a.Queue = durationField(r.uvarint(), maxAckDelayField)
	extra := r.uvarint()
	first := r.uvarint()
	if r.err != nil {
		return a
	}
	if extra >= MaxAckRanges || first > a.Largest {
		r.err = errAckRanges
		return a
	}
	a.Ranges = make([]Span, 0, extra+1)
	a.Ranges = append(a.Ranges, Span{a.Largest - first, a.Largest})
	for range extra {
		gap, n := r.uvarint(), r.uvarint()
		lo := a.Ranges[len(a.Ranges)-1].Lo
		if r.err != nil || lo < gap+2 || lo-gap-2 < n {
			if r.err == nil {
				r.err = errAckRanges
			}
			return a
		}
		hi := lo - gap - 2
		a.Ranges = append(a.Ranges, Span{hi - n, hi})
	}
	return a
}

// durationField converts a field in microseconds, capped at limit.
func durationField(us uint64, limit time.Duration) time.Duration {
	return time.Duration(min(us, uint64(limit/time.Microsecond))) * time.Microsecond
}

// data reads a Data frame's body.
func (r *reader) data() Data {
	d := Data{Offset: r.uvarint()}
	n := r.uvarint()
	switch {
	case r.err != nil:
	case n > uint64(len(r.b)):
		r.err = errShort
	case d.Offset+n < d.Offset:
		r.err = errDataRange
	default:
		d.Bytes, r.b = r.b[:n], r.b[n:]
	}
	return d
}

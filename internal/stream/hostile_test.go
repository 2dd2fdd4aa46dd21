package stream

import (
	"testing"
	"time"
)

// A hostile peer (one with the session key) cannot make a stream hold
// unbounded memory or misbehave: acknowledgements of packets never sent
// are ignored, data beyond the window is dropped, and bytes scattered to
// fragment the receiver's buffer are bounded.
func TestHostileAcks(t *testing.T) {
	now := simStart
	s := New(Config{}, now)
	s.Write(testData(100 << 10))
	var sent int
	for s.Poll(now, nil, budget) != nil {
		sent++
	}
	bad := Packet{Number: 0, HasAck: true, Ack: Ack{Largest: 1 << 40, Ranges: []Span{{0, 1 << 40}}}}
	b, _ := bad.AppendBinary(nil)
	if err := s.Receive(now, b); err != nil {
		t.Fatalf("Receive = %v", err)
	}
	if st := s.Stats(); st.BadAcks != 1 || s.Acked() != 0 {
		t.Errorf("an ack of packets never sent: BadAcks %d, acked to %d; want 1 and 0", st.BadAcks, s.Acked())
	}
	// Ranges with every gap: 32 of them, the most a frame carries, each
	// naming what was sent: processed in time proportional to what is in
	// flight.
	a := Ack{Largest: uint64(sent - 1)}
	for i := sent - 1; i >= 0 && len(a.Ranges) < MaxAckRanges; i -= 2 {
		a.Ranges = append(a.Ranges, Span{uint64(i), uint64(i)})
	}
	p := Packet{Number: 1, HasAck: true, Ack: a}
	b, _ = p.AppendBinary(nil)
	if err := s.Receive(now.Add(time.Millisecond), b); err != nil {
		t.Fatalf("Receive = %v", err)
	}
	if st := s.Stats(); st.InFlight >= sent*(budget+DefaultOverhead) {
		t.Errorf("in flight %d after the ack; nothing acknowledged", st.InFlight)
	}
}

func TestHostileData(t *testing.T) {
	now := simStart
	s := New(Config{}, now)
	beyond := Packet{Number: 0, HasData: true, Data: Data{Offset: Window, Bytes: []byte("x")}}
	b, _ := beyond.AppendBinary(nil)
	if err := s.Receive(now, b); err != ErrBeyondWindow {
		t.Errorf("data beyond the window: %v, want ErrBeyondWindow", err)
	}
	// One byte every other byte: the receiver holds at most maxSegments
	// runs, and refuses the packets beyond.
	refused := 0
	for i := 0; i < maxSegments+100; i++ {
		p := Packet{Number: uint64(i + 1), HasData: true, Data: Data{Offset: uint64(2*i + 1), Bytes: []byte{1}}}
		b, _ := p.AppendBinary(nil)
		if s.Receive(now, b) == ErrFragmented {
			refused++
		}
	}
	if refused != 100 || len(s.rcv.segs) != maxSegments {
		t.Errorf("%d packets refused, %d runs held; want 100 and %d", refused, len(s.rcv.segs), maxSegments)
	}
	// The gaps filled, everything is delivered in order and released.
	for i := 0; i <= maxSegments; i++ {
		p := Packet{Number: uint64(maxSegments + 200 + i), HasData: true, Data: Data{Offset: uint64(2 * i), Bytes: []byte{0}}}
		b, _ := p.AppendBinary(nil)
		s.Receive(now, b)
	}
	if got := len(s.Read()); got != 2*maxSegments+1 || len(s.rcv.segs) != 0 || s.rcv.segBytes != 0 {
		t.Errorf("read %d bytes, %d runs and %d bytes still held; want %d, 0, 0", got, len(s.rcv.segs), s.rcv.segBytes, 2*maxSegments+1)
	}
}

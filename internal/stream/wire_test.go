package stream

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

func TestPacketRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		p    Packet
	}{
		{"empty", Packet{Number: 7}},
		{"ping", Packet{Number: 1, Ping: true, Time: 5 * time.Millisecond, HasTime: true}},
		{"data", Packet{Number: 300, HasData: true, Data: Data{Offset: 1 << 33, Bytes: []byte("hello")}}},
		{"ack", Packet{Number: 2, HasAck: true, Ack: Ack{Largest: 100, Delay: 3 * time.Millisecond, Queue: 12 * time.Millisecond,
			Ranges: []Span{{90, 100}, {50, 80}, {0, 10}}}}},
		{"all", Packet{Number: 9, HasAck: true, Ack: Ack{Largest: 4, Ranges: []Span{{4, 4}, {0, 2}}},
			HasData: true, Data: Data{Offset: 0, Bytes: []byte{1, 2, 3}}, Time: time.Second, HasTime: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := tc.p.AppendBinary(nil)
			got, err := ParsePacket(b)
			if err != nil {
				t.Fatalf("ParsePacket(%x) = %v", b, err)
			}
			if got.HasData && len(got.Data.Bytes) == 0 {
				got.Data.Bytes = nil
			}
			if !reflect.DeepEqual(got, tc.p) {
				t.Errorf("ParsePacket(%x) = %+v, want %+v", b, got, tc.p)
			}
		})
	}
}

// TestParseRejects: malformed packets are errors, never panics.
func TestParseRejects(t *testing.T) {
	manyRanges := []byte{0x00, frameAck, 200, 0, 0, MaxAckRanges} // 33 ranges
	cases := []struct {
		name string
		b    []byte
	}{
		{"truncated number", []byte{0x80}},
		{"unknown frame", []byte{0x00, 0x7f}},
		{"data beyond the packet", []byte{0x00, frameData, 0x00, 0x05, 'a'}},
		{"data offset overflows", append([]byte{0x00, frameData, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02}, 'a', 'b')},
		{"first range below zero", []byte{0x00, frameAck, 5, 0, 0, 0, 6}},
		{"gap below zero", []byte{0x00, frameAck, 5, 0, 0, 1, 2, 3, 0}},
		{"too many ranges", manyRanges},
		{"two acks", []byte{0x00, frameAck, 0, 0, 0, 0, 0, frameAck, 0, 0, 0, 0, 0}},
		{"number too large", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParsePacket(tc.b); err == nil {
				t.Errorf("ParsePacket(%x) = nil error", tc.b)
			}
		})
	}
}

func FuzzParsePacket(f *testing.F) {
	for _, p := range []Packet{
		{Number: 300, HasData: true, Data: Data{Offset: 99, Bytes: []byte("hello")}, Time: time.Second, HasTime: true},
		{Number: 2, HasAck: true, Ack: Ack{Largest: 100, Ranges: []Span{{90, 100}, {50, 80}}}, Ping: true},
	} {
		b, _ := p.AppendBinary(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePacket(b)
		if err != nil {
			return
		}
		// What parses encodes to what parses the same.
		again, _ := p.AppendBinary(nil)
		q, err := ParsePacket(again)
		if err != nil || q.Number != p.Number || q.HasData != p.HasData || !bytes.Equal(q.Data.Bytes, p.Data.Bytes) ||
			q.HasAck != p.HasAck || len(q.Ack.Ranges) != len(p.Ack.Ranges) {
			t.Fatalf("%x parses as %+v, which encodes as %x, parsed %+v, %v", b, p, again, q, err)
		}
		// And a stream takes it without panicking.
		s := New(Config{}, simStart)
		s.Receive(simStart, b)
		s.Poll(simStart.Add(time.Second), nil, budget)
	})
}

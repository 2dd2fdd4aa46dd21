package statesync_test

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gosh-term/gosh/internal/pb/userpb"
	"github.com/gosh-term/gosh/internal/statesync"
)

// userMessage builds the expected UserMessage with the generated code
// (the schema oracle): keys become Keystroke instructions, a [2]int a
// ResizeMessage instruction.
func userMessage(t *testing.T, items ...any) []byte {
	t.Helper()
	m := &userpb.UserMessage{}
	for _, it := range items {
		in := &userpb.Instruction{}
		switch v := it.(type) {
		case string:
			proto.SetExtension(in, userpb.E_Keystroke, &userpb.Keystroke{Keys: []byte(v)})
		case [2]int:
			w, h := int32(v[0]), int32(v[1])
			proto.SetExtension(in, userpb.E_Resize, &userpb.ResizeMessage{Width: &w, Height: &h})
		}
		m.Instruction = append(m.Instruction, in)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUserStreamDiffGolden(t *testing.T) {
	tests := []struct {
		name string
		push func(s *statesync.UserStream)
		hex  string // from spec section 6.2, or "" to compare with the oracle only
		want []any
	}{
		{"keys", func(s *statesync.UserStream) { s.PushKeys([]byte("ls\r")) }, "0a07120522036c730d", []any{"ls\r"}},
		{"resize", func(s *statesync.UserStream) { s.PushResize(80, 24) }, "0a061a0428503018", []any{[2]int{80, 24}}},
		{"coalesced", func(s *statesync.UserStream) {
			s.PushKeys([]byte("a"))
			s.PushKeys([]byte("bc"))
			s.PushResize(100, 30)
			s.PushResize(101, 31)
			s.PushKeys([]byte("\x1bOA"))
		}, "", []any{"abc", [2]int{100, 30}, [2]int{101, 31}, "\x1bOA"}},
		{"empty", func(s *statesync.UserStream) {}, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := statesync.NewUserStream()
			tc.push(s)
			got := s.Diff(statesync.NewUserStream())
			if tc.hex != "" && hex.EncodeToString(got) != tc.hex {
				t.Errorf("Diff = %x, want %s", got, tc.hex)
			}
			if want := userMessage(t, tc.want...); !bytes.Equal(got, want) {
				t.Errorf("Diff = %x, want %x", got, want)
			}
		})
	}
}

func TestUserStreamApplyOracle(t *testing.T) {
	// The receiver must accept what the generated code encodes, including
	// unknown extensions (ignored) and an instruction with both extensions
	// (keystroke wins, as in Mosh).
	in := &userpb.Instruction{}
	proto.SetExtension(in, userpb.E_Keystroke, &userpb.Keystroke{Keys: []byte("k")})
	w, h := int32(1), int32(2)
	proto.SetExtension(in, userpb.E_Resize, &userpb.ResizeMessage{Width: &w, Height: &h})
	msg, _ := proto.Marshal(&userpb.UserMessage{Instruction: []*userpb.Instruction{in}})
	msg = append(msg, 0x0a, 0x04, 0x4a, 0x02, 0x08, 0x01) // instruction with unknown extension 9
	s := statesync.NewUserStream()
	if err := s.Apply(msg); err != nil {
		t.Fatal(err)
	}
	evs := s.EventsSince(0)
	if len(evs) != 1 || string(evs[0].Keys) != "k" || s.Total() != 1 {
		t.Errorf("Apply: events %+v total %d, want one keystroke k", evs, s.Total())
	}
}

func TestUserStreamSubtract(t *testing.T) {
	s := statesync.NewUserStream()
	s.PushResize(80, 24)
	s.PushKeys([]byte("hello"))
	acked := s.Clone()
	s.PushKeys([]byte(" world"))
	s.PushResize(90, 30)
	before := s.Total()
	s.Subtract(acked)
	if s.Total() != before || before != 13 {
		t.Fatalf("Total after Subtract = %d, want %d (13)", s.Total(), before)
	}
	evs := s.EventsSince(0) // older events are gone: only what is held
	if len(evs) != 2 || string(evs[0].Keys) != " world" || !evs[1].Resize || evs[1].Cols != 90 {
		t.Errorf("EventsSince(0) = %+v", evs)
	}
	if evs := s.EventsSince(9); len(evs) != 2 || string(evs[0].Keys) != "rld" {
		t.Errorf("EventsSince(9) = %+v, want rld then resize", evs)
	}
	// A receiver that has acked holds the same events: Diff from it sends
	// only the new ones, and applying gives an equal stream.
	r := acked.Clone()
	if err := r.Apply(s.Diff(acked)); err != nil {
		t.Fatal(err)
	}
	if !r.Equal(s) || !s.Equal(r) {
		t.Errorf("Apply(Diff) not Equal: %+v vs %+v", r.EventsSince(0), s.EventsSince(0))
	}
	acked.Subtract(acked)
	if !acked.Equal(acked.Clone()) || acked.Total() != 6 {
		t.Errorf("self-subtracted stream total %d", acked.Total())
	}
}

// TestUserStreamRandom: Apply(Diff(old, new)) to old equals new (docs/style.md
// rule 23, for SSP states), with partial subtraction.
func TestUserStreamRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 500 {
		cur := statesync.NewUserStream()
		peer := statesync.NewUserStream()
		for range 20 {
			for range rng.IntN(5) {
				if rng.IntN(4) == 0 {
					cur.PushResize(rng.IntN(300), rng.IntN(100))
				} else {
					k := make([]byte, 1+rng.IntN(10))
					for i := range k {
						k[i] = byte(rng.UintN(256))
					}
					cur.PushKeys(k)
				}
			}
			d := cur.Diff(peer)
			if err := peer.Apply(d); err != nil {
				t.Fatal(err)
			}
			if !peer.Equal(cur) {
				t.Fatalf("after Apply(%x): peer total %d, cur total %d", d, peer.Total(), cur.Total())
			}
			if len(cur.Diff(peer)) != 0 {
				t.Fatal("Diff of equal streams is not empty")
			}
			if rng.IntN(3) == 0 {
				ack := peer.Clone()
				cur.Subtract(ack)
				peer.Subtract(ack)
			}
		}
	}
}

func FuzzUserStream(f *testing.F) {
	f.Add(mustHex("0a07120522036c730d"))
	f.Add(mustHex("0a061a0428503018"))
	f.Add([]byte{0x0a, 0x04, 0x4a, 0x02, 0x08, 0x01})
	f.Add([]byte{0x0a, 0xff})
	f.Add([]byte("\xf5\xf5\xf5\xf500000")) // field number out of range (found by FuzzHostMessage)

	// gosh channels (spec section 12.2)
	f.Add(mustHex("0a0f520d08001001180122056167656e74"))            // channel open at 0
	f.Add(mustHex("0a051203220161" + "0a085206080110031803"))       // a key, then a close at 1
	f.Add(mustHex("0a085206080010021802" + "0a085206080010021802")) // a duplicate
	f.Add(mustHex("0a06520408051802"))                              // a gap
	f.Add(mustHex("0a0b520908001002180428ac02"))                    // credit
	f.Fuzz(func(t *testing.T, msg []byte) {
		s := statesync.NewUserStream()
		if err := s.Apply(msg); err != nil {
			return
		}
		if err := proto.Unmarshal(msg, &userpb.UserMessage{}); err != nil {
			t.Fatalf("accepted %x that the oracle rejects: %v", msg, err)
		}
		// Whatever was accepted re-encodes to a message that reproduces it.
		r := statesync.NewUserStream()
		if err := r.Apply(s.Diff(statesync.NewUserStream())); err != nil || !r.Equal(s) {
			t.Fatalf("re-encoding of %x does not round-trip: %v", msg, err)
		}
		var m userpb.UserMessage
		if err := proto.Unmarshal(s.Diff(statesync.NewUserStream()), &m); err != nil {
			t.Fatalf("oracle rejects our encoding: %v", err)
		}
	})
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestUserStreamRejectsMalformedExtension(t *testing.T) {
	// A keystroke plus a resize whose body is cut short: protobuf (and
	// Mosh) reject the whole message, so must we.
	msg := []byte{0x0a, 0x07, 0x12, 0x03, 0x22, 0x01, 'k', 0x1a, 0x00}
	msg = append(msg[:2:2], 0x12, 0x03, 0x22, 0x01, 'k', 0x1a, 0x02, 0x28, 0x80) // width varint unterminated
	msg[1] = byte(len(msg) - 2)
	if err := statesync.NewUserStream().Apply(msg); err == nil {
		t.Errorf("Apply(%x) accepted a malformed resize", msg)
	}
	if err := proto.Unmarshal(msg, &userpb.UserMessage{}); err == nil {
		t.Errorf("oracle accepts %x", msg)
	}
}

func TestUserStreamHeld(t *testing.T) {
	s := statesync.NewUserStream()
	s.PushKeys([]byte("abc"))
	s.PushResize(80, 24)
	acked := s.Clone()
	s.PushKeys([]byte("de"))
	if got := s.Held(); got != 6 {
		t.Errorf("Held = %d, want 6", got)
	}
	s.Subtract(acked)
	if got := s.Held(); got != 2 || s.Total() != 6 {
		t.Errorf("after Subtract: Held = %d, Total = %d; want 2, 6", got, s.Total())
	}
}

// buildStream pushes parts in order: a string as keys, a [2]int as a
// resize, a statesync.ChannelMsg as a channel message.
func buildStream(parts ...any) *statesync.UserStream {
	s := statesync.NewUserStream()
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			s.PushKeys([]byte(p))
		case [2]int:
			s.PushResize(p[0], p[1])
		case statesync.ChannelMsg:
			s.PushChannel(p)
		}
	}
	return s
}

func TestUserStreamEqualContent(t *testing.T) {
	build := buildStream
	tests := []struct {
		name string
		a, b *statesync.UserStream
		want bool
	}{
		{"same keys split differently", build("ab", "cd"), build("abc", "d"), true},
		{"keys and resizes", build("ab", [2]int{80, 24}, "c"), build("a", "b", [2]int{80, 24}, "c"), true},
		{"different byte", build("abcd"), build("abce"), false},
		{"different resize", build([2]int{80, 24}), build([2]int{81, 24}), false},
		{"resize where a key is", build("a", [2]int{80, 24}), build("ab"), false},
		{"empty", build(), build(), true},
	}
	for _, tc := range tests {
		if got := tc.a.Equal(tc.b); got != tc.want {
			t.Errorf("%s: Equal = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.b.Equal(tc.a); got != tc.want {
			t.Errorf("%s (reversed): Equal = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// BenchmarkUserStreamEqual compares two 64 KiB in-flight pastes, as the
// sender does several times per datagram while a paste is in flight.
func BenchmarkUserStreamEqual(b *testing.B) {
	a := statesync.NewUserStream()
	a.PushKeys(make([]byte, 64<<10))
	c := a.Clone()
	b.ReportAllocs()
	for b.Loop() {
		if !a.Equal(c) {
			b.Fatal("not equal")
		}
	}
}

// TestUserStreamShown: a stream extends a sent one by shown keys only
// when nothing else (keys pushed with PushKeys, a resize) came after it.
func TestUserStreamShown(t *testing.T) {
	s := statesync.NewUserStream()
	s.PushKeys([]byte("a"))
	sent := s.Clone()
	if s.Shown(sent) {
		t.Error("Shown with nothing new")
	}
	s.PushShownKeys([]byte("bc"))
	if !s.Shown(sent) {
		t.Error("shown keys after the sent state: Shown = false")
	}
	if !s.Clone().Shown(sent) {
		t.Error("a clone forgot which keys are shown")
	}
	s.PushKeys([]byte("\r"))
	if s.Shown(sent) {
		t.Error("a key that is not shown after the sent state: Shown = true")
	}
	sent = s.Clone()
	s.PushShownKeys([]byte("d"))
	s.PushResize(100, 30)
	if s.Shown(sent) {
		t.Error("a resize after the sent state: Shown = true")
	}
	sent = s.Clone()
	s.PushShownKeys([]byte("e"))
	s.Subtract(sent)
	if !s.Shown(sent) || s.Diff(sent) == nil {
		t.Error("after Subtract the shown key is lost")
	}
}

// TestUserStreamUrgent: a change is urgent when it holds an interrupt key
// (Ctrl-C, Ctrl-\, Ctrl-Z) typed after the sent state, however pushed.
func TestUserStreamUrgent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before string // typed and sent
		after  string // typed since
		shown  bool   // pushed as shown keys
		want   bool
	}{
		{"nothing new", "ls\x03", "", false, false},
		{"plain keys", "", "ls\r", false, false},
		{"Ctrl-C", "seq 1 100000000\r", "\x03", false, true},
		{"Ctrl-C among keys", "", "ab\x03cd", false, true},
		{"Ctrl-\\", "", "\x1c", false, true},
		{"Ctrl-Z", "", "\x1a", false, true},
		{"Ctrl-C pushed as shown", "", "\x03", true, true},
		{"Ctrl-C already sent", "\x03", "ls", false, false},
		{"Ctrl-D", "", "\x04", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := statesync.NewUserStream()
			s.PushKeys([]byte(tc.before))
			sent := s.Clone()
			if tc.shown {
				s.PushShownKeys([]byte(tc.after))
			} else {
				s.PushKeys([]byte(tc.after))
			}
			if got := s.Urgent(sent); got != tc.want {
				t.Errorf("Urgent = %v, want %v", got, tc.want)
			}
			if got := s.Clone().Urgent(sent); got != tc.want {
				t.Errorf("a clone's Urgent = %v, want %v", got, tc.want)
			}
		})
	}
}

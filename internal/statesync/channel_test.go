package statesync_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gosh-term/gosh/internal/pb/hostpb"
	"github.com/gosh-term/gosh/internal/pb/userpb"
	"github.com/gosh-term/gosh/internal/statesync"
)

// chanMsgs are channel messages of every kind, some with empty fields.
var chanMsgs = []statesync.ChannelMsg{
	{ID: 1, Kind: statesync.ChannelOpen, Data: []byte("agent")},
	{ID: 1, Kind: statesync.ChannelData, Data: []byte("\x00\x00\x00\x01\x0b")},
	{ID: 2, Kind: statesync.ChannelCredit, Credit: statesync.ChannelWindow},
	{ID: 1, Kind: statesync.ChannelClose},
	{ID: 0xffffffff, Kind: statesync.ChannelClose, Data: []byte("refused"), Credit: 0xffffffff},
}

// sameMsg reports whether two channel messages are equal (nil and empty
// Data alike).
func sameMsg(a, b statesync.ChannelMsg) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Credit == b.Credit && bytes.Equal(a.Data, b.Data)
}

// checkMsgs reports a difference between channel message lists.
func checkMsgs(t *testing.T, what string, got, want []statesync.ChannelMsg) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages %+v, want %d", what, len(got), got, len(want))
	}
	for i := range got {
		if !sameMsg(got[i], want[i]) {
			t.Errorf("%s: message %d = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

// TestChannelWireGolden pins the extension's encoding (wire.go, spec
// section 12.2): field 10 of Instruction, then index, id, kind, data and
// credit, the last two left out when zero.
func TestChannelWireGolden(t *testing.T) {
	tests := []struct {
		name string
		m    statesync.ChannelMsg
		at   int // events pushed before the message
		hex  string
	}{
		{"open", chanMsgs[0], 0, "0a0f520d08001001180122056167656e74"},
		{"credit", statesync.ChannelMsg{ID: 2, Kind: statesync.ChannelCredit, Credit: 300}, 0, "0a0b520908001002180428ac02"},
		{"close after a key", statesync.ChannelMsg{ID: 3, Kind: statesync.ChannelClose}, 1, "0a051203220161" + "0a085206080110031803"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := statesync.NewUserStream()
			c := statesync.NewComplete(80, 24)
			for range tc.at {
				s.PushKeys([]byte("a"))
				c.PushChannel(statesync.ChannelMsg{})
			}
			s.PushChannel(tc.m)
			c.PushChannel(tc.m)
			if got := hex.EncodeToString(s.Diff(statesync.NewUserStream())); got != tc.hex {
				t.Errorf("UserStream diff = %s, want %s", got, tc.hex)
			}
			// The host side uses the same instruction.
			got := c.Diff(statesync.NewComplete(80, 24))
			if tc.at == 0 && hex.EncodeToString(got) != tc.hex {
				t.Errorf("Complete diff = %x, want %s", got, tc.hex)
			}
			if want := "0a085206080110031803"; tc.at == 1 && !bytes.HasSuffix(got, mustHex(want)) {
				t.Errorf("Complete diff = %x, want it to end in %s", got, want)
			}
		})
	}
}

// TestUserStreamChannelRoundTrip: channel messages interleaved with keys
// and resizes travel in order, each one event with its fields intact.
func TestUserStreamChannelRoundTrip(t *testing.T) {
	s := statesync.NewUserStream()
	s.PushResize(80, 24)
	s.PushKeys([]byte("ls"))
	old := s.Clone()
	s.PushKeys([]byte("\r"))
	s.PushChannel(chanMsgs[0])
	s.PushShownKeys([]byte("x")) // not coalesced with the message before
	s.PushChannel(chanMsgs[1])
	s.PushChannel(chanMsgs[2])
	s.PushResize(100, 30)
	s.PushChannel(chanMsgs[4])
	if s.Total() != 3+1+1+1+2+1+1 {
		t.Fatalf("Total = %d, want 10: a channel message is one event", s.Total())
	}
	r := old.Clone()
	if err := r.Apply(s.Diff(old)); err != nil {
		t.Fatal(err)
	}
	if !r.Equal(s) || !s.Equal(r) {
		t.Fatalf("Apply(Diff) not Equal: %+v vs %+v", r.EventsSince(0), s.EventsSince(0))
	}
	want := []statesync.UserEvent{
		{Keys: []byte("\r")}, {Channel: &chanMsgs[0]}, {Keys: []byte("x")}, {Channel: &chanMsgs[1]},
		{Channel: &chanMsgs[2]}, {Resize: true, Cols: 100, Rows: 30}, {Channel: &chanMsgs[4]},
	}
	for _, st := range []*statesync.UserStream{s, r} {
		got := st.EventsSince(old.Total())
		if len(got) != len(want) {
			t.Fatalf("EventsSince = %d events %+v, want %d", len(got), got, len(want))
		}
		for i, ev := range got {
			w := want[i]
			if !bytes.Equal(ev.Keys, w.Keys) || ev.Resize != w.Resize || ev.Cols != w.Cols || ev.Rows != w.Rows ||
				(ev.Channel == nil) != (w.Channel == nil) || ev.Channel != nil && !sameMsg(*ev.Channel, *w.Channel) {
				t.Errorf("event %d = %+v, want %+v", i, ev, w)
			}
		}
	}
	if evs := s.EventsSince(s.Total() - 1); len(evs) != 1 || evs[0].Channel == nil {
		t.Errorf("EventsSince(last) = %+v, want the last message", evs)
	}
}

// TestCompleteChannelRoundTrip: the channel log travels after the screen,
// from any older base, and the clone a diff is applied to gets it all.
func TestCompleteChannelRoundTrip(t *testing.T) {
	c := statesync.NewComplete(80, 24)
	c.PushChannel(chanMsgs[0])
	old := c.Clone()
	c.Feed([]byte("hello"), nil)
	c.SetEchoAck(3)
	for _, m := range chanMsgs[1:] {
		c.PushChannel(m)
	}
	r := old.Clone()
	if err := r.Apply(c.Diff(old)); err != nil {
		t.Fatal(err)
	}
	if !r.Equal(c) || !c.Equal(r) {
		t.Fatal("Apply(Diff) not Equal")
	}
	if r.ChannelTotal() != uint64(len(chanMsgs)) || r.EchoAck() != 3 {
		t.Errorf("ChannelTotal %d echo ack %d, want %d and 3", r.ChannelTotal(), r.EchoAck(), len(chanMsgs))
	}
	checkMsgs(t, "ChannelsSince(0)", r.ChannelsSince(0), chanMsgs)
	checkMsgs(t, "ChannelsSince(2)", r.ChannelsSince(2), chanMsgs[2:])
	checkMsgs(t, "ChannelsSince(total)", r.ChannelsSince(r.ChannelTotal()), nil)
	checkMsgs(t, "ChannelsSince(total+1)", r.ChannelsSince(r.ChannelTotal()+1), nil)
	if d := r.Diff(c); len(d) != 0 {
		t.Errorf("diff of equal states = %x", d)
	}
}

// TestChannelPushCopies: a pushed message's Data is copied, and clones
// append independently even into spare capacity.
func TestChannelPushCopies(t *testing.T) {
	data := []byte("abc")
	c := statesync.NewComplete(10, 2)
	s := statesync.NewUserStream()
	for range 3 { // leave spare capacity behind the clone's length
		c.PushChannel(statesync.ChannelMsg{ID: 9, Kind: statesync.ChannelData, Data: data})
		s.PushChannel(statesync.ChannelMsg{ID: 9, Kind: statesync.ChannelData, Data: data})
	}
	data[0] = 'X'
	if got := c.ChannelsSince(0)[0].Data; string(got) != "abc" {
		t.Errorf("Complete kept the caller's slice: %q", got)
	}
	if got := s.EventsSince(0)[0].Channel.Data; string(got) != "abc" {
		t.Errorf("UserStream kept the caller's slice: %q", got)
	}
	c2, s2 := c.Clone(), s.Clone()
	c.PushChannel(statesync.ChannelMsg{ID: 1})
	c2.PushChannel(statesync.ChannelMsg{ID: 2})
	s.PushChannel(statesync.ChannelMsg{ID: 1})
	s2.PushChannel(statesync.ChannelMsg{ID: 2})
	if a, b := c.ChannelsSince(3), c2.ChannelsSince(3); a[0].ID != 1 || b[0].ID != 2 {
		t.Errorf("Complete clones share an append: %+v %+v", a, b)
	}
	if a, b := s.EventsSince(3), s2.EventsSince(3); a[0].Channel.ID != 1 || b[0].Channel.ID != 2 {
		t.Errorf("UserStream clones share an append: %+v %+v", a, b)
	}
	// A channel message never waits as shown keys may.
	sent := s.Clone()
	s.PushShownKeys([]byte("k"))
	s.PushChannel(statesync.ChannelMsg{ID: 3})
	if s.Shown(sent) {
		t.Error("a channel message after the sent state: Shown = true")
	}
}

// channelState abstracts the two states for the tests that treat them
// alike.
type channelState interface {
	PushChannel(statesync.ChannelMsg)
	Apply([]byte) error
	Footprint() int
}

// stateKinds build a state of each kind holding the channel messages
// 0..n-1 and return it with a function making its diff from a state of
// the same kind.
var stateKinds = []struct {
	name  string
	build func(n int) (st channelState, diff func(from channelState) []byte)
}{
	{"UserStream", func(n int) (channelState, func(channelState) []byte) {
		s := statesync.NewUserStream()
		for i := range n {
			s.PushChannel(statesync.ChannelMsg{ID: uint32(i), Kind: statesync.ChannelData, Data: []byte{byte(i)}})
		}
		return s, func(from channelState) []byte { return s.Diff(from.(*statesync.UserStream)) }
	}},
	{"Complete", func(n int) (channelState, func(channelState) []byte) {
		c := statesync.NewComplete(10, 2)
		for i := range n {
			c.PushChannel(statesync.ChannelMsg{ID: uint32(i), Kind: statesync.ChannelData, Data: []byte{byte(i)}})
		}
		return c, func(from channelState) []byte { return c.Diff(from.(*statesync.Complete)) }
	}},
}

// equalStates reports whether a and b, of one kind, are Equal.
func equalStates(a, b channelState) bool {
	switch a := a.(type) {
	case *statesync.UserStream:
		return a.Equal(b.(*statesync.UserStream))
	case *statesync.Complete:
		return a.Equal(b.(*statesync.Complete))
	}
	return false
}

// TestChannelApplyOverlap: a message the receiver already holds is
// skipped, so a diff applies twice as once and a diff from an older base
// adds only what is new; a diff from a newer base leaves a gap and is
// malformed.
func TestChannelApplyOverlap(t *testing.T) {
	for _, kind := range stateKinds {
		t.Run(kind.name, func(t *testing.T) {
			full, diffFull := kind.build(6)
			base, _ := kind.build(2)
			d := diffFull(base) // messages 2..5
			twice, _ := kind.build(2)
			for i := range 2 {
				if err := twice.Apply(d); err != nil {
					t.Fatalf("apply %d: %v", i, err)
				}
				if !equalStates(twice, full) {
					t.Fatalf("apply %d: not Equal", i)
				}
			}
			// mid holds 0..3 already: only 4 and 5 are appended.
			mid, _ := kind.build(4)
			if err := mid.Apply(d); err != nil || !equalStates(mid, full) {
				t.Fatalf("overlapping diff: %v, Equal %v", err, equalStates(mid, full))
			}
			// A receiver holding 0..1 given messages 4..5 has a gap.
			fromMid, _ := kind.build(4)
			gapped, _ := kind.build(2)
			if err := gapped.Apply(diffFull(fromMid)); !errors.Is(err, statesync.ErrMalformed) {
				t.Errorf("gap: Apply = %v, want ErrMalformed", err)
			}
		})
	}
}

// TestChannelMalformed: a channel body that does not parse, or whose
// fields overflow their types, makes the diff malformed.
func TestChannelMalformed(t *testing.T) {
	tests := []struct {
		name string
		body string // hex of the extension body
	}{
		{"truncated varint", "0880"},
		{"truncated data", "2205ab"},
		{"id above 32 bits", "08001080808080 10"},
		{"kind above 8 bits", "0800188002"},
		{"credit above 32 bits", "080028808080801001"},
	}
	for _, tc := range tests {
		body := mustHex(stripSpaces(tc.body))
		ext := append([]byte{0x52, byte(len(body))}, body...)
		msg := append([]byte{0x0a, byte(len(ext))}, ext...)
		if err := statesync.NewUserStream().Apply(msg); !errors.Is(err, statesync.ErrMalformed) {
			t.Errorf("%s: UserStream.Apply(%x) = %v, want ErrMalformed", tc.name, msg, err)
		}
		if err := statesync.NewComplete(10, 2).Apply(msg); !errors.Is(err, statesync.ErrMalformed) {
			t.Errorf("%s: Complete.Apply(%x) = %v, want ErrMalformed", tc.name, msg, err)
		}
	}
}

func stripSpaces(s string) string { return string(bytes.ReplaceAll([]byte(s), []byte(" "), nil)) }

// TestCompleteChannelTrim: Subtract and TrimChannels drop held messages
// but keep absolute positions, diffs from an acknowledged state still
// work, and the footprint shrinks.
func TestCompleteChannelTrim(t *testing.T) {
	c := statesync.NewComplete(10, 2)
	for _, m := range chanMsgs[:3] {
		c.PushChannel(m)
	}
	acked := c.Clone()
	for _, m := range chanMsgs[3:] {
		c.PushChannel(m)
	}
	before := c.Footprint()
	c.Subtract(acked)
	if c.ChannelTotal() != 5 || c.Footprint() >= before {
		t.Errorf("after Subtract: total %d footprint %d (was %d)", c.ChannelTotal(), c.Footprint(), before)
	}
	checkMsgs(t, "ChannelsSince(0) after Subtract", c.ChannelsSince(0), chanMsgs[3:])
	checkMsgs(t, "ChannelsSince(4) after Subtract", c.ChannelsSince(4), chanMsgs[4:])
	r := acked.Clone()
	if err := r.Apply(c.Diff(acked)); err != nil || !r.Equal(c) {
		t.Fatalf("Apply(Diff(acked)) after Subtract: %v", err)
	}
	checkMsgs(t, "receiver", r.ChannelsSince(3), chanMsgs[3:])

	before = r.Footprint()
	r.TrimChannels(4)
	checkMsgs(t, "ChannelsSince(0) after TrimChannels(4)", r.ChannelsSince(0), chanMsgs[4:])
	if r.ChannelTotal() != 5 || r.Footprint() >= before {
		t.Errorf("after TrimChannels: total %d footprint %d (was %d)", r.ChannelTotal(), r.Footprint(), before)
	}
	r.TrimChannels(99)
	r.TrimChannels(1) // backwards: nothing comes back
	checkMsgs(t, "after TrimChannels(99)", r.ChannelsSince(0), nil)
	if r.ChannelTotal() != 5 || !r.Equal(c) {
		t.Errorf("TrimChannels changed the state: total %d", r.ChannelTotal())
	}
	c.Subtract(c)
	if c.ChannelTotal() != 5 || len(c.ChannelsSince(0)) != 0 {
		t.Errorf("self-subtracted: total %d, %d held", c.ChannelTotal(), len(c.ChannelsSince(0)))
	}
}

// TestUserStreamChannelSubtract: Subtract drops channel events like the
// others, keeping positions, and frees their data.
func TestUserStreamChannelSubtract(t *testing.T) {
	s := statesync.NewUserStream()
	s.PushKeys([]byte("ab"))
	s.PushChannel(statesync.ChannelMsg{ID: 1, Kind: statesync.ChannelData, Data: make([]byte, 1000)})
	acked := s.Clone()
	s.PushChannel(chanMsgs[0])
	s.PushKeys([]byte("c"))
	before := s.Footprint()
	s.Subtract(acked)
	if s.Total() != 5 || s.Held() != 2 || s.Footprint() > before-1000 {
		t.Errorf("after Subtract: total %d held %d footprint %d (was %d)", s.Total(), s.Held(), s.Footprint(), before)
	}
	evs := s.EventsSince(0)
	if len(evs) != 2 || evs[0].Channel == nil || !sameMsg(*evs[0].Channel, chanMsgs[0]) || string(evs[1].Keys) != "c" {
		t.Errorf("EventsSince(0) = %+v", evs)
	}
	r := acked.Clone()
	if err := r.Apply(s.Diff(acked)); err != nil || !r.Equal(s) {
		t.Fatalf("Apply(Diff(acked)) after Subtract: %v", err)
	}
}

// TestChannelEqual: the channel log takes part in equality, and a new
// message is never a deferrable change.
func TestChannelEqual(t *testing.T) {
	build := buildStream
	m := chanMsgs[1]
	other := func(f func(*statesync.ChannelMsg)) statesync.ChannelMsg { o := m; f(&o); return o }
	users := []struct {
		name string
		a, b *statesync.UserStream
		want bool
	}{
		{"same", build("a", m, "b"), build("a", m, "b"), true},
		{"nil and empty data", build(statesync.ChannelMsg{ID: 1}), build(statesync.ChannelMsg{ID: 1, Data: []byte{}}), true},
		{"other id", build(m), build(other(func(o *statesync.ChannelMsg) { o.ID++ })), false},
		{"other kind", build(m), build(other(func(o *statesync.ChannelMsg) { o.Kind = statesync.ChannelClose })), false},
		{"other data", build(m), build(other(func(o *statesync.ChannelMsg) { o.Data = []byte("x") })), false},
		{"other credit", build(m), build(other(func(o *statesync.ChannelMsg) { o.Credit = 1 })), false},
		{"message where a key is", build("a", m), build("a", "b"), false},
		{"message where a resize is", build(m), build([2]int{80, 24}), false},
		{"extra message", build("a"), build("a", m), false},
	}
	for _, tc := range users {
		if got := tc.a.Equal(tc.b); got != tc.want {
			t.Errorf("UserStream %s: Equal = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.b.Equal(tc.a); got != tc.want {
			t.Errorf("UserStream %s (reversed): Equal = %v, want %v", tc.name, got, tc.want)
		}
	}

	sent := statesync.NewComplete(80, 24)
	msg := sent.Clone()
	msg.PushChannel(m)
	ackMsg := msg.Clone()
	ackMsg.SetEchoAck(7)
	ack := sent.Clone()
	ack.SetEchoAck(7)
	for _, tc := range []struct {
		name              string
		c                 *statesync.Complete
		equal, deferrable bool
	}{
		{"no change", sent.Clone(), true, false},
		{"channel message", msg, false, false},
		{"channel message and echo ack", ackMsg, false, false},
		{"echo ack only", ack, false, true},
	} {
		if got := tc.c.Equal(sent); got != tc.equal {
			t.Errorf("Complete %s: Equal = %v, want %v", tc.name, got, tc.equal)
		}
		if got := tc.c.Deferrable(sent); got != tc.deferrable {
			t.Errorf("Complete %s: Deferrable = %v, want %v", tc.name, got, tc.deferrable)
		}
	}
}

// TestChannelBacklog: a receiver holds at most MaxChannelBacklog bytes of
// channel data and message costs, in messages of at most
// MaxChannelMessage; what it trims makes room again.
func TestChannelBacklog(t *testing.T) {
	big := make([]byte, statesync.MaxChannelMessage-statesync.ChannelMessageCost) // each counts MaxChannelMessage
	over := make([]byte, statesync.MaxChannelMessage+1)
	fill := statesync.MaxChannelBacklog / statesync.MaxChannelMessage
	t.Run("Complete", func(t *testing.T) {
		src := statesync.NewComplete(10, 2)
		for range fill {
			src.PushChannel(statesync.ChannelMsg{Kind: statesync.ChannelData, Data: big})
		}
		r := statesync.NewComplete(10, 2)
		if err := r.Apply(src.Diff(statesync.NewComplete(10, 2))); err != nil {
			t.Fatalf("a full backlog: %v", err)
		}
		base := src.Clone()
		src.PushChannel(statesync.ChannelMsg{Kind: statesync.ChannelData, Data: []byte{1}})
		d := src.Diff(base)
		if err := r.Clone().Apply(d); !errors.Is(err, statesync.ErrChannelBacklog) {
			t.Errorf("one byte beyond the backlog: %v, want ErrChannelBacklog", err)
		}
		r.TrimChannels(1)
		if err := r.Apply(d); err != nil {
			t.Errorf("after TrimChannels: %v", err)
		}
		r.Subtract(r.Clone())
		src = r.Clone()
		src.PushChannel(statesync.ChannelMsg{Kind: statesync.ChannelData, Data: over})
		if err := r.Apply(src.Diff(r)); !errors.Is(err, statesync.ErrChannelBacklog) {
			t.Errorf("oversized message: %v, want ErrChannelBacklog", err)
		}
	})
	t.Run("UserStream", func(t *testing.T) {
		src := statesync.NewUserStream()
		for range fill {
			src.PushChannel(statesync.ChannelMsg{Kind: statesync.ChannelData, Data: big})
			src.PushKeys([]byte("k")) // keys do not count
		}
		r := statesync.NewUserStream()
		if err := r.Apply(src.Diff(statesync.NewUserStream())); err != nil {
			t.Fatalf("a full backlog: %v", err)
		}
		base := src.Clone()
		src.PushChannel(statesync.ChannelMsg{Kind: statesync.ChannelData, Data: []byte{1}})
		d := src.Diff(base)
		if err := r.Clone().Apply(d); !errors.Is(err, statesync.ErrChannelBacklog) {
			t.Errorf("one byte beyond the backlog: %v, want ErrChannelBacklog", err)
		}
		r.Subtract(firstEvents(t, base, 2)) // one message and its key
		if err := r.Apply(d); err != nil {
			t.Errorf("after Subtract: %v", err)
		}
		src = r.Clone()
		src.PushChannel(statesync.ChannelMsg{Kind: statesync.ChannelData, Data: over})
		if err := r.Apply(src.Diff(r)); !errors.Is(err, statesync.ErrChannelBacklog) {
			t.Errorf("oversized message: %v, want ErrChannelBacklog", err)
		}
	})
}

// TestChannelOpenFlood: messages without Data count too, so a peer cannot
// make a receiver hold millions of opens: MaxChannelBacklog /
// ChannelMessageCost of them fill a state, and one more is refused.
func TestChannelOpenFlood(t *testing.T) {
	fill := statesync.MaxChannelBacklog / statesync.ChannelMessageCost
	open := func(i int) statesync.ChannelMsg {
		return statesync.ChannelMsg{ID: uint32(2 * i), Kind: statesync.ChannelOpen}
	}
	t.Run("Complete", func(t *testing.T) {
		src := statesync.NewComplete(10, 2)
		for i := range fill {
			src.PushChannel(open(i))
		}
		if err := statesync.NewComplete(10, 2).Apply(src.Diff(statesync.NewComplete(10, 2))); err != nil {
			t.Fatalf("%d opens: %v", fill, err)
		}
		src.PushChannel(open(fill))
		if err := statesync.NewComplete(10, 2).Apply(src.Diff(statesync.NewComplete(10, 2))); !errors.Is(err, statesync.ErrChannelBacklog) {
			t.Errorf("%d opens: %v, want ErrChannelBacklog", fill+1, err)
		}
	})
	t.Run("UserStream", func(t *testing.T) {
		src := statesync.NewUserStream()
		for i := range fill {
			src.PushChannel(open(i))
		}
		if err := statesync.NewUserStream().Apply(src.Diff(statesync.NewUserStream())); err != nil {
			t.Fatalf("%d opens: %v", fill, err)
		}
		if src.ChannelHeld() != fill {
			t.Errorf("ChannelHeld = %d, want %d", src.ChannelHeld(), fill)
		}
		src.PushChannel(open(fill))
		if err := statesync.NewUserStream().Apply(src.Diff(statesync.NewUserStream())); !errors.Is(err, statesync.ErrChannelBacklog) {
			t.Errorf("%d opens: %v, want ErrChannelBacklog", fill+1, err)
		}
		src.Subtract(firstEvents(t, src, 10))
		if src.ChannelHeld() != fill+1-10 {
			t.Errorf("after Subtract, ChannelHeld = %d, want %d", src.ChannelHeld(), fill+1-10)
		}
	})
}

// firstEvents returns a stream holding the first n events of s (which
// must hold them all).
func firstEvents(t *testing.T, s *statesync.UserStream, n int) *statesync.UserStream {
	t.Helper()
	p := statesync.NewUserStream()
	for _, ev := range s.EventsSince(0) {
		if p.Total() >= uint64(n) {
			break
		}
		switch {
		case ev.Channel != nil:
			p.PushChannel(*ev.Channel)
		case ev.Resize:
			p.PushResize(ev.Cols, ev.Rows)
		default:
			p.PushKeys(ev.Keys[:min(len(ev.Keys), n-int(p.Total()))])
		}
	}
	return p
}

// TestChannelStockCompatible: the extension is an unknown field to the
// generated code of both schemas, so a stock decoder still takes a diff
// holding it; and a state without channel messages sends exactly Mosh's
// bytes.
func TestChannelStockCompatible(t *testing.T) {
	c := statesync.NewComplete(80, 24)
	old := c.Clone()
	c.Feed([]byte("x"), nil)
	c.SetEchoAck(1)
	plain := c.Diff(old)
	for _, m := range chanMsgs {
		c.PushChannel(m)
	}
	d := c.Diff(old)
	if !bytes.HasPrefix(d, plain) {
		t.Errorf("channel instructions do not follow the screen's: %x, then %x", plain, d)
	}
	// Messages the base already has add nothing.
	held := statesync.NewComplete(80, 24)
	held.PushChannel(chanMsgs[0])
	base := held.Clone()
	held.Feed([]byte("x"), nil)
	held.SetEchoAck(1)
	if got := held.Diff(base); !bytes.Equal(got, plain) {
		t.Errorf("Complete with old channel messages: %x, want %x", got, plain)
	}
	var hm hostpb.HostMessage
	if err := proto.Unmarshal(d, &hm); err != nil {
		t.Fatalf("HostMessage with channels: %v", err)
	}
	screen := decodeHost(t, plain) // echo ack and host bytes
	for _, in := range screen {
		if len(in.ProtoReflect().GetUnknown()) > 0 {
			t.Errorf("a diff without channel messages has unknown fields: %x", plain)
		}
	}
	ins := hm.GetInstruction()
	if len(ins) != len(screen)+len(chanMsgs) {
		t.Fatalf("%d instructions, want %d", len(ins), len(screen)+len(chanMsgs))
	}
	for i, in := range ins[len(screen):] {
		if len(in.ProtoReflect().GetUnknown()) == 0 {
			t.Errorf("channel instruction %d is not an unknown field", i)
		}
	}

	s := statesync.NewUserStream()
	s.PushResize(80, 24)
	s.PushKeys([]byte("ls\r"))
	if got, want := s.Diff(statesync.NewUserStream()), userMessage(t, [2]int{80, 24}, "ls\r"); !bytes.Equal(got, want) {
		t.Errorf("UserStream without channels: %x, want %x", got, want)
	}
	s.PushChannel(chanMsgs[0])
	sent := s.Clone()
	s.PushKeys([]byte("z"))
	if got, want := s.Diff(sent), userMessage(t, "z"); !bytes.Equal(got, want) {
		t.Errorf("UserStream with old channel messages: %x, want %x", got, want)
	}
	s.PushKeys([]byte("y"))
	var um userpb.UserMessage
	if err := proto.Unmarshal(s.Diff(statesync.NewUserStream()), &um); err != nil {
		t.Fatalf("UserMessage with channels: %v", err)
	}
	if n := len(um.GetInstruction()); n != 4 { // resize, "ls\r", channel, "zy"
		t.Errorf("%d instructions, want 4", n)
	}
	if len(um.GetInstruction()[2].ProtoReflect().GetUnknown()) == 0 {
		t.Error("the channel instruction is not an unknown field")
	}
}

// TestChannelRandom: random pushes, diffs and acknowledgements of both
// states reach Equal receivers that saw every message once, in order.
func TestChannelRandom(t *testing.T) {
	for seed := range uint64(50) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c, s := statesync.NewComplete(10, 2), statesync.NewUserStream()
			cPeer, sPeer := c.Clone(), s.Clone()
			var want []statesync.ChannelMsg
			var gotC, gotS []statesync.ChannelMsg
			var posC, posS uint64
			x := seed*2654435761 + 1
			next := func(n uint64) uint64 { x = x*6364136223846793005 + 1442695040888963407; return (x >> 33) % n }
			for range 60 {
				for range next(4) {
					m := statesync.ChannelMsg{ID: uint32(next(3)), Kind: statesync.ChannelKind(1 + next(4)), Credit: uint32(next(2) * 100)}
					m.Data = bytes.Repeat([]byte{byte(len(want))}, int(next(3)))
					want = append(want, m)
					c.PushChannel(m)
					s.PushChannel(m)
					if next(2) == 0 {
						s.PushKeys([]byte("k"))
					}
				}
				if err := cPeer.Apply(c.Diff(cPeer)); err != nil || !cPeer.Equal(c) {
					t.Fatalf("Complete: %v", err)
				}
				if err := sPeer.Apply(s.Diff(sPeer)); err != nil || !sPeer.Equal(s) {
					t.Fatalf("UserStream: %v", err)
				}
				gotC = append(gotC, cPeer.ChannelsSince(posC)...)
				posC = cPeer.ChannelTotal()
				cPeer.TrimChannels(posC)
				for _, ev := range sPeer.EventsSince(posS) {
					if ev.Channel != nil {
						gotS = append(gotS, *ev.Channel)
					}
				}
				posS = sPeer.Total()
				if next(3) == 0 { // the peer acknowledged
					c.Subtract(cPeer)
					ack := sPeer.Clone()
					s.Subtract(ack)
					sPeer.Subtract(ack)
				}
			}
			checkMsgs(t, "Complete receiver", gotC, want)
			checkMsgs(t, "UserStream receiver", gotS, want)
		})
	}
}

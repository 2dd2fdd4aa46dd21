package session

import (
	"bytes"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/statesync"
)

// TestStreamMessages: channel messages pushed into one chanStream come
// out of the other in order, whatever the packets' boundaries (a long
// data message in parts: their bytes are the message's).
func TestStreamMessages(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := newChanStream(now, 10*time.Millisecond), newChanStream(now, 10*time.Millisecond)
	msgs := []statesync.ChannelMsg{
		{ID: 2, Kind: statesync.ChannelOpen, Data: []byte("tcp:db:5432")},
		{ID: 2, Kind: statesync.ChannelCredit, Credit: 458752},
		{ID: 2, Kind: statesync.ChannelData, Data: bytes.Repeat([]byte("x"), statesync.MaxChannelMessage)},
		{ID: 1<<32 - 1, Kind: statesync.ChannelClose, Data: []byte("bye")},
	}
	for _, m := range msgs {
		a.push(m)
	}
	var got []statesync.ChannelMsg
	for i := 0; i < 1000 && len(got) < len(msgs); i++ {
		now = now.Add(time.Millisecond)
		for p := a.st.Poll(now, nil, 1200); p != nil; p = a.st.Poll(now, nil, 1200) {
			for _, m := range b.receive(now, p, t.Logf) {
				if k := len(got) - 1; k >= 0 && m.Kind == statesync.ChannelData && got[k].Kind == m.Kind && got[k].ID == m.ID && len(got[k].Data) < statesync.MaxChannelMessage {
					got[k].Data = append(got[k].Data, m.Data...)
					continue
				}
				got = append(got, m)
			}
		}
		for p := b.st.Poll(now, nil, 1200); p != nil; p = b.st.Poll(now, nil, 1200) {
			a.receive(now, p, t.Logf)
		}
	}
	if len(got) != len(msgs) {
		t.Fatalf("%d messages arrived, want %d", len(got), len(msgs))
	}
	for i := range msgs {
		if got[i].ID != msgs[i].ID || got[i].Kind != msgs[i].Kind || got[i].Credit != msgs[i].Credit || !bytes.Equal(got[i].Data, msgs[i].Data) {
			t.Errorf("message %d = %+v, want %+v", i, got[i], msgs[i])
		}
	}
	if a.held() != 0 {
		t.Errorf("%d messages still held after every acknowledgement", a.held())
	}
}

// TestStreamMessageMalformed: a message of an unknown kind, or with data
// beyond statesync.MaxChannelMessage, is an error; a prefix of a valid one is
// incomplete, not an error.
func TestStreamMessageMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		bad  bool
	}{
		{"unknown kind", []byte{9, 2, 0}, true},
		{"kind zero", []byte{0, 2, 0}, true},
		{"data too long", []byte{byte(statesync.ChannelData), 2, 0x81, 0x80, 0x04}, true},
		{"id overflows", []byte{byte(statesync.ChannelData), 0xff, 0xff, 0xff, 0xff, 0x7f, 0}, true},
		{"incomplete", []byte{byte(statesync.ChannelData), 2, 5, 'a'}, false},
	} {
		_, n, err := parseStreamMsg(tc.b)
		if (err != nil) != tc.bad || !tc.bad && n != 0 {
			t.Errorf("%s: parseStreamMsg(%x) = %d, %v", tc.name, tc.b, n, err)
		}
	}
}

func FuzzStreamMessages(f *testing.F) {
	cs := newChanStream(time.Now(), time.Millisecond)
	cs.push(statesync.ChannelMsg{ID: 2, Kind: statesync.ChannelOpen, Data: []byte("agent")})
	cs.push(statesync.ChannelMsg{ID: 2, Kind: statesync.ChannelCredit, Credit: 7})
	f.Add(cs.enc)
	f.Add([]byte{byte(statesync.ChannelData), 3, 2, 'h', 'i', byte(statesync.ChannelClose), 3, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		for len(b) > 0 {
			m, n, err := parseStreamMsg(b)
			if err != nil || n == 0 {
				return
			}
			if n > len(b) || len(m.Data) > statesync.MaxChannelMessage {
				t.Fatalf("parseStreamMsg(%x) = %+v, %d", b, m, n)
			}
			b = b[n:]
		}
	})
}

// TestStreamDataInParts: a long data message goes on to its channel as
// its packets arrive, not once the last of them did (a 16 KiB chunk is
// 14 packets, 130 ms at 1 Mbit/s, which an echo or the next hop would
// wait for its first byte); a short one comes whole.
func TestStreamDataInParts(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := newChanStream(now, 10*time.Millisecond), newChanStream(now, 10*time.Millisecond)
	long := bytes.Repeat([]byte("0123456789"), 1639) // 16390 bytes
	a.push(statesync.ChannelMsg{ID: 3, Kind: statesync.ChannelData, Data: []byte("hello")})
	a.push(statesync.ChannelMsg{ID: 3, Kind: statesync.ChannelData, Data: long})
	a.push(statesync.ChannelMsg{ID: 3, Kind: statesync.ChannelClose})
	var got []statesync.ChannelMsg
	var data []byte
	packets := 0
	for p := a.st.Poll(now, nil, 1200); p != nil; p = a.st.Poll(now, nil, 1200) {
		packets++
		for _, m := range b.receive(now, p, t.Logf) {
			got = append(got, m)
			if m.Kind == statesync.ChannelData && len(got) > 1 {
				data = append(data, m.Data...)
			}
		}
		if packets == 1 && (len(got) != 2 || string(got[0].Data) != "hello" || len(got[1].Data) == 0) {
			t.Fatalf("after the first packet: %d messages, want the short one whole and the long one's first part", len(got))
		}
	}
	if packets < 14 {
		t.Fatalf("%d packets, want at least 14", packets)
	}
	if !bytes.Equal(data, long) || got[len(got)-1].Kind != statesync.ChannelClose || len(got) < packets {
		t.Errorf("%d messages in %d packets, %d bytes of the long one's %d (equal %v), last %v", len(got), packets, len(data), len(long), bytes.Equal(data, long), got[len(got)-1].Kind)
	}
}

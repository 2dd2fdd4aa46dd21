package session

import (
	"bytes"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/statesync"
)

// TestStreamMessages: channel messages pushed into one chanStream come
// out of the other in order, whatever the packets' boundaries.
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
			got = append(got, b.receive(now, p, t.Logf)...)
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

package session

import (
	"io"
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
)

// TestClientRefusesServerChannels: a server (perhaps compromised) can make
// the client open nothing but the agent, and that only with -A: a TCP
// channel, or the agent without -A, is refused with a Close, and nothing
// is dialled.
func TestClientRefusesServerChannels(t *testing.T) {
	dialled := 0
	agent := func() (io.ReadWriteCloser, error) { dialled++; return nil, io.EOF }
	for _, tc := range []struct {
		name    string
		dial    func() (io.ReadWriteCloser, error)
		service string
	}{
		{"tcp", agent, "tcp:127.0.0.1:22"},
		{"unknown", agent, "listen:0.0.0.0:80"},
		{"forwarded, no -R", agent, "forwarded:2"},
		{"agent without -A", nil, ServiceAgent},
	} {
		c := &client{cfg: ClientConfig{DialAgent: tc.dial}}
		var pushed []vt.ChannelMsg
		cs := newChannels(false, func(m vt.ChannelMsg) { pushed = append(pushed, m) }, func() int { return 0 }, c.dialService, func(string, ...any) {})
		cs.receive(vt.ChannelMsg{ID: 1, Kind: vt.ChannelOpen, Data: []byte(tc.service)})
		if len(pushed) != 1 || pushed[0].Kind != vt.ChannelClose || pushed[0].ID != 1 {
			t.Errorf("%s: pushed %+v, want a Close of channel 1", tc.name, pushed)
		}
		// Data for the refused channel goes nowhere.
		cs.receive(vt.ChannelMsg{ID: 1, Kind: vt.ChannelData, Data: []byte("x")})
		cs.close()
	}
	if dialled != 0 {
		t.Errorf("the client dialled %d times for channels it must refuse", dialled)
	}
}

// TestChannelsBounded: a peer cannot make this side hold more than
// maxChannels channels: opens beyond are refused (a Close, no dial), and
// the refused ones still count until the peer closes them.
func TestChannelsBounded(t *testing.T) {
	dial := func(string) (func() (io.ReadWriteCloser, error), bool) {
		return func() (io.ReadWriteCloser, error) { return nil, io.EOF }, true
	}
	var closes int
	cs := newChannels(true, func(m vt.ChannelMsg) {
		if m.Kind == vt.ChannelClose {
			closes++
		}
	}, func() int { return 0 }, dial, func(string, ...any) {})
	defer cs.close()
	for id := uint32(2); id < 2+2*(maxChannels+10); id += 2 {
		cs.receive(vt.ChannelMsg{ID: id, Kind: vt.ChannelOpen, Data: []byte("tcp:127.0.0.1:7")})
	}
	if len(cs.byID) != maxChannels || closes != 10 {
		t.Errorf("%d channels held, %d refused; want %d and 10", len(cs.byID), closes, maxChannels)
	}
}

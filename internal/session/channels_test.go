package session

import (
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/statesync"
)

// peerState is a local state whose peer acknowledges nothing: it holds
// every message pushed.
type peerState struct{ msgs []statesync.ChannelMsg }

func (s *peerState) PushChannel(m statesync.ChannelMsg) { s.msgs = append(s.msgs, m) }
func (s *peerState) ChannelHeld() int                   { return len(s.msgs) }
func (s *peerState) ChannelBytes() int {
	n := 0
	for _, m := range s.msgs {
		n += len(m.Data)
	}
	return n
}

// closes counts the Close messages of s.
func (s *peerState) closes() int {
	n := 0
	for _, m := range s.msgs {
		if m.Kind == statesync.ChannelClose {
			n++
		}
	}
	return n
}

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
		st := &peerState{}
		cs := newChannels(false, st, c.dialService, nil)
		cs.receive(statesync.ChannelMsg{ID: 1, Kind: statesync.ChannelOpen, Data: []byte(tc.service)})
		if len(st.msgs) != 1 || st.msgs[0].Kind != statesync.ChannelClose || st.msgs[0].ID != 1 {
			t.Errorf("%s: pushed %+v, want a Close of channel 1", tc.name, st.msgs)
		}
		// Data for the refused channel goes nowhere.
		cs.receive(statesync.ChannelMsg{ID: 1, Kind: statesync.ChannelData, Data: []byte("x")})
		cs.close()
	}
	if dialled != 0 {
		t.Errorf("the client dialled %d times for channels it must refuse", dialled)
	}
}

// eofDial dials connections that fail at once.
func eofDial(string) (func() (io.ReadWriteCloser, error), error) {
	return func() (io.ReadWriteCloser, error) { return nil, io.EOF }, nil
}

// TestChannelsBounded: a peer cannot make this side hold more than
// maxChannels channels: opens beyond are refused (a Close, no dial), and
// the refused ones still count until the peer closes them.
func TestChannelsBounded(t *testing.T) {
	st := &peerState{}
	cs := newChannels(true, st, eofDial, nil)
	defer cs.close()
	for id := uint32(2); id < 2+2*(maxChannels+10); id += 2 {
		cs.receive(statesync.ChannelMsg{ID: id, Kind: statesync.ChannelOpen, Data: []byte("tcp:127.0.0.1:7")})
	}
	if len(cs.byID) != maxChannels || st.closes() != 10 {
		t.Errorf("%d channels held, %d refused; want %d and 10", len(cs.byID), st.closes(), maxChannels)
	}
}

// TestRefusalsBounded: a peer that never acknowledges cannot make this
// side's state grow by opening channels it refuses (not forwarded, or
// past maxChannels): past chanHeldMax messages unacknowledged, its opens
// are dropped unanswered. Once it acknowledges, opens are answered again.
func TestRefusalsBounded(t *testing.T) {
	for _, service := range []string{"agent", "tcp:127.0.0.1:7"} {
		st := &peerState{}
		cs := newChannels(false, st, (&client{}).dialService, nil)
		const opens = 100_000
		for i := range opens {
			cs.receive(statesync.ChannelMsg{ID: uint32(2*i + 1), Kind: statesync.ChannelOpen, Data: []byte(service)})
		}
		if len(st.msgs) > chanHeldMax {
			t.Errorf("%s: %d opens left %d messages in the state, want at most %d", service, opens, len(st.msgs), chanHeldMax)
		}
		if cs.dropped != opens-len(st.msgs) {
			t.Errorf("%s: %d opens dropped, want %d", service, cs.dropped, opens-len(st.msgs))
		}
		st.msgs = nil // acknowledged
		cs.receive(statesync.ChannelMsg{ID: 2*opens + 1, Kind: statesync.ChannelOpen, Data: []byte(service)})
		if len(st.msgs) != 1 || st.msgs[0].Kind != statesync.ChannelClose {
			t.Errorf("%s: after the ack, pushed %+v, want a Close", service, st.msgs)
		}
		cs.close()
	}
}

// flakyListener fails its first fails Accepts with EMFILE, then hands out
// conns; after Close it reports net.ErrClosed.
type flakyListener struct {
	mu     sync.Mutex
	fails  int
	calls  int
	conns  chan net.Conn
	closed chan struct{}
}

func (l *flakyListener) Accept() (io.ReadWriteCloser, error) {
	l.mu.Lock()
	l.calls++
	fail := l.calls <= l.fails
	l.mu.Unlock()
	if fail {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *flakyListener) Close() error { close(l.closed); return nil }

// TestAcceptRetries: a listener whose Accept fails (out of file
// descriptors) is tried again after a pause, and its next connection is
// forwarded; a closed one is given up.
func TestAcceptRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := newChannels(false, &peerState{}, eofDial, nil)
		defer cs.close()
		l := &flakyListener{fails: 20, conns: make(chan net.Conn), closed: make(chan struct{})}
		start := time.Now()
		cs.listenService(l, "-L 8080:db:80", true, fixed("tcp:db:80"))
		a, b := net.Pipe()
		defer b.Close()
		l.conns <- a
		select {
		case ev := <-cs.events:
			if acc, ok := ev.(evAccepted); !ok || acc.service != "tcp:db:80" || acc.conn != a {
				t.Errorf("event %+v, want the connection accepted for tcp:db:80", ev)
			}
			cs.event(ev)
		case <-time.After(time.Minute):
			t.Fatal("the connection after the failures was never accepted")
		}
		// 20 failures: pauses from 5 ms doubling to 1 s, about 14 s.
		if took := time.Since(start); took < 5*time.Second || took > 30*time.Second {
			t.Errorf("20 failed accepts took %v, want pauses up to a second", took)
		}
		l.Close()
		synctest.Wait()
		l.mu.Lock()
		calls := l.calls
		l.mu.Unlock()
		time.Sleep(10 * time.Second)
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.calls != calls {
			t.Errorf("a closed listener was accepted from %d more times", l.calls-calls)
		}
	})
}

// TestHandshakeBounded: a connection that never finishes its SOCKS
// handshake is closed after handshakeTimeout, and the ones being
// handshaken count towards maxChannels: a listener's connections
// beyond it, and the peer's opens, are refused meanwhile.
func TestHandshakeBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &peerState{}
		cs := newChannels(true, st, eofDial, nil)
		defer cs.close()
		l := &flakyListener{conns: make(chan net.Conn), closed: make(chan struct{})}
		defer l.Close()
		// A handshake that reads until the connection is closed.
		socks := func(c io.ReadWriteCloser) (string, error) {
			_, err := io.ReadAll(c)
			return "", errors.New("socks: greeting: " + err.Error())
		}
		cs.listenService(l, "-D 1080", true, socks)
		var progs []net.Conn
		for range maxChannels + 5 {
			a, b := net.Pipe()
			l.conns <- a
			progs = append(progs, b)
		}
		synctest.Wait()
		// The last five were closed at once: reading them ends.
		for i, p := range progs {
			p.SetReadDeadline(time.Now().Add(time.Millisecond))
			_, err := p.Read(make([]byte, 1))
			if closed := errors.Is(err, io.EOF); closed != (i >= maxChannels) {
				t.Fatalf("connection %d: read %v", i, err)
			}
			p.SetReadDeadline(time.Time{})
		}
		cs.receive(statesync.ChannelMsg{ID: 2, Kind: statesync.ChannelOpen, Data: []byte("tcp:127.0.0.1:7")})
		if len(st.msgs) != 1 || string(st.msgs[0].Data) != "too many channels" {
			t.Errorf("the peer's open during %d handshakes: pushed %+v, want a refusal", maxChannels, st.msgs)
		}
		time.Sleep(handshakeTimeout + time.Second)
		for i, p := range progs[:maxChannels] {
			p.SetReadDeadline(time.Now().Add(time.Millisecond))
			if _, err := p.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				t.Fatalf("connection %d after the handshake timeout: read %v, want it closed", i, err)
			}
		}
		if n := cs.busy.Load(); n != 0 {
			t.Errorf("busy = %d after the handshakes timed out, want 0", n)
		}
		for _, p := range progs {
			p.Close()
		}
	})
}

// TestGatewayPorts: where the server listens for -R under each policy.
func TestGatewayPorts(t *testing.T) {
	for _, tc := range []struct {
		g          GatewayPorts
		ask, where string
	}{
		{GatewayNo, "0.0.0.0:8080", "127.0.0.1:8080"},
		{GatewayNo, ":8080", "127.0.0.1:8080"},
		{GatewayNo, "192.0.2.1:8080", "127.0.0.1:8080"},
		{GatewayNo, "[::]:8080", "[::1]:8080"},
		{GatewayNo, "example.com:8080", "127.0.0.1:8080"},
		{GatewayNo, "127.0.0.1:8080", "127.0.0.1:8080"},
		{GatewayNo, "127.1.2.3:8080", "127.1.2.3:8080"},
		{GatewayNo, "[::1]:8080", "[::1]:8080"},
		{GatewayNo, "localhost:8080", "localhost:8080"},
		{GatewayClientSpecified, ":8080", ":8080"},
		{GatewayClientSpecified, "192.0.2.1:8080", "192.0.2.1:8080"},
		{GatewayYes, "127.0.0.1:8080", ":8080"},
	} {
		got, err := tc.g.bind(tc.ask)
		if err != nil || got != tc.where {
			t.Errorf("%v: -R asking %s listens on %q, %v; want %s", tc.g, tc.ask, got, err, tc.where)
		}
	}
}

// TestForwardPolicyStricter: a policy from the environment and one from
// the flags combine into what both allow.
func TestForwardPolicyStricter(t *testing.T) {
	p := ForwardPolicy{TCP: TCPLocal, Gateway: GatewayYes}
	q := ForwardPolicy{TCP: TCPRemote, Gateway: GatewayClientSpecified, Agent: AgentNo}
	if got := p.Stricter(q); got != (ForwardPolicy{TCP: TCPNo, Gateway: GatewayClientSpecified, Agent: AgentNo}) {
		t.Errorf("Stricter = %+v", got)
	}
	if got := p.Stricter(ForwardPolicy{Gateway: GatewayYes}); got != p {
		t.Errorf("with the loosest: %+v, want %+v", got, p)
	}
	if got := p.Stricter(ForwardPolicy{}); got.Gateway != GatewayNo {
		t.Errorf("with the defaults: %+v, want gateway ports no", got)
	}
	for _, v := range []interface{ Set(string) error }{new(TCPForwarding), new(GatewayPorts), new(AgentForwarding)} {
		if err := v.Set("maybe"); err == nil || !strings.Contains(err.Error(), "want") {
			t.Errorf("%T.Set(maybe) = %v", v, err)
		}
	}
}

// FuzzForwardPolicy: the policy parsers take any string without panicking,
// and what they accept prints back as it was spelt.
func FuzzForwardPolicy(f *testing.F) {
	for _, s := range []string{"yes", "no", "local", "remote", "clientspecified", "YES", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []interface {
			Set(string) error
			String() string
		}{new(TCPForwarding), new(GatewayPorts), new(AgentForwarding)} {
			if v.Set(s) == nil && !strings.EqualFold(v.String(), s) {
				t.Errorf("%T: %q parsed as %q", v, s, v.String())
			}
		}
	})
}

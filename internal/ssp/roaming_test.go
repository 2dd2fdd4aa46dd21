package ssp_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// TestRoaming: the client's address and port change mid-session; the
// server follows the first authentic datagram from the new address and
// the session goes on. IPv4 to IPv6 included.
func TestRoaming(t *testing.T) {
	for _, to := range []string{"192.0.2.10:50001", "203.0.113.7:40000", "[2001:db8::5]:50000"} {
		t.Run(to, func(t *testing.T) {
			s := newSim(t, 7, lan, lan, ssp.Config{})
			s.client.Current().Append([]byte("before"))
			s.run(2 * time.Second)
			if addr, _ := s.server.RemoteAddr(); addr != s.clientAddr {
				t.Fatalf("server targets %v, want %v", addr, s.clientAddr)
			}
			old := s.clientAddr
			s.clientAddr = netip.MustParseAddrPort(to)
			s.client.Current().Append([]byte("after"))
			s.server.Current().Append([]byte("reply"))
			if !s.runUntil(s.now.Add(10*time.Second), s.converged) {
				t.Fatalf("no convergence after the move")
			}
			if addr, _ := s.server.RemoteAddr(); addr != s.clientAddr {
				t.Errorf("server targets %v after the move from %v, want %v", addr, old, s.clientAddr)
			}
			if got := s.server.Stats().Roams; got != 2 {
				t.Errorf("Roams = %d, want 2 (attach, move)", got)
			}
		})
	}
}

// TestRoamingNotOnForgedOrStale: datagrams from another address that are
// forged, reflected, replayed or not newer than what was heard never move
// the server's target.
func TestRoamingNotOnForgedOrStale(t *testing.T) {
	s := newSim(t, 8, lan, lan, ssp.Config{})
	var captured [][]byte
	s.onSend = func(toSrv bool, _ time.Time, d []byte) {
		captured = append(captured, append([]byte(toSrv2byte(toSrv)), d...))
	}
	s.client.Current().Append([]byte("hi"))
	s.run(3 * time.Second)
	target, _ := s.server.RemoteAddr()
	evil := netip.MustParseAddrPort("198.18.0.66:6666")

	var oldClient, fromServer []byte
	for _, c := range captured {
		if c[0] == 1 && oldClient == nil {
			oldClient = c[1:]
		}
		if c[0] == 0 {
			fromServer = c[1:]
		}
	}
	otherKey, _ := sspcrypto.NewKey(fixedReader(9))
	forged := newForger(t, otherKey, sspcrypto.ToServer, 1<<40).instruction(ssp.Instruction{ProtocolVersion: 2, NewNum: 1})[0]
	tests := []struct {
		name string
		d    []byte
		want ssp.DropReason // -1: accepted (processed, not roamed)
	}{
		{"wrong key", forged, ssp.DropAuth},
		{"garbage", make([]byte, 60), ssp.DropAuth},
		{"reflected server datagram", fromServer, ssp.DropDirection},
		{"replayed old client datagram", oldClient, -1},
	}
	for _, tc := range tests {
		err := s.server.Receive(s.now, tc.d, evil)
		var de *ssp.DropError
		switch {
		case tc.want < 0 && err != nil:
			t.Errorf("%s: Receive = %v, want nil", tc.name, err)
		case tc.want >= 0 && (!errors.As(err, &de) || de.Reason != tc.want):
			t.Errorf("%s: Receive = %v, want a %q drop", tc.name, err, tc.want)
		}
		if addr, _ := s.server.RemoteAddr(); addr != target {
			t.Fatalf("%s moved the target to %v", tc.name, addr)
		}
	}
	if st := s.server.Stats(); st.Reordered == 0 || st.Roams != 1 {
		t.Errorf("stats %+v: want the replay counted as reordered, one roam", st)
	}
	// The session is unharmed.
	s.client.Current().Append([]byte("still here"))
	if !s.runUntil(s.now.Add(5*time.Second), s.converged) {
		t.Error("no convergence after the attacks")
	}
}

func toSrv2byte(b bool) string {
	if b {
		return "\x01"
	}
	return "\x00"
}

// fixedReader returns a deterministic io.Reader for keys.
type fixedReader byte

func (r fixedReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r) + byte(i)
	}
	return len(p), nil
}

// TestServerDetach: after ServerAssociationTimeout without hearing from
// the client the server forgets its address, sends nothing, schedules
// nothing; the client's next datagram reattaches it.
func TestServerDetach(t *testing.T) {
	s := newSim(t, 9, lan, lan, ssp.Config{})
	s.run(2 * time.Second)
	cut := s.now
	s.up.loss = 1 // the client goes silent
	s.run(ssp.ServerAssociationTimeout + 5*time.Second)
	if _, ok := s.server.RemoteAddr(); ok {
		t.Fatal("server still attached after 45 s of silence")
	}
	if !s.server.NextDeadline().IsZero() {
		t.Errorf("detached server has a deadline %v", s.server.NextDeadline())
	}
	if got := s.server.LastDatagram(); got.After(cut.Add(time.Second)) {
		t.Errorf("LastDatagram %v after the cut", got.Sub(cut))
	}
	s.up.loss = 0
	s.client.Current().Append([]byte("back"))
	if !s.runUntil(s.now.Add(5*time.Second), s.converged) {
		t.Fatal("no convergence after reattaching")
	}
	if _, ok := s.server.RemoteAddr(); !ok {
		t.Error("server did not reattach")
	}
}

// TestPortHopDue: the client asks for a new port only after 10 s without
// an acknowledged round trip and 10 s since its last port choice.
func TestPortHopDue(t *testing.T) {
	s := newSim(t, 10, lan, lan, ssp.Config{})
	s.run(30 * time.Second)
	if s.client.PortHopDue(s.now) {
		t.Fatal("hop due in a healthy session")
	}
	if s.server.PortHopDue(s.now) {
		t.Fatal("a server hop")
	}
	s.down.loss = 1 // the server's replies stop arriving
	var hops []time.Time
	for range 40 {
		s.run(time.Second)
		if s.client.PortHopDue(s.now) {
			hops = append(hops, s.now)
			s.clientAddr = netip.AddrPortFrom(s.clientAddr.Addr(), s.clientAddr.Port()+1)
		}
	}
	if len(hops) < 2 {
		t.Fatalf("hops at %v, want one every ~10 s", hops)
	}
	for i := 1; i < len(hops); i++ {
		if gap := hops[i].Sub(hops[i-1]); gap <= ssp.PortHopInterval || gap > ssp.PortHopInterval+time.Second {
			t.Errorf("hops %v apart, want just over %v", gap, ssp.PortHopInterval)
		}
	}
	// Replies come back on the new port; the session recovers.
	s.down.loss = 0
	s.client.Current().Append([]byte("x"))
	if !s.runUntil(s.now.Add(10*time.Second), s.converged) {
		t.Fatal("no convergence after hopping")
	}
	s.run(time.Second) // the server's ack arrives
	if s.client.PortHopDue(s.now) {
		t.Error("hop due right after recovering")
	}
}

// TestShutdownHandshake: the client shuts down; the server sees it,
// acknowledges once, and both sides learn the outcome, under loss too.
func TestShutdownHandshake(t *testing.T) {
	for _, loss := range []float64{0, 0.3} {
		m := linkModel{delay: 20 * time.Millisecond, loss: loss}
		s := newSim(t, 11, m, m, ssp.Config{})
		s.client.Current().Append([]byte("bye"))
		s.run(3 * time.Second)
		s.client.StartShutdown(s.now)
		if !s.client.ShutdownInProgress() {
			t.Fatal("ShutdownInProgress false")
		}
		done := s.runUntil(s.now.Add(10*time.Second), func() bool {
			return s.client.ShutdownAcknowledged() || s.client.ShutdownAckTimedOut(s.now)
		})
		if !done || !s.client.ShutdownAcknowledged() {
			t.Fatalf("loss %v: shutdown not acknowledged (timed out %v)", loss, s.client.ShutdownAckTimedOut(s.now))
		}
		if !s.server.CounterpartyShutdown() || !s.server.CounterpartyShutdownAckSent() {
			t.Errorf("loss %v: server saw shutdown %v, acked %v", loss, s.server.CounterpartyShutdown(), s.server.CounterpartyShutdownAckSent())
		}
		if got := s.server.Remote(); !got.Equal(s.client.Current()) {
			t.Errorf("loss %v: final client state lost in shutdown", loss)
		}
	}
}

// TestShutdownTimesOut: with a dead peer the initiator gives up after 16
// tries, one per send interval.
func TestShutdownTimesOut(t *testing.T) {
	s := newSim(t, 12, lan, lan, ssp.Config{})
	s.run(3 * time.Second)
	s.up.loss, s.down.loss = 1, 1
	start := s.now
	s.client.StartShutdown(s.now)
	if !s.runUntil(s.now.Add(30*time.Second), func() bool { return s.client.ShutdownAckTimedOut(s.now) }) {
		t.Fatal("never timed out")
	}
	if took := s.now.Sub(start); took > 16*ssp.SendIntervalMax {
		t.Errorf("gave up after %v, want within 16 send intervals", took)
	}
	if s.client.ShutdownAcknowledged() {
		t.Error("acknowledged by a dead peer")
	}
}

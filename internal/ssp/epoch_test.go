package ssp_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// TestEpochResume: a client that dies and comes back with the same key in
// a new epoch (docs/protocol.md 12.4) restarts both directions from the
// initial states: the server sends its whole state again, the new
// client's input starts afresh, every sequence number the server ever sees
// from the key is new, the reservation is asked for before every block,
// and the old client's datagrams no longer count.
func TestEpochResume(t *testing.T) {
	s := newSim(t, 21, lan, lan, ssp.Config{})
	s.server.SetEpochStates(func() (*logState, *logState) { return ssptest.NewLog(), ssptest.NewLog() })
	sess, err := sspcrypto.NewSession(s.key)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	var limit uint64
	var oldClient []byte
	s.onSend = func(toSrv bool, _ time.Time, d []byte) {
		if !toSrv {
			return
		}
		_, seq, _, err := sess.Open(nil, d)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		if seen[seq] {
			t.Fatalf("sequence number %d sealed twice", seq)
		}
		seen[seq] = true
		if limit != 0 && seq >= limit {
			t.Fatalf("sealed %d at or above the reserved limit %d", seq, limit)
		}
		if oldClient == nil {
			oldClient = append([]byte(nil), d...)
		}
	}
	s.client.Current().Append([]byte("typed before"))
	s.server.Current().Append([]byte("screen"))
	if !s.runUntil(s.now.Add(5*time.Second), s.converged) {
		t.Fatal("no convergence before the restart")
	}
	used := uint64(len(seen))

	// The client dies; its successor knows the key and a reservation.
	reserved := used + 3
	var calls int
	cfg := ssp.Config{Key: s.key, Remote: s.serverAddr, Epoch: 1, FirstSeq: reserved, ResumeFrom: 42,
		ReserveSeq: func(next uint64) (uint64, error) {
			calls++
			if next < limit {
				t.Errorf("reservation asked for %d below the limit %d", next, limit)
			}
			limit = next + 8
			return limit, nil
		}}
	limit = reserved
	if s.client, err = ssp.NewTransport(cfg, ssptest.NewLog(), ssptest.NewLog(), s.now); err != nil {
		t.Fatal(err)
	}
	s.client.Current().Append([]byte("typed after"))
	s.server.Current().Append([]byte(" more"))
	if !s.runUntil(s.now.Add(10*time.Second), s.converged) {
		t.Fatalf("no convergence after the restart: server has %q, client shows %q", s.server.Remote(), s.client.Remote())
	}
	if got := string(s.client.Remote().Tail()); got != "screen more" {
		t.Errorf("the new client shows %q, want the whole state", got)
	}
	if got := string(s.server.Remote().Tail()); got != "typed after" {
		t.Errorf("the server has input %q, want only the new epoch's", got)
	}
	if s.server.Epoch() != 1 || s.server.ResumeFrom() != 42 {
		t.Errorf("server epoch %d resume-from %d", s.server.Epoch(), s.server.ResumeFrom())
	}
	if calls == 0 {
		t.Error("the reservation was never asked for")
	}
	for seq := range seen {
		if seq >= used && seq < reserved {
			t.Errorf("sequence number %d inside the gap", seq)
		}
	}

	// The old client's datagram is from an old epoch: dropped.
	err = s.server.Receive(s.now, oldClient, s.clientAddr)
	var de *ssp.DropError
	if !errors.As(err, &de) || de.Reason != ssp.DropEpoch {
		t.Errorf("an old-epoch datagram gave %v, want DropEpoch", err)
	}
	checkNoBadDropsExcept(t, "client", s.client.Stats(), ssp.DropEpoch)
}

// TestNotice: a server's notice reaches its client at once.
func TestNotice(t *testing.T) {
	s := newSim(t, 22, lan, lan, ssp.Config{})
	s.client.Current().Append([]byte("x"))
	s.runUntil(s.now.Add(5*time.Second), s.converged)
	s.server.SetNotice(s.now, "session taken over from 203.0.113.9")
	start := s.now
	if !s.runUntil(s.now.Add(time.Second), func() bool { return s.client.PeerNotice() != "" }) {
		t.Fatal("the notice never arrived")
	}
	if got := s.client.PeerNotice(); got != "session taken over from 203.0.113.9" {
		t.Errorf("notice %q", got)
	}
	if d := s.now.Sub(start); d > 100*time.Millisecond {
		t.Errorf("the notice took %v", d)
	}
}

// TestEpochWithoutSupport: a server that does not take epochs (stock-like)
// drops a new epoch's instructions, and a client drops instructions of
// another epoch.
func TestEpochWithoutSupport(t *testing.T) {
	s := newSim(t, 23, lan, lan, ssp.Config{})
	cfg := ssp.Config{Key: s.key, Remote: s.serverAddr, Epoch: 2}
	var err error
	if s.client, err = ssp.NewTransport(cfg, ssptest.NewLog(), ssptest.NewLog(), s.now); err != nil {
		t.Fatal(err)
	}
	s.client.Current().Append([]byte("x"))
	s.run(3 * time.Second)
	if st := s.server.Stats(); st.Dropped[ssp.DropEpoch] == 0 || s.server.Remote().End() != 0 {
		t.Errorf("server without epochs: %d epoch drops, input %q", st.Dropped[ssp.DropEpoch], s.server.Remote())
	}
}

func checkNoBadDropsExcept(t *testing.T, name string, st ssp.Stats, ok ssp.DropReason) {
	t.Helper()
	st.Dropped[ok] = 0
	checkNoBadDrops(t, name, st)
}

// TestExitWithShutdown: the exit a server sets before its shutdown
// travels with the shutdown: the client holds it by the time it has
// acknowledged the shutdown, and a server that set none sends none.
func TestExitWithShutdown(t *testing.T) {
	for _, exit := range []uint64{0, 0x103} {
		s := newSim(t, 24, lan, lan, ssp.Config{})
		s.client.Current().Append([]byte("x"))
		s.runUntil(s.now.Add(5*time.Second), s.converged)
		s.server.SetExit(exit)
		s.server.StartShutdown(s.now)
		if !s.runUntil(s.now.Add(5*time.Second), s.client.CounterpartyShutdownAckSent) {
			t.Fatalf("exit %#x: the client never acknowledged the shutdown", exit)
		}
		if got := s.client.PeerExit(); got != exit {
			t.Errorf("the client holds exit %#x, want %#x", got, exit)
		}
		if got := s.server.PeerExit(); got != 0 {
			t.Errorf("the server holds exit %#x from its client, want none", got)
		}
	}
}

// TestSessionUntilAcked: a server's session ID reaches its client, goes
// in every instruction until the client has acknowledged a state sent
// with it and in none after. A server that sets none sends none.
func TestSessionUntilAcked(t *testing.T) {
	s := newSim(t, 24, lan, lan, ssp.Config{})
	var with, without int // the server's instructions with and without it
	s.onSend = func(toSrv bool, _ time.Time, d []byte) {
		if toSrv {
			return
		}
		if _, in := decode(t, s.key, d); string(in.GoshSession) == "0123abcd" {
			with++
		} else if len(in.GoshSession) == 0 {
			without++
		} else {
			t.Errorf("the server sent session %q", in.GoshSession)
		}
	}
	s.client.Current().Append([]byte("x"))
	s.server.Current().Append([]byte("screen"))
	s.runUntil(s.now.Add(5*time.Second), s.converged)
	if with != 0 || s.client.PeerSession() != "" {
		t.Fatalf("a server without a session ID sent %d with one; the client holds %q", with, s.client.PeerSession())
	}

	s.server.SetSession("0123abcd")
	s.server.Current().Append([]byte(" more"))
	if !s.runUntil(s.now.Add(5*time.Second), s.converged) {
		t.Fatal("no convergence")
	}
	if got := s.client.PeerSession(); got != "0123abcd" {
		t.Fatalf("the client holds session %q, want 0123abcd", got)
	}
	if with == 0 {
		t.Fatal("no instruction carried the session")
	}
	s.run(time.Second) // the client's ack arrives
	with, without = 0, 0
	s.server.Current().Append([]byte(" and more"))
	s.runUntil(s.now.Add(5*time.Second), s.converged)
	s.run(10 * time.Second) // heartbeats
	if with != 0 || without == 0 {
		t.Errorf("after the client acknowledged it: %d instructions with the session, %d without", with, without)
	}
}

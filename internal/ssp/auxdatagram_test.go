package ssp_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// TestAuxDatagrams: a stream packet sealed with SealAux reaches the peer
// as Aux, under the next sequence number of the one counter (the nonces
// of aux and SSP datagrams never repeat), and roams the server like any
// authentic datagram; the synchronised states are untouched by it.
func TestAuxDatagrams(t *testing.T) {
	s := newSim(t, 11, lan, lan, ssp.Config{})
	s.client.Current().Append([]byte("hi"))
	s.run(2 * time.Second)

	sess, err := sspcrypto.NewSession(s.key)
	if err != nil {
		t.Fatal(err)
	}
	seqOf := func(d []byte) uint64 {
		_, seq, _, err := sess.Open(nil, d)
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}
	before := s.client.Stats().DatagramsSent
	d, err := s.client.SealAux(s.now, []byte("stream packet"))
	if err != nil {
		t.Fatal(err)
	}
	aux := append([]byte(nil), d...)
	s.client.Current().Append([]byte("more"))
	out, err := s.client.Tick(s.now.Add(time.Second))
	if err != nil || len(out) == 0 {
		t.Fatalf("Tick = %d datagrams, %v", len(out), err)
	}
	if a, b := seqOf(aux), seqOf(out[0]); b != a+1 || a != before {
		t.Errorf("aux datagram sealed with %d, the next instruction with %d; want %d and %d", a, b, before, before+1)
	}

	moved := netip.MustParseAddrPort("203.0.113.9:4000")
	if err := s.server.Receive(s.now, aux, moved); err != nil {
		t.Fatalf("Receive(aux) = %v", err)
	}
	if got := s.server.Aux(); !bytes.Equal(got, []byte("stream packet")) {
		t.Errorf("Aux() = %q, want the stream packet", got)
	}
	if addr, _ := s.server.RemoteAddr(); addr != moved {
		t.Errorf("the server targets %v after an aux datagram from %v", addr, moved)
	}
	if st := s.server.Stats(); st.AuxReceived != 1 || st.Instructions == 0 {
		t.Errorf("stats %+v", st)
	}
	if err := s.server.Receive(s.now, out[0], moved); err != nil || s.server.Aux() != nil {
		t.Errorf("an instruction after it: %v, Aux() = %q", err, s.server.Aux())
	}
	if got := s.server.AuxBudget(); got+sspcrypto.Overhead+ssp.TimestampSize+1+binary.MaxVarintLen64 != ssp.MaxDatagramIPv6 {
		t.Errorf("AuxBudget() = %d", got)
	}
}

// TestAuxOtherEpoch: a client in another epoch (one that resumed, or the
// one it replaced) cannot feed the server's stream.
func TestAuxOtherEpoch(t *testing.T) {
	s := newSim(t, 12, lan, lan, ssp.Config{})
	other, err := ssp.NewTransport(ssp.Config{Key: s.key, Remote: s.serverAddr, Epoch: 1}, ssptest.NewLog(), ssptest.NewLog(), s.now)
	if err != nil {
		t.Fatal(err)
	}
	d, err := other.SealAux(s.now, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	err = s.server.Receive(s.now, d, s.clientAddr)
	var de *ssp.DropError
	if !errors.As(err, &de) || de.Reason != ssp.DropEpoch || s.server.Aux() != nil {
		t.Errorf("Receive(aux of epoch 1 at a server in 0) = %v, Aux %q; want DropEpoch", err, s.server.Aux())
	}
}

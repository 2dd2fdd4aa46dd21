package ssp_test

import (
	"encoding/hex"
	"net/netip"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// FuzzReceive seals fuzzed plaintexts (timestamps, fragment header, body)
// with the session key and feeds them to a server Transport, so that
// everything behind authentication is exercised: reassembly, inflating,
// decoding, validation and applying. The transport must never panic, and
// must still converge with a real client afterwards.
func FuzzReceive(f *testing.F) {
	golden, _ := hex.DecodeString("03e8ffff00000000000000058000789ce360126096605160d76036e2e46217625562ce29e6b562000013a0023a")
	f.Add(golden, []byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0}, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0x80, 0})
	f.Add(forgedPlaintext(ssp.Instruction{ProtocolVersion: 2, OldNum: 0, NewNum: 1, Diff: []byte{0}}), []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s := newSim(t, 1, lan, lan, ssp.Config{})
		s.client.Current().Append([]byte("hello"))
		s.run(time.Second)
		fg := newForger(t, s.key, sspcrypto.ToServer, 1<<50)
		for _, pt := range [][]byte{a, b} {
			s.server.Receive(s.now, fg.plaintext(pt), netip.MustParseAddrPort("192.0.2.99:1"))
		}
		s.client.Current().Append([]byte(" world"))
		if !s.runUntil(s.now.Add(10*time.Second), func() bool {
			return s.server.Remote().Equal(s.client.Current())
		}) {
			t.Fatalf("no convergence after fuzzed input; server stats %+v", s.server.Stats())
		}
	})
}

// forgedPlaintext returns the plaintext of a datagram carrying in.
func forgedPlaintext(in ssp.Instruction) []byte {
	enc, _ := in.AppendBinary(nil)
	fr := ssp.Fragment{ID: 1 << 62, Final: true, Body: zlibBytes(enc)}
	payload, _ := fr.AppendBinary(nil)
	p := ssp.Packet{Timestamp: 1, TimestampReply: ssp.NoTimestamp, Payload: payload}
	pt, _ := p.AppendBinary(nil)
	return pt
}

var _ ssp.State[*ssptest.Log] = (*ssptest.Log)(nil)
var _ ssp.State[*ssptest.UserInput] = (*ssptest.UserInput)(nil)
var _ ssp.State[*ssptest.Host] = (*ssptest.Host)(nil)

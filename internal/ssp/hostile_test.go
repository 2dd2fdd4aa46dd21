package ssp_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// TestHostileInput feeds a live server every kind of broken or hostile
// datagram. Each is dropped with the right reason (or harmlessly
// ignored), the server's copy of the client state is unchanged, and the
// session goes on.
func TestHostileInput(t *testing.T) {
	s := newSim(t, 13, lan, lan, ssp.Config{})
	s.client.Current().Append([]byte("established"))
	s.server.Current().Append([]byte("prompt"))
	s.run(3 * time.Second)
	if !s.converged() {
		t.Fatal("no session")
	}
	f := newForger(t, s.key, sspcrypto.ToServer, 1<<40)
	older := newForger(t, s.key, sspcrypto.ToServer, 1<<39) // datagrams older than f's
	wrongDir := newForger(t, s.key, sspcrypto.ToClient, 1<<40)
	otherKey, _ := sspcrypto.NewKey(fixedReader(3))
	wrongKey := newForger(t, otherKey, sspcrypto.ToServer, 1<<40)
	base := s.server.RemoteNum()
	valid := func(in ssp.Instruction) ssp.Instruction {
		in.ProtocolVersion = ssp.ProtocolVersion
		return in
	}
	var real []byte
	s.onSend = func(toSrv bool, _ time.Time, d []byte) {
		if toSrv && real == nil {
			real = append([]byte(nil), d...)
		}
	}
	s.client.Current().Append([]byte("!"))
	for real == nil {
		s.run(10 * time.Millisecond)
	}
	flipped := append([]byte(nil), real...)
	flipped[len(flipped)/2] ^= 0x40

	const accepted = ssp.DropReason(-1)
	tests := []struct {
		name string
		ds   [][]byte
		want ssp.DropReason // of the last datagram; the others must be accepted
	}{
		{"oversize", [][]byte{make([]byte, ssp.MaxReceive+1)}, ssp.DropOversize},
		{"shorter than nonce and tag", [][]byte{real[:sspcrypto.Overhead-1]}, ssp.DropShort},
		{"wrong key", wrongKey.instruction(valid(ssp.Instruction{OldNum: base, NewNum: base + 1})), ssp.DropAuth},
		{"bit flipped", [][]byte{flipped}, ssp.DropAuth},
		{"truncated", [][]byte{real[:len(real)-1]}, ssp.DropAuth},
		{"garbage", [][]byte{[]byte("GET / HTTP/1.1\r\nHost: example\r\n\r\n")}, ssp.DropAuth},
		{"own direction", wrongDir.instruction(valid(ssp.Instruction{OldNum: base, NewNum: base + 1})), ssp.DropDirection},
		{"plaintext of 3 bytes", [][]byte{f.plaintext([]byte{1, 2, 3})}, ssp.DropShort},
		{"fragment of 9 bytes", [][]byte{f.plaintext([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9})}, ssp.DropShort},
		{"not zlib", f.compressed([]byte("definitely not zlib")), ssp.DropDecode},
		{"zlib, not protobuf", f.raw([]byte{0xff, 0xff, 0xff}), ssp.DropDecode},
		{"inflates beyond 4 MiB", f.compressed(zlibBytes(make([]byte, ssp.MaxInflated+1))), ssp.DropDecode},
		{"protocol version 3", f.instruction(ssp.Instruction{ProtocolVersion: 3, OldNum: base, NewNum: base + 1}), ssp.DropVersion},
		{"no protocol version", f.instruction(ssp.Instruction{OldNum: base, NewNum: base + 1}), ssp.DropVersion},
		{"throwaway that would drop every state", f.instruction(valid(ssp.Instruction{OldNum: base, NewNum: base + 1, ThrowawayNum: base + 100})), ssp.DropThrowaway},
		{"diff that does not apply", f.instruction(valid(ssp.Instruction{OldNum: base, NewNum: base + 1, Diff: []byte{0xff}})), ssp.DropDiff},
		{"fragment past the final one", [][]byte{
			f.fragment(ssp.Fragment{ID: 77, Num: 1, Final: true, Body: []byte("a")}),
			f.fragment(ssp.Fragment{ID: 77, Num: 2, Body: []byte("b")}),
		}, ssp.DropFragment},
		{"fragment set that never completes", [][]byte{f.fragment(ssp.Fragment{ID: 1 << 50, Num: 0, Body: []byte("x")})}, accepted},
		{"fragment set with a jump in ids", [][]byte{f.fragment(ssp.Fragment{ID: 1 << 60, Num: 0, Body: []byte("x")})}, accepted},
		{"straggler of an older instruction while collecting", [][]byte{
			f.fragment(ssp.Fragment{ID: 5000, Num: 0, Body: []byte("x")}),
			older.fragment(ssp.Fragment{ID: 4990, Num: 0, Final: true, Body: []byte("y")}),
		}, ssp.DropStale},
		{"replay of an old instruction while collecting", [][]byte{
			f.fragment(ssp.Fragment{ID: 6000, Num: 0, Body: []byte("x")}),
			real,
		}, ssp.DropStale},
		{"unknown base state", f.instruction(valid(ssp.Instruction{OldNum: 1 << 60, NewNum: 1<<60 + 1})), accepted},
		{"replayed", [][]byte{real}, accepted},
		{"duplicated", [][]byte{real, real}, accepted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := s.server.Remote().Clone()
			for i, d := range tc.ds {
				err := s.server.Receive(s.now, d, s.clientAddr)
				want := accepted
				if i == len(tc.ds)-1 {
					want = tc.want
				}
				var de *ssp.DropError
				if want == accepted {
					if err != nil {
						t.Fatalf("datagram %d: Receive = %v, want nil", i, err)
					}
					continue
				}
				if !errors.As(err, &de) || de.Reason != want {
					t.Fatalf("datagram %d: Receive = %v, want a %q drop", i, err, want)
				}
			}
			if got := s.server.Remote(); !got.Equal(before) && tc.name != "replayed" && tc.name != "duplicated" {
				t.Errorf("server's client state changed: %v, was %v", got, before)
			}
		})
	}
	st := s.server.Stats()
	if st.Dropped[ssp.DropVersion] != 2 || st.Dropped[ssp.DropAuth] != 4 {
		t.Errorf("drop counts %v", st.Dropped)
	}
	var vm *ssp.DropError
	err := s.server.Receive(s.now, f.instruction(ssp.Instruction{ProtocolVersion: 1})[0], s.clientAddr)
	if !errors.Is(err, ssp.ErrVersionMismatch) || !errors.As(err, &vm) {
		t.Errorf("version mismatch error = %v, want ErrVersionMismatch", err)
	}

	// The session is intact.
	s.client.Current().Append([]byte(" and still going"))
	s.server.Current().Append([]byte("$ "))
	if !s.runUntil(s.now.Add(5*time.Second), s.converged) {
		t.Fatal("the session did not survive")
	}
}

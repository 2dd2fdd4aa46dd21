package ssp

import (
	"bytes"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosh-term/gosh/internal/pb/transportpb"
	"google.golang.org/protobuf/proto"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// goldenInstruction is the instruction of docs/protocol.md section 13.
var goldenInstruction = Instruction{
	ProtocolVersion: 2, OldNum: 3, NewNum: 4, AckNum: 7, ThrowawayNum: 3,
	Diff:  []byte{0x0a, 0x07, 0x12, 0x05, 0x22, 0x03, 0x6c, 0x73, 0x0d}, // UserMessage{keystroke "ls\r"}
	Chaff: []byte{},
}

const goldenInstructionHex = "0802100318042007280332090a07120522036c730d3a00"

func TestInstructionGolden(t *testing.T) {
	tests := []struct {
		name string
		in   Instruction
		want string
	}{
		{"protocol.md section 13", goldenInstruction, goldenInstructionHex},
		// An empty ack: every field present, empty diff 32 00.
		{"empty ack", Instruction{ProtocolVersion: 2, OldNum: 0, NewNum: 1, AckNum: 1}, "08021000180120012800320" + "03a00"},
		// Shutdown: 2^64-1 is the 10-byte varint ff..ff 01.
		{"shutdown", Instruction{ProtocolVersion: 2, OldNum: 8, NewNum: math.MaxUint64, AckNum: 9, ThrowawayNum: 8, Chaff: []byte{0xAB}},
			"08021008" + "18ffffffffffffffffff01" + "2009" + "2808" + "3200" + "3a01ab"},
		// gosh_caps rides in field 8 (tag 40) after the seven Mosh fields.
		{"gosh caps", Instruction{ProtocolVersion: 2, NewNum: 1, GoshCaps: 5}, "08021000180120002800320" + "03a00" + "4005"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.AppendBinary(nil)
			if err != nil || hex.EncodeToString(got) != tc.want {
				t.Fatalf("AppendBinary = %x, %v; want %s", got, err, tc.want)
			}
			back, err := ParseInstruction(got)
			if err != nil {
				t.Fatalf("ParseInstruction(%x): %v", got, err)
			}
			if !instructionsEqual(&back, &tc.in) {
				t.Errorf("ParseInstruction(%x) = %+v, want %+v", got, back, tc.in)
			}
		})
	}
}

func instructionsEqual(a, b *Instruction) bool {
	return a.sameHeader(b) && bytes.Equal(a.Diff, b.Diff)
}

func TestParseInstructionProtobufSemantics(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want Instruction
	}{
		{"empty message", "", Instruction{}},
		{"fields out of order", "1805" + "0802", Instruction{ProtocolVersion: 2, NewNum: 5}},
		{"last value wins", "1801" + "1802" + "3201aa" + "3201bb", Instruction{NewNum: 2, Diff: []byte{0xbb}}},
		{"unknown varint skipped", "7005" + "0802", Instruction{ProtocolVersion: 2}},
		{"unknown bytes skipped", "7203abcdef" + "0802", Instruction{ProtocolVersion: 2}},
		{"gosh epoch fields", "4803" + "5007" + "5a02686b" + "0802", Instruction{ProtocolVersion: 2, GoshEpoch: 3, GoshResumeFrom: 7, GoshNotice: []byte("hk")}},
		{"gosh exit field", "608302" + "0802", Instruction{ProtocolVersion: 2, GoshExit: 0x103}},
		{"gosh session field", "6a083031323361626364" + "0802", Instruction{ProtocolVersion: 2, GoshSession: []byte("0123abcd")}},
		{"gosh session, last wins", "6a0161" + "6a0162", Instruction{GoshSession: []byte("b")}},
		{"unknown fixed32/64 skipped", "5d01020304" + "590102030405060708" + "0802", Instruction{ProtocolVersion: 2}},
		{"unknown group skipped", "5b" + "0801" + "5c" + "0802", Instruction{ProtocolVersion: 2}},
		{"known field, wrong wire type, skipped", "0d02000000" + "1003", Instruction{OldNum: 3}},
		{"uint32 version truncates", "08" + "8280808010", Instruction{ProtocolVersion: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustHex(t, tc.hex)
			got, err := ParseInstruction(b)
			if err != nil {
				t.Fatalf("ParseInstruction(%s): %v", tc.hex, err)
			}
			if !instructionsEqual(&got, &tc.want) {
				t.Errorf("ParseInstruction(%s) = %+v, want %+v", tc.hex, got, tc.want)
			}
			checkAgainstProto(t, b)
		})
	}
}

func TestParseInstructionErrors(t *testing.T) {
	for _, h := range []string{
		"08",                     // truncated varint
		"0880808080808080808080", // varint too long
		"3205aa",                 // bytes longer than the message
		"00",                     // field number 0
		"5c",                     // end group without start
		"5b0801",                 // group never ended
		"f8ffffff7f00",           // field number beyond 2^29-1
		"0f",                     // wire type 7
	} {
		if _, err := ParseInstruction(mustHex(t, h)); err == nil {
			t.Errorf("ParseInstruction(%s) succeeded, want an error", h)
		}
		checkAgainstProto(t, mustHex(t, h))
	}
}

// checkAgainstProto compares ParseInstruction with the generated code's
// proto.Unmarshal: both accept or both reject b, with the same fields.
func checkAgainstProto(t *testing.T, b []byte) {
	t.Helper()
	var pb transportpb.Instruction
	perr := proto.Unmarshal(b, &pb)
	got, err := ParseInstruction(b)
	if (err == nil) != (perr == nil) {
		t.Fatalf("ParseInstruction(%x) error = %v, proto.Unmarshal error = %v", b, err, perr)
	}
	if err != nil {
		return
	}
	want := Instruction{
		ProtocolVersion: pb.GetProtocolVersion(), OldNum: pb.GetOldNum(), NewNum: pb.GetNewNum(),
		AckNum: pb.GetAckNum(), ThrowawayNum: pb.GetThrowawayNum(), Diff: pb.GetDiff(), Chaff: pb.GetChaff(),
		GoshCaps: pb.GetGoshCaps(), GoshEpoch: pb.GetGoshEpoch(), GoshResumeFrom: pb.GetGoshResumeFrom(), GoshNotice: pb.GetGoshNotice(),
		GoshExit: pb.GetGoshExit(), GoshSession: pb.GetGoshSession(),
	}
	if !instructionsEqual(&got, &want) {
		t.Fatalf("ParseInstruction(%x) = %+v, proto.Unmarshal gives %+v", b, got, want)
	}
}

func randomInstruction(r *rand.Rand) Instruction {
	num := func() uint64 {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return math.MaxUint64
		case 2:
			return r.Uint64()
		}
		return uint64(r.IntN(1000))
	}
	bytesN := func(n int) []byte {
		b := make([]byte, r.IntN(n+1))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	in := Instruction{
		ProtocolVersion: uint32(num()), OldNum: num(), NewNum: num(), AckNum: num(), ThrowawayNum: num(),
		Diff: bytesN(300), Chaff: bytesN(MaxChaff),
	}
	if r.IntN(2) == 0 {
		in.GoshCaps = num()
	}
	if r.IntN(4) == 0 {
		in.GoshExit = num()
	}
	if r.IntN(4) == 0 {
		in.GoshSession = bytesN(16)
	}
	return in
}

// TestInstructionDifferential checks the hand codec against the generated
// code in both directions on random instructions.
func TestInstructionDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		in := randomInstruction(r)
		got, _ := in.AppendBinary(nil)

		pb := &transportpb.Instruction{
			ProtocolVersion: proto.Uint32(in.ProtocolVersion), OldNum: proto.Uint64(in.OldNum),
			NewNum: proto.Uint64(in.NewNum), AckNum: proto.Uint64(in.AckNum),
			ThrowawayNum: proto.Uint64(in.ThrowawayNum), Diff: in.Diff, Chaff: in.Chaff,
		}
		if in.GoshCaps != 0 {
			pb.GoshCaps = proto.Uint64(in.GoshCaps)
		}
		if in.GoshExit != 0 {
			pb.GoshExit = proto.Uint64(in.GoshExit)
		}
		if len(in.GoshSession) > 0 {
			pb.GoshSession = in.GoshSession
		}
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(pb)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("AppendBinary(%+v) = %x, proto.Marshal = %x", in, got, want)
		}
		checkAgainstProto(t, got)
	}
}

func TestInstructionAppendAllocs(t *testing.T) {
	in := goldenInstruction
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf, _ = in.AppendBinary(buf[:0]) }); n != 0 {
		t.Errorf("AppendBinary allocates %v times, want 0", n)
	}
	enc, _ := in.AppendBinary(nil)
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseInstruction(enc) }); n != 0 {
		t.Errorf("ParseInstruction allocates %v times, want 0", n)
	}
}

func FuzzInstruction(f *testing.F) {
	f.Add(mustHex(f, goldenInstructionHex))
	f.Add(mustHex(f, "08021000180120012800320"+"03a00"+"4005"))
	f.Add(mustHex(f, "5b08015c0802"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgainstProto(t, b)
		in, err := ParseInstruction(b)
		if err != nil {
			return
		}
		// Whatever parses re-encodes to something that parses the same.
		enc, _ := in.AppendBinary(nil)
		again, err := ParseInstruction(enc)
		if err != nil || !instructionsEqual(&again, &in) {
			t.Fatalf("round trip of %+v: %+v, %v", in, again, err)
		}
	})
}

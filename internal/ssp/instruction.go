package ssp

import (
	"bytes"
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of TransportBuffers.Instruction (docs/protocol.md section 6.1;
// internal/pb/transportinstruction.proto). Field 8 is gosh's.
const (
	fieldProtocolVersion protowire.Number = 1
	fieldOldNum          protowire.Number = 2
	fieldNewNum          protowire.Number = 3
	fieldAckNum          protowire.Number = 4
	fieldThrowawayNum    protowire.Number = 5
	fieldDiff            protowire.Number = 6
	fieldChaff           protowire.Number = 7
	fieldGoshCaps        protowire.Number = 8
	fieldGoshEpoch       protowire.Number = 9
	fieldGoshResumeFrom  protowire.Number = 10
	fieldGoshNotice      protowire.Number = 11
	fieldGoshExit        protowire.Number = 12
	fieldGoshSession     protowire.Number = 13
)

var errInstruction = errors.New("ssp: malformed instruction")

// Instruction is one SSP instruction, the protobuf message
// TransportBuffers.Instruction: "apply Diff to your state OldNum to get
// state NewNum; I hold your states up to AckNum; you may forget my states
// below ThrowawayNum".
//
// Its codec is written by hand with protowire: [Instruction.AppendBinary]
// writes fields 1 to 7 in field order, always, as Mosh does (an empty Diff
// is 32 00), and gosh's fields 8 to 13 only when they are non-zero.
type Instruction struct {
	ProtocolVersion uint32 // always ProtocolVersion when sent
	OldNum          uint64 // the receiver state the diff starts from
	NewNum          uint64 // the state the diff produces
	AckNum          uint64 // newest peer state the sender holds
	ThrowawayNum    uint64 // the receiver may drop states numbered below this
	Diff            []byte // encoded state diff; empty for an ack or heartbeat
	Chaff           []byte // 0 to MaxChaff random bytes, ignored
	GoshCaps        uint64 // gosh's capability bits (field 8); 0 = absent
	// GoshEpoch is the sender's epoch (field 9; 0 = absent): a client
	// that resumes a session, or takes it over, starts a new epoch, in
	// which both sides' state numbers start again from initial states
	// (docs/protocol.md section 12.4).
	GoshEpoch uint64
	// GoshResumeFrom (field 10; 0 = absent) is, from a client in an
	// epoch above 0, the first scrollback history line it lacks.
	GoshResumeFrom uint64
	// GoshNotice (field 11; empty = absent) is, from a server, why it no
	// longer serves this client ("session taken over from ADDR").
	GoshNotice []byte
	// GoshExit (field 12; 0 = absent) is, from a server, how its program
	// ended (docs/protocol.md section 12.5); the session layer gives the
	// value its meaning.
	GoshExit uint64
	// GoshSession (field 13; empty = absent) is, from a server, the
	// session's ID on its host (docs/protocol.md section 12.4); the
	// session layer checks it.
	GoshSession []byte
}

// AppendBinary appends the protobuf encoding of in to b. It never fails; the
// error is there to satisfy [encoding.BinaryAppender].
func (in *Instruction) AppendBinary(b []byte) ([]byte, error) {
	b = appendVarintField(b, fieldProtocolVersion, uint64(in.ProtocolVersion))
	b = appendVarintField(b, fieldOldNum, in.OldNum)
	b = appendVarintField(b, fieldNewNum, in.NewNum)
	b = appendVarintField(b, fieldAckNum, in.AckNum)
	b = appendVarintField(b, fieldThrowawayNum, in.ThrowawayNum)
	b = protowire.AppendTag(b, fieldDiff, protowire.BytesType)
	b = protowire.AppendBytes(b, in.Diff)
	b = protowire.AppendTag(b, fieldChaff, protowire.BytesType)
	b = protowire.AppendBytes(b, in.Chaff)
	if in.GoshCaps != 0 {
		b = appendVarintField(b, fieldGoshCaps, in.GoshCaps)
	}
	if in.GoshEpoch != 0 {
		b = appendVarintField(b, fieldGoshEpoch, in.GoshEpoch)
	}
	if in.GoshResumeFrom != 0 {
		b = appendVarintField(b, fieldGoshResumeFrom, in.GoshResumeFrom)
	}
	if len(in.GoshNotice) > 0 {
		b = protowire.AppendTag(b, fieldGoshNotice, protowire.BytesType)
		b = protowire.AppendBytes(b, in.GoshNotice)
	}
	if in.GoshExit != 0 {
		b = appendVarintField(b, fieldGoshExit, in.GoshExit)
	}
	if len(in.GoshSession) > 0 {
		b = protowire.AppendTag(b, fieldGoshSession, protowire.BytesType)
		b = protowire.AppendBytes(b, in.GoshSession)
	}
	return b, nil
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// ParseInstruction decodes a TransportBuffers.Instruction with protobuf
// semantics: fields may come in any order, the last occurrence wins,
// unknown fields and known fields of an unexpected wire type are skipped,
// absent fields are zero. Diff and Chaff alias b.
func ParseInstruction(b []byte) (Instruction, error) {
	var in Instruction
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num > protowire.MaxValidNumber {
			return Instruction{}, errInstruction
		}
		b = b[n:]
		if n = in.consumeField(num, typ, b); n < 0 {
			return Instruction{}, errInstruction
		}
		b = b[n:]
	}
	return in, nil
}

// consumeField decodes the value of field num of wire type typ at the start
// of b into in, or skips it, and returns its length (negative on error).
func (in *Instruction) consumeField(num protowire.Number, typ protowire.Type, b []byte) int {
	switch {
	case typ == protowire.VarintType && (num <= fieldThrowawayNum || (num >= fieldGoshCaps && num <= fieldGoshResumeFrom) || num == fieldGoshExit):
		v, n := protowire.ConsumeVarint(b)
		if n >= 0 {
			in.setVarint(num, v)
		}
		return n
	case typ == protowire.BytesType && (num == fieldGoshNotice || num == fieldGoshSession):
		v, n := protowire.ConsumeBytes(b)
		if n >= 0 && num == fieldGoshNotice {
			in.GoshNotice = v
		} else if n >= 0 {
			in.GoshSession = v
		}
		return n
	case typ == protowire.BytesType && (num == fieldDiff || num == fieldChaff):
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return n
		}
		if v == nil {
			v = b[:0] // present but empty: keep it non-nil
		}
		if num == fieldDiff {
			in.Diff = v
		} else {
			in.Chaff = v
		}
		return n
	default:
		return protowire.ConsumeFieldValue(num, typ, b)
	}
}

// setVarint stores v in the varint field num (1 to 5, 8 to 10 or 12;
// ConsumeTag rejects 0). ProtocolVersion is a uint32 and is truncated, as protobuf
// does.
func (in *Instruction) setVarint(num protowire.Number, v uint64) {
	switch num {
	case fieldProtocolVersion:
		in.ProtocolVersion = uint32(v)
	case fieldOldNum:
		in.OldNum = v
	case fieldNewNum:
		in.NewNum = v
	case fieldAckNum:
		in.AckNum = v
	case fieldThrowawayNum:
		in.ThrowawayNum = v
	case fieldGoshCaps:
		in.GoshCaps = v
	case fieldGoshEpoch:
		in.GoshEpoch = v
	case fieldGoshResumeFrom:
		in.GoshResumeFrom = v
	case fieldGoshExit:
		in.GoshExit = v
	}
}

// sameHeader reports whether in and other agree on everything that decides
// the fragment id: every field except Diff (docs/protocol.md section 4).
func (in *Instruction) sameHeader(other *Instruction) bool {
	return in.ProtocolVersion == other.ProtocolVersion &&
		in.OldNum == other.OldNum && in.NewNum == other.NewNum &&
		in.AckNum == other.AckNum && in.ThrowawayNum == other.ThrowawayNum &&
		in.GoshCaps == other.GoshCaps && bytes.Equal(in.Chaff, other.Chaff) &&
		in.GoshEpoch == other.GoshEpoch && in.GoshResumeFrom == other.GoshResumeFrom &&
		bytes.Equal(in.GoshNotice, other.GoshNotice) && in.GoshExit == other.GoshExit &&
		bytes.Equal(in.GoshSession, other.GoshSession)
}

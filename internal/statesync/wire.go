package statesync

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of Mosh's ClientBuffers.UserMessage and
// HostBuffers.HostMessage (spec sections 6.2 and 6.3). Both messages are
// "repeated Instruction instruction = 1", and every Instruction carries one
// extension whose inner field numbers are deliberately not 1-based.
//
//	UserMessage                         HostMessage
//	 1 instruction {                     1 instruction {
//	   2 keystroke { 4 keys: bytes }       2 hostbytes { 4 hoststring: bytes }
//	   3 resize { 5 width, 6 height }      3 resize { 5 width, 6 height }
//	 }                                     7 echoack { 8 echo_ack_num: uint64 }
//	                                     }
//
// gosh adds one extension to both messages, sent only to a gosh peer that
// negotiated it (spec section 12.2); stock Mosh ignores it as unknown:
//
//	1 instruction {
//	  10 channel {
//	    1 index: uint64    absolute position of the message in its log
//	    2 id: varint       channel ID (uint32)
//	    3 kind: varint     ChannelKind
//	    4 data: bytes      omitted when empty
//	    5 credit: varint   omitted when 0 (uint32)
//	  }
//	  11 scroll {           HostMessage only (gosh)
//	    1 index: uint64    absolute position of the line in the state's log
//	    2 line: uint64     the line's number in the server's history
//	    3 text: bytes      SGR and characters; omitted when empty
//	    4 width: varint    the screen's columns then
//	    5 wrapped: varint  1 if the text continues on the next line
//	  }
//	  12 behind {           HostMessage only (gosh), when it changed
//	    1 behind: varint   1 while the server's history holds lines not yet in the log
//	  }
//	}
const (
	fieldInstruction protowire.Number = 1

	extKeystroke protowire.Number = 2  // UserMessage
	extHostBytes protowire.Number = 2  // HostMessage
	extResize    protowire.Number = 3  // both
	extEchoAck   protowire.Number = 7  // HostMessage
	extChannel   protowire.Number = 10 // both (gosh)
	extScroll    protowire.Number = 11 // HostMessage (gosh)
	extBehind    protowire.Number = 12 // HostMessage (gosh)

	fieldKeys       protowire.Number = 4 // Keystroke.keys
	fieldHostString protowire.Number = 4 // HostBytes.hoststring
	fieldWidth      protowire.Number = 5 // ResizeMessage.width (columns)
	fieldHeight     protowire.Number = 6 // ResizeMessage.height (rows)
	fieldEchoAckNum protowire.Number = 8 // EchoAck.echo_ack_num

	fieldChanIndex  protowire.Number = 1 // channel.index
	fieldChanID     protowire.Number = 2 // channel.id
	fieldChanKind   protowire.Number = 3 // channel.kind
	fieldChanData   protowire.Number = 4 // channel.data
	fieldChanCredit protowire.Number = 5 // channel.credit

	fieldScrollIndex   protowire.Number = 1 // scroll.index
	fieldScrollLine    protowire.Number = 2 // scroll.line
	fieldScrollText    protowire.Number = 3 // scroll.text
	fieldScrollWidth   protowire.Number = 4 // scroll.width
	fieldScrollWrapped protowire.Number = 5 // scroll.wrapped
	fieldBehind        protowire.Number = 1 // behind.behind
)

// ErrMalformed is returned by Apply for a diff that is not a well-formed
// UserMessage or HostMessage.
var ErrMalformed = errors.New("statesync: malformed message")

// appendInstruction appends one Instruction (field 1) holding extension ext
// with the already encoded inner message body.
func appendInstruction(b []byte, ext protowire.Number, body []byte) []byte {
	inner := protowire.SizeTag(ext) + protowire.SizeBytes(len(body))
	b = protowire.AppendTag(b, fieldInstruction, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(inner))
	b = protowire.AppendTag(b, ext, protowire.BytesType)
	return protowire.AppendBytes(b, body)
}

// appendBytesField appends "field: bytes".
func appendBytesField(b []byte, n protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// appendResize appends a ResizeMessage instruction.
func appendResize(b []byte, cols, rows int) []byte {
	var body [2 * (1 + 10)]byte // two tags and two varints
	m := protowire.AppendTag(body[:0], fieldWidth, protowire.VarintType)
	m = protowire.AppendVarint(m, uint64(int64(int32(cols))))
	m = protowire.AppendTag(m, fieldHeight, protowire.VarintType)
	m = protowire.AppendVarint(m, uint64(int64(int32(rows))))
	return appendInstruction(b, extResize, m)
}

// field is one decoded field of a message.
type field struct {
	num    protowire.Number
	typ    protowire.Type
	varint uint64
	bytes  []byte
}

// forEachField calls fn for every field of msg, stopping at the first error.
func forEachField(msg []byte, fn func(f field) error) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 || !num.IsValid() {
			return ErrMalformed
		}
		msg = msg[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.varint, n = protowire.ConsumeVarint(msg)
		case protowire.BytesType:
			f.bytes, n = protowire.ConsumeBytes(msg)
		default:
			n = protowire.ConsumeFieldValue(num, typ, msg)
		}
		if n < 0 {
			return ErrMalformed
		}
		msg = msg[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// instruction is a decoded Instruction: the extensions present (the last
// occurrence of each wins, as in protobuf).
type instruction struct {
	has  [extBehind + 1]bool
	body [extBehind + 1][]byte
}

// recorded reports whether parseInstructions records (and so validates)
// extension n: the numbers below 8, as always, and gosh's. Others are
// ignored unparsed.
func recorded(n protowire.Number) bool {
	return n < 8 || n == extChannel || n == extScroll || n == extBehind
}

// parseInstructions decodes the instructions of a User/HostMessage.
func parseInstructions(msg []byte, fn func(in *instruction) error) error {
	return forEachField(msg, func(f field) error {
		if f.num != fieldInstruction {
			return nil
		}
		if f.typ != protowire.BytesType {
			return ErrMalformed
		}
		var in instruction
		err := forEachField(f.bytes, func(e field) error {
			if recorded(e.num) && e.typ == protowire.BytesType {
				in.has[e.num], in.body[e.num] = true, e.bytes
				// Every known extension must parse, as for protobuf's
				// own decoder (and Mosh's).
				return forEachField(e.bytes, func(field) error { return nil })
			}
			return nil
		})
		if err != nil {
			return err
		}
		return fn(&in)
	})
}

// bytesOf returns the bytes field n of msg (the last occurrence).
func bytesOf(msg []byte, n protowire.Number) ([]byte, error) {
	var v []byte
	err := forEachField(msg, func(f field) error {
		if f.num == n && f.typ == protowire.BytesType {
			v = f.bytes
		}
		return nil
	})
	return v, err
}

// varintOf returns the varint field n of msg (the last occurrence, 0 if
// absent).
func varintOf(msg []byte, n protowire.Number) (uint64, error) {
	var v uint64
	err := forEachField(msg, func(f field) error {
		if f.num == n && f.typ == protowire.VarintType {
			v = f.varint
		}
		return nil
	})
	return v, err
}

// parseResize decodes a ResizeMessage.
func parseResize(msg []byte) (cols, rows int, err error) {
	w, err := varintOf(msg, fieldWidth)
	if err != nil {
		return 0, 0, err
	}
	h, err := varintOf(msg, fieldHeight)
	return int(int32(w)), int(int32(h)), err
}

package ssp

import (
	"encoding/binary"
	"errors"
)

var errShortPacket = errors.New("ssp: plaintext shorter than its timestamps")

// Packet is the plaintext of one datagram (docs/protocol.md section 3.1): two
// 16-bit millisecond timestamps and one fragment. The sequence number and
// direction travel in the nonce, which [sspcrypto.Session] handles.
type Packet struct {
	// Timestamp is the sender's clock in milliseconds mod 65536, or
	// NoTimestamp.
	Timestamp uint16
	// TimestampReply echoes the peer's last Timestamp, advanced by how long
	// it was held, or is NoTimestamp.
	TimestampReply uint16
	// Payload is one encoded [Fragment].
	Payload []byte
}

// AppendBinary appends the plaintext encoding of p to b. It never fails.
func (p *Packet) AppendBinary(b []byte) ([]byte, error) {
	b = binary.BigEndian.AppendUint16(b, p.Timestamp)
	b = binary.BigEndian.AppendUint16(b, p.TimestampReply)
	return append(b, p.Payload...), nil
}

// ParsePacket decodes a datagram's plaintext. Payload aliases b.
func ParsePacket(b []byte) (Packet, error) {
	if len(b) < TimestampSize {
		return Packet{}, errShortPacket
	}
	return Packet{
		Timestamp:      binary.BigEndian.Uint16(b),
		TimestampReply: binary.BigEndian.Uint16(b[2:]),
		Payload:        b[TimestampSize:],
	}, nil
}

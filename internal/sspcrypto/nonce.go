package sspcrypto

import (
	"encoding/binary"
	"strconv"
)

// Direction is the direction bit of a nonce: which way a datagram travels.
// Both directions share one key, so the bit keeps the two sequence
// counters' nonces apart, and lets a receiver reject (after opening) a
// datagram that carries its own sending direction, such as one of its own
// packets reflected back at it.
type Direction uint8

const (
	// ToServer marks datagrams sent by the client (bit clear).
	ToServer Direction = 0
	// ToClient marks datagrams sent by the server (bit set).
	ToClient Direction = 1
)

// String returns "to-server", "to-client", or "Direction(n)" for a value
// that is neither.
func (d Direction) String() string {
	switch d {
	case ToServer:
		return "to-server"
	case ToClient:
		return "to-client"
	}
	return "Direction(" + strconv.Itoa(int(d)) + ")"
}

// Nonce is the 12-byte OCB nonce of one datagram, laid out as Mosh builds
// it: 4 zero bytes, then the big-endian 64-bit value dir<<63 | seq.
//
//	byte  0  1  2  3  4  5  6  7  8  9 10 11
//	     +--+--+--+--+--+--+--+--+--+--+--+--+
//	     |00 00 00 00|D| seq: 63 bits, BE    |
//	     +--+--+--+--+--+--+--+--+--+--+--+--+
//	                 |<- Tail: on the wire ->|
//
// D is the [Direction] bit, the top bit of byte 4.
type Nonce [NonceSize]byte

// NewNonce returns the nonce for the datagram with sequence number seq
// sent in direction dir. It panics if seq > [MaxSeq] or dir is not
// [ToServer] or [ToClient]: both are programming errors, and [Session.Seal]
// reports an exhausted sequence as an error before getting here.
func NewNonce(dir Direction, seq uint64) Nonce {
	if seq > MaxSeq {
		panic("crypto: sequence number exceeds MaxSeq")
	}
	if dir > ToClient {
		panic("crypto: invalid direction " + dir.String())
	}
	var n Nonce
	binary.BigEndian.PutUint64(n[NonceSize-NonceTailSize:], uint64(dir)<<63|seq)
	return n
}

// NonceFromTail returns the nonce whose last 8 bytes, the part carried at
// the start of a datagram, are tail. Every tail is valid.
func NonceFromTail(tail [NonceTailSize]byte) Nonce {
	var n Nonce
	copy(n[NonceSize-NonceTailSize:], tail[:])
	return n
}

// Dir returns the nonce's direction bit.
func (n Nonce) Dir() Direction {
	return Direction(n[NonceSize-NonceTailSize] >> 7)
}

// Seq returns the nonce's 63-bit sequence number.
func (n Nonce) Seq() uint64 {
	return binary.BigEndian.Uint64(n[NonceSize-NonceTailSize:]) & MaxSeq
}

// Tail returns the last [NonceTailSize] bytes of the nonce, which start
// every datagram.
func (n Nonce) Tail() [NonceTailSize]byte {
	return [NonceTailSize]byte(n[NonceSize-NonceTailSize:])
}

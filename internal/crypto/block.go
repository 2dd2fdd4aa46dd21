package crypto

import (
	"encoding/binary"
	"unsafe"
)

// block128 is one 128-bit OCB block held as two big-endian halves, so that
// xors are two word operations and doubling is a pair of shifts.
type block128 struct {
	hi, lo uint64
}

// load reads the 16 bytes at the start of b.
func load(b []byte) block128 {
	_ = b[15] // one bounds check
	return block128{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
}

// store writes x to the 16 bytes at the start of b.
func (x block128) store(b []byte) {
	_ = b[15]
	binary.BigEndian.PutUint64(b, x.hi)
	binary.BigEndian.PutUint64(b[8:], x.lo)
}

// xor returns x ⊕ y.
func (x block128) xor(y block128) block128 {
	return block128{x.hi ^ y.hi, x.lo ^ y.lo}
}

// xorInto sets the 16 bytes at the start of b to b ⊕ x.
func (x block128) xorInto(b []byte) {
	load(b).xor(x).store(b)
}

// double returns 2·x in GF(2^128) with the polynomial x^128 + x^7 + x^2 +
// x + 1 (RFC 7253 section 2), in constant time.
func (x block128) double() block128 {
	carry := x.hi >> 63
	return block128{
		hi: x.hi<<1 | x.lo>>63,
		lo: x.lo<<1 ^ (-carry & 0x87),
	}
}

// shiftLeft returns the 128 bits of the 192-bit string (x.hi, x.lo, next)
// starting at bit n, for 0 <= n < 64. (A Go shift by 64 yields zero, so
// n == 0 needs no special case.)
func (x block128) shiftLeft(n uint, next uint64) block128 {
	return block128{
		hi: x.hi<<n | x.lo>>(64-n),
		lo: x.lo<<n | next>>(64-n),
	}
}

// padBlock returns the partial block b (len(b) < 16) followed by a single 1
// bit and zeros: the "P_* || 1 || 0^*" of RFC 7253.
func padBlock(b []byte) block128 {
	var buf [blockSize]byte
	copy(buf[:], b)
	buf[len(b)] = 0x80
	return load(buf[:])
}

// sliceForAppend extends in by n bytes, reusing its capacity when it can.
// It returns the whole slice and the n-byte tail that was added.
func sliceForAppend(in []byte, n int) (head, tail []byte) {
	if total := len(in) + n; cap(in) >= total {
		head = in[:total]
	} else {
		head = make([]byte, total)
		copy(head, in)
	}
	tail = head[len(in):]
	return head, tail
}

// inexactOverlap reports whether x and y share memory at any position
// other than the same start: the one kind of aliasing an AEAD cannot
// tolerate, since it would read input it has already overwritten.
func inexactOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	px := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	py := uintptr(unsafe.Pointer(unsafe.SliceData(y)))
	if px == py {
		return false
	}
	return px <= py+uintptr(len(y)-1) && py <= px+uintptr(len(x)-1)
}

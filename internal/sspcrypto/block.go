package sspcrypto

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// block128 is one 128-bit OCB block held as two 64-bit words in memory
// order (bytes 0–7 and 8–15, loaded little-endian), so that loads, stores
// and xors are plain word operations. The arithmetic that needs the
// block's big-endian bit order, doubling and shifting, converts.
type block128 struct {
	a, b uint64
}

// load reads the 16 bytes at the start of b.
func load(b []byte) block128 {
	_ = b[15] // one bounds check
	return block128{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
}

// store writes x to the 16 bytes at the start of b.
func (x block128) store(b []byte) {
	_ = b[15]
	binary.LittleEndian.PutUint64(b, x.a)
	binary.LittleEndian.PutUint64(b[8:], x.b)
}

// fromBE returns the block whose big-endian halves are hi and lo.
func fromBE(hi, lo uint64) block128 {
	return block128{bits.ReverseBytes64(hi), bits.ReverseBytes64(lo)}
}

// be returns x's big-endian halves: the first 8 bytes as a number, then
// the last 8.
func (x block128) be() (hi, lo uint64) {
	return bits.ReverseBytes64(x.a), bits.ReverseBytes64(x.b)
}

// xor returns x ⊕ y.
func (x block128) xor(y block128) block128 {
	return block128{x.a ^ y.a, x.b ^ y.b}
}

// xorInto sets the 16 bytes at the start of b to b ⊕ x.
func (x block128) xorInto(b []byte) {
	load(b).xor(x).store(b)
}

// double returns 2·x in GF(2^128) with the polynomial x^128 + x^7 + x^2 +
// x + 1 (RFC 7253 section 2), in constant time.
func (x block128) double() block128 {
	hi, lo := x.be()
	return fromBE(hi<<1|lo>>63, lo<<1^(-(hi>>63)&0x87))
}

// stretchShift returns the 128 bits starting at bit n (0 <= n < 64) of
// the 192-bit string x || next, where next is a big-endian 64-bit word.
// (A Go shift by 64 yields zero, so n == 0 needs no special case.)
func (x block128) stretchShift(n uint, next uint64) block128 {
	hi, lo := x.be()
	return fromBE(hi<<n|lo>>(64-n), lo<<n|next>>(64-n))
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

package ssp

import (
	"crypto/rand"
	"encoding/binary"
	"io"
)

// randSource draws chaff and policy decisions from an io.Reader, reading
// it in blocks so that a sender does not make a system call per
// instruction.
//
// A randSource is not safe for concurrent use.
type randSource struct {
	r   io.Reader
	buf [64]byte
	pos int // buf[pos:] is unused
}

func newRandSource(r io.Reader) *randSource {
	if r == nil {
		r = rand.Reader
	}
	return &randSource{r: r, pos: len(randSource{}.buf)}
}

// fill fills p with random bytes. If the reader fails, p is zeroed: chaff
// needs no secrecy, only variety.
func (rs *randSource) fill(p []byte) {
	for len(p) > 0 {
		if rs.pos == len(rs.buf) {
			if _, err := io.ReadFull(rs.r, rs.buf[:]); err != nil {
				clear(rs.buf[:])
			}
			rs.pos = 0
		}
		n := copy(p, rs.buf[rs.pos:])
		rs.pos += n
		p = p[n:]
	}
}

// appendChaff appends 0 to MaxChaff random bytes to b: the length is a
// random byte mod MaxChaff+1, as Mosh draws it.
func (rs *randSource) appendChaff(b []byte) []byte {
	var n [1]byte
	rs.fill(n[:])
	size := int(n[0]) % (MaxChaff + 1)
	b = append(b, make([]byte, size)...)
	rs.fill(b[len(b)-size:])
	return b
}

// float64 returns a uniform number in [0, 1).
func (rs *randSource) float64() float64 {
	var b [8]byte
	rs.fill(b[:])
	return float64(binary.BigEndian.Uint64(b[:])>>11) / (1 << 53)
}

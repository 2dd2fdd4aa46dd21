package sspcrypto

import (
	"errors"
	"sync/atomic"
)

// ErrSeqExhausted is returned by [Session.Seal] instead of sealing under a
// nonce that cannot be built (a sequence number above [MaxSeq]) or beyond
// the session's volume limit ([BlockLimit]). The session must end: the
// key cannot safely seal anything more.
var ErrSeqExhausted = errors.New("crypto: sequence numbers or key volume exhausted")

var errZeroKey = errors.New("crypto: zero session key")

// Session seals and opens Mosh datagrams under one session key. A datagram
// is the 8-byte nonce tail followed by the OCB ciphertext and tag of its
// plaintext; see the package documentation for the layout.
//
// The caller chooses the sequence numbers and must never seal two
// datagrams with the same direction and sequence number: Mosh keeps one
// counter per process, starting at 0 and incremented for every datagram.
//
// A Session is safe for concurrent use.
type Session struct {
	aead   *ocb          // immutable after NewSession
	blocks atomic.Uint64 // plaintext blocks sealed so far, < BlockLimit
}

// NewSession returns a session using k for both directions. It fails for
// the zero key, which is what an unset [Key] holds.
func NewSession(k Key) (*Session, error) {
	if k.IsZero() {
		return nil, errZeroKey
	}
	o, err := newAESOCB(k.bytes()[:])
	if err != nil {
		return nil, err
	}
	return &Session{aead: o}, nil
}

// Seal appends to dst the datagram carrying plaintext with sequence number
// seq in direction dir: the [Nonce] tail, then the ciphertext and tag, so
// [Overhead] bytes more than the plaintext. It does not allocate when dst
// has room.
//
// If seq > [MaxSeq], or if sealing plaintext would bring the blocks sealed
// by s to [BlockLimit] (as mosh, which stops at 2^47 blocks because both
// directions share the key and RFC 7253 allows 2^48 per key), Seal appends
// nothing and returns dst and [ErrSeqExhausted].
//
// To seal in place, put the plaintext at buf[NonceTailSize:] and pass
// buf[:0] as dst; otherwise the output must not overlap plaintext. Seal
// panics if dir is not [ToServer] or [ToClient].
func (s *Session) Seal(dst []byte, dir Direction, seq uint64, plaintext []byte) ([]byte, error) {
	if seq > MaxSeq {
		return dst, ErrSeqExhausted
	}
	nonce := NewNonce(dir, seq)
	if !s.reserve(blocksIn(len(plaintext))) {
		return dst, ErrSeqExhausted
	}
	ret, out := sliceForAppend(dst, NonceTailSize+len(plaintext)+TagSize)
	if inexactOverlap(out[NonceTailSize:], plaintext) {
		panic("crypto: invalid buffer overlap")
	}
	s.aead.seal(out[NonceTailSize:], nonce[:], plaintext, nil)
	// The tail goes in last: a short plaintext may sit where it goes.
	copy(out, nonce[NonceSize-NonceTailSize:])
	return ret, nil
}

// Open authenticates datagram and appends its plaintext to dst, returning
// the direction and sequence number from its nonce and the updated slice.
// Every failure, including a datagram shorter than [Overhead], returns
// [ErrOpen]; Open never panics because of the datagram's contents. It does
// not check the direction: a receiver must itself drop datagrams that
// carry its own sending direction.
//
// Open uses [TagSize] bytes of dst's capacity beyond the plaintext as
// scratch space (see [NewOCB]); it does not allocate when dst has that
// room. To open in place, pass datagram[NonceTailSize:NonceTailSize] as
// dst; otherwise dst's capacity must not overlap datagram.
func (s *Session) Open(dst, datagram []byte) (dir Direction, seq uint64, plaintext []byte, err error) {
	if len(datagram) < Overhead {
		return 0, 0, nil, ErrOpen
	}
	nonce := NonceFromTail([NonceTailSize]byte(datagram))
	plaintext, err = s.aead.Open(dst, nonce[:], datagram[NonceTailSize:], nil)
	if err != nil {
		return 0, 0, nil, ErrOpen
	}
	return nonce.Dir(), nonce.Seq(), plaintext, nil
}

// SealedBlocks returns how many plaintext blocks (16 bytes, a final
// partial block counting as one) s has sealed.
func (s *Session) SealedBlocks() uint64 {
	return s.blocks.Load()
}

// reserve adds n to the sealed-block count if the total stays below
// BlockLimit, and reports whether it did.
func (s *Session) reserve(n uint64) bool {
	for {
		old := s.blocks.Load()
		if n >= BlockLimit-old {
			return false
		}
		if s.blocks.CompareAndSwap(old, old+n) {
			return true
		}
	}
}

// blocksIn returns the number of 16-byte blocks, the last possibly
// partial, in n bytes: the count mosh adds to its limit for each message.
func blocksIn(n int) uint64 {
	return (uint64(n) + blockSize - 1) / blockSize
}

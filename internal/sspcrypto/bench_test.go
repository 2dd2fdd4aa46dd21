package sspcrypto

import (
	"crypto/aes"
	"crypto/cipher"
	"strconv"
	"testing"
)

// benchSizes are the plaintext sizes of docs/style.md rule 28: a keystroke-sized
// message, and the two largest Mosh datagrams (1280-byte path MTU and a
// 1400-byte payload).
var benchSizes = []int{64, 1280, 1400}

// benchKey is a fixed key, so that runs are comparable.
var benchKey = []byte("gosh bench key!!")

func newBenchOCB(b *testing.B) cipher.AEAD {
	aead, err := New(benchKey)
	if err != nil {
		b.Fatal(err)
	}
	return aead
}

// newBenchGCM is Go's own AES-128-GCM, for comparison in the same run.
func newBenchGCM(b *testing.B) cipher.AEAD {
	block, err := aes.NewCipher(benchKey)
	if err != nil {
		b.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		b.Fatal(err)
	}
	return aead
}

func BenchmarkSeal(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(strconv.Itoa(size), func(b *testing.B) { benchSeal(b, newBenchOCB(b), size) })
	}
}

func BenchmarkOpen(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(strconv.Itoa(size), func(b *testing.B) { benchOpen(b, newBenchOCB(b), size) })
	}
}

func BenchmarkGCMSeal(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(strconv.Itoa(size), func(b *testing.B) { benchSeal(b, newBenchGCM(b), size) })
	}
}

func BenchmarkGCMOpen(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(strconv.Itoa(size), func(b *testing.B) { benchOpen(b, newBenchGCM(b), size) })
	}
}

func BenchmarkSessionSeal(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			s := newBenchSession(b)
			pt := make([]byte, size)
			buf := make([]byte, 0, size+Overhead)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var seq uint64
			for b.Loop() {
				var err error
				if buf, err = s.Seal(buf[:0], ToServer, seq, pt); err != nil {
					b.Fatal(err)
				}
				seq++
			}
		})
	}
}

func BenchmarkSessionOpen(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			s := newBenchSession(b)
			datagram, err := s.Seal(nil, ToServer, 1, make([]byte, size))
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 0, size+TagSize)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, buf, err = s.Open(buf[:0], datagram); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func newBenchSession(b *testing.B) *Session {
	k, err := KeyFromBytes(benchKey)
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSession(k)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchSeal seals size-byte messages with no associated data into a
// reused buffer, as a datagram sender does.
func benchSeal(b *testing.B, aead cipher.AEAD, size int) {
	pt := make([]byte, size)
	nonce := make([]byte, aead.NonceSize())
	buf := make([]byte, 0, size+aead.Overhead())
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		buf = aead.Seal(buf[:0], nonce, pt, nil)
	}
}

// benchOpen opens a size-byte message into a reused buffer with room for
// OCB's scratch block.
func benchOpen(b *testing.B, aead cipher.AEAD, size int) {
	nonce := make([]byte, aead.NonceSize())
	ct := aead.Seal(nil, nonce, make([]byte, size), nil)
	buf := make([]byte, 0, size+TagSize)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = aead.Open(buf[:0], nonce, ct, nil); err != nil {
			b.Fatal(err)
		}
	}
}

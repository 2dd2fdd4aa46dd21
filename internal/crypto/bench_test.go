package crypto

import (
	"crypto/aes"
	"crypto/cipher"
	"strconv"
	"testing"
)

var benchSizes = []int{64, 1280, 1400}

func benchAEADs(b *testing.B) map[string]cipher.AEAD {
	key := make([]byte, 16)
	ocb, err := New(key)
	if err != nil {
		b.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	return map[string]cipher.AEAD{"OCB": ocb, "GCM": gcm}
}

func BenchmarkQuick(b *testing.B) {
	for name, aead := range benchAEADs(b) {
		for _, size := range benchSizes {
			b.Run(name+"/Seal-"+strconv.Itoa(size), func(b *testing.B) {
				pt := make([]byte, size)
				nonce := make([]byte, 12)
				buf := make([]byte, 0, size+16)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					buf = aead.Seal(buf[:0], nonce, pt, nil)
				}
			})
			b.Run(name+"/Open-"+strconv.Itoa(size), func(b *testing.B) {
				pt := make([]byte, size)
				nonce := make([]byte, 12)
				ct := aead.Seal(nil, nonce, pt, nil)
				buf := make([]byte, 0, size+16)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					var err error
					buf, err = aead.Open(buf[:0], nonce, ct, nil)
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

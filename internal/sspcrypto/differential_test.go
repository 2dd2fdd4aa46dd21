package sspcrypto

import (
	"bytes"
	"crypto/aes"
	"math/rand/v2"
	"testing"

	protonocb "github.com/ProtonMail/go-crypto/ocb"
)

// TestDifferentialProtonOCB checks Seal and Open against an independent
// OCB3 implementation, ProtonMail's go-crypto/ocb, over random keys,
// nonces, associated data and plaintexts. Lengths cluster around block
// boundaries and the Mosh datagram sizes, where offset and partial-block
// bugs live.
func TestDifferentialProtonOCB(t *testing.T) {
	rng := rand.New(rand.NewPCG(7253, 2013))
	iterations := 4000
	if testing.Short() {
		iterations = 500
	}
	for i := range iterations {
		key, nonce := randBytes(rng, KeySize), randBytes(rng, NonceSize)
		ad, pt := randBytes(rng, randLen(rng)), randBytes(rng, randLen(rng))
		ours, err := New(key)
		if err != nil {
			t.Fatal(err)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := protonocb.NewOCBWithNonceAndTagSize(block, NonceSize, TagSize)
		if err != nil {
			t.Fatal(err)
		}
		want := theirs.Seal(nil, nonce, pt, ad)
		got := ours.Seal(nil, nonce, pt, ad)
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d (key %x nonce %x, %d-byte ad, %d-byte plaintext): Seal = %x, ProtonMail = %x",
				i, key, nonce, len(ad), len(pt), got, want)
		}
		opened, err := ours.Open(nil, nonce, want, ad)
		if err != nil || !bytes.Equal(opened, pt) {
			t.Fatalf("case %d: Open of ProtonMail's ciphertext = %x, %v; want %x", i, opened, err, pt)
		}
		// Both must reject the same forgery.
		forged := bytes.Clone(want)
		forged[rng.IntN(len(forged))] ^= 1 << rng.IntN(8)
		_, errOurs := ours.Open(nil, nonce, forged, ad)
		_, errTheirs := theirs.Open(nil, nonce, forged, ad)
		if errOurs == nil || errTheirs == nil {
			t.Fatalf("case %d: forged ciphertext accepted (ours: %v, ProtonMail: %v)", i, errOurs, errTheirs)
		}
	}
}

// randLen returns a length biased towards the interesting ones: within a
// byte of a multiple of 16, Mosh's datagram sizes, and anything up to
// 2100.
func randLen(rng *rand.Rand) int {
	switch rng.IntN(4) {
	case 0:
		return rng.IntN(40)
	case 1:
		return max(0, 16*rng.IntN(90)+rng.IntN(3)-1)
	case 2:
		return []int{1214 - 4, 1252 - 24, 1216 - 24, 2048 - 24, 472}[rng.IntN(5)] + rng.IntN(3) - 1
	}
	return rng.IntN(2100)
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// FuzzOCBDifferential compares Seal with ProtonMail's OCB on fuzzed keys,
// nonces, associated data and plaintexts, and opens the result.
func FuzzOCBDifferential(f *testing.F) {
	for _, v := range rfc7253Vectors {
		f.Add(mustHex(f, rfc7253Key), mustHex(f, v.n), mustHex(f, v.a), mustHex(f, v.p))
	}
	f.Fuzz(func(t *testing.T, key, nonce, ad, pt []byte) {
		// Pad or cut the key and nonce to size rather than waste inputs.
		key = append(bytes.Clone(key), make([]byte, KeySize)...)[:KeySize]
		nonce = append(bytes.Clone(nonce), make([]byte, NonceSize)...)[:NonceSize]
		ours, err := New(key)
		if err != nil {
			t.Fatal(err)
		}
		block, _ := aes.NewCipher(key)
		theirs, err := protonocb.NewOCBWithNonceAndTagSize(block, NonceSize, TagSize)
		if err != nil {
			t.Fatal(err)
		}
		got, want := ours.Seal(nil, nonce, pt, ad), theirs.Seal(nil, nonce, pt, ad)
		if !bytes.Equal(got, want) {
			t.Fatalf("Seal = %x, ProtonMail = %x", got, want)
		}
		if opened, err := ours.Open(nil, nonce, got, ad); err != nil || !bytes.Equal(opened, pt) {
			t.Fatalf("Open(Seal) = %x, %v", opened, err)
		}
	})
}

package sspcrypto

import (
	"bytes"
	"crypto/cipher"
	"crypto/des"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// The conformance tests below port the subtests of the standard library's
// crypto/internal/cryptotest.TestAEAD (Roundtrip, InputNotModified,
// BufferOverlap, AppendDst, WrongNonce, WrongAddData, WrongCiphertext) and
// crypto/cipher's TestTagFailureOverwrite to OCB, with more lengths and a
// few more ways to be wrong.

// adLengths are the associated-data lengths tried with every plaintext
// length: empty, partial, exactly one block, either side of a block, and
// several blocks.
var adLengths = []int{0, 1, 15, 16, 17, 33, 100}

// maxRoundtripLen is the longest plaintext the conformance tests try; all
// lengths from 0 up to it are covered.
const maxRoundtripLen = 600

func newTestAEAD(t testing.TB, seed uint64) (cipher.AEAD, *rand.Rand) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x6f6362))
	aead, err := New(randBytes(rng, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return aead, rng
}

func TestAEADRoundtrip(t *testing.T) {
	aead, rng := newTestAEAD(t, 1)
	for ptLen := 0; ptLen <= maxRoundtripLen; ptLen++ {
		for _, adLen := range adLengths {
			nonce, pt, ad := randBytes(rng, NonceSize), randBytes(rng, ptLen), randBytes(rng, adLen)
			ct := aead.Seal(nil, nonce, pt, ad)
			if len(ct) != ptLen+aead.Overhead() {
				t.Fatalf("len(Seal(%d bytes)) = %d, want %d", ptLen, len(ct), ptLen+aead.Overhead())
			}
			got, err := aead.Open(nil, nonce, ct, ad)
			if err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("Open(Seal(%d bytes, %d-byte ad)) = %x, %v; want %x", ptLen, adLen, got, err, pt)
			}
		}
	}
}

func TestAEADInputNotModified(t *testing.T) {
	aead, rng := newTestAEAD(t, 2)
	for _, ptLen := range []int{0, 1, 16, 17, 156, 600} {
		for _, adLen := range adLengths {
			nonce, pt, ad := randBytes(rng, NonceSize), randBytes(rng, ptLen), randBytes(rng, adLen)
			inputs := [][]byte{nonce, pt, ad}
			saved := clones(inputs)
			ct := aead.Seal(nil, nonce, pt, ad)
			assertUnchanged(t, "Seal", inputs, saved)

			inputs = [][]byte{nonce, ct, ad}
			saved = clones(inputs)
			if _, err := aead.Open(nil, nonce, ct, ad); err != nil {
				t.Fatal(err)
			}
			assertUnchanged(t, "Open", inputs, saved)
		}
	}
}

func clones(bs [][]byte) [][]byte {
	out := make([][]byte, len(bs))
	for i, b := range bs {
		out[i] = bytes.Clone(b)
	}
	return out
}

func assertUnchanged(t *testing.T, op string, got, want [][]byte) {
	t.Helper()
	for i, name := range []string{"nonce", "text", "ad"} {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s modified its %s input: %x, was %x", op, name, got[i], want[i])
		}
	}
}

func TestAEADBufferOverlap(t *testing.T) {
	aead, rng := newTestAEAD(t, 3)
	for _, ptLen := range []int{2, 16, 17, 156, 600} {
		nonce, pt := randBytes(rng, NonceSize), randBytes(rng, ptLen)
		buf := make([]byte, 2*ptLen+TagSize)
		copy(buf, pt)
		// The output starting after the input, or inside it, is refused.
		for _, start := range []int{1, ptLen - 1} {
			mustPanic(t, "invalid buffer overlap", func() { aead.Seal(buf[start:start], nonce, buf[:ptLen], nil) })
		}
		ct := aead.Seal(nil, nonce, pt, nil)
		copy(buf, ct)
		for _, start := range []int{1, len(ct) - TagSize - 1} {
			mustPanic(t, "invalid buffer overlap", func() { aead.Open(buf[start:start], nonce, buf[:len(ct)], nil) })
		}
	}
}

// TestAEADInPlace checks the exact overlaps the contract allows:
// Seal(plaintext[:0], …) and Open(ciphertext[:0], …).
func TestAEADInPlace(t *testing.T) {
	aead, rng := newTestAEAD(t, 4)
	for ptLen := range 100 {
		nonce, pt, ad := randBytes(rng, NonceSize), randBytes(rng, ptLen), randBytes(rng, 20)
		want := aead.Seal(nil, nonce, pt, ad)
		buf := make([]byte, ptLen, ptLen+TagSize)
		copy(buf, pt)
		sealed := aead.Seal(buf[:0], nonce, buf, ad)
		if !bytes.Equal(sealed, want) || &sealed[0] != &buf[:1][0] {
			t.Fatalf("in-place Seal of %d bytes = %x (same buffer %v), want %x", ptLen, sealed, &sealed[0] == &buf[:1][0], want)
		}
		opened, err := aead.Open(sealed[:0], nonce, sealed, ad)
		if err != nil || !bytes.Equal(opened, pt) {
			t.Fatalf("in-place Open of %d bytes = %x, %v; want %x", ptLen, opened, err, pt)
		}
		if !bytes.Equal(sealed[ptLen:], want[ptLen:]) {
			t.Errorf("successful in-place Open changed the tag: %x, want %x", sealed[ptLen:], want[ptLen:])
		}
	}
}

func TestAEADAppendDst(t *testing.T) {
	aead, rng := newTestAEAD(t, 5)
	prefixes := [][]byte{[]byte("a"), randBytes(rng, 512)}
	for _, ptLen := range []int{0, 1, 16, 31, 156, 600} {
		for _, adLen := range adLengths {
			nonce, pt, ad := randBytes(rng, NonceSize), randBytes(rng, ptLen), randBytes(rng, adLen)
			want := aead.Seal(nil, nonce, pt, ad)
			for _, prefix := range prefixes {
				saved := bytes.Clone(prefix)
				out := aead.Seal(prefix, nonce, pt, ad)
				if !bytes.Equal(out[:len(prefix)], saved) || !bytes.Equal(out[len(prefix):], want) {
					t.Fatalf("Seal(%d-byte prefix) = %x, want prefix then %x", len(prefix), out, want)
				}
				// A prefix with spare capacity is appended to in place.
				roomy := append(make([]byte, 0, len(prefix)+len(want)+TagSize), prefix...)
				got, err := aead.Open(roomy, nonce, want, ad)
				if err != nil || !bytes.Equal(got[:len(prefix)], saved) || !bytes.Equal(got[len(prefix):], pt) {
					t.Fatalf("Open(%d-byte prefix) = %x, %v; want prefix then %x", len(prefix), got, err, pt)
				}
				if &got[0] != &roomy[0] {
					t.Errorf("Open reallocated a dst with room to spare")
				}
			}
		}
	}
}

// TestAEADWrong checks that every kind of mismatch between Seal and Open
// fails with ErrOpen and a nil result.
func TestAEADWrong(t *testing.T) {
	aead, rng := newTestAEAD(t, 6)
	other, _ := newTestAEAD(t, 7)
	for _, ptLen := range []int{0, 1, 15, 16, 17, 64, 600} {
		for _, adLen := range []int{0, 1, 16, 40} {
			nonce, pt, ad := randBytes(rng, NonceSize), randBytes(rng, ptLen), randBytes(rng, adLen)
			ct := aead.Seal(nil, nonce, pt, ad)
			tweak := func(b []byte, i int) []byte { c := bytes.Clone(b); c[i] ^= 0x01; return c }
			cases := []struct {
				name          string
				aead          cipher.AEAD
				nonce, ct, ad []byte
			}{
				{"WrongKey", other, nonce, ct, ad},
				{"WrongNonceFirst", aead, tweak(nonce, 0), ct, ad},
				{"WrongNonceLast", aead, tweak(nonce, NonceSize-1), ct, ad},
				{"WrongTag", aead, nonce, tweak(ct, len(ct)-1), ad},
				{"WrongTagFirst", aead, nonce, tweak(ct, len(ct)-TagSize), ad},
				{"Truncated", aead, nonce, ct[:len(ct)-1], ad},
				{"TooShort", aead, nonce, ct[:rng.IntN(TagSize)], ad},
				{"Extended", aead, nonce, append(bytes.Clone(ct), 0), ad},
				{"AddedAD", aead, nonce, ct, append(bytes.Clone(ad), 0)},
			}
			if ptLen > 0 {
				cases = append(cases,
					struct {
						name          string
						aead          cipher.AEAD
						nonce, ct, ad []byte
					}{"WrongCiphertext", aead, nonce, tweak(ct, rng.IntN(ptLen)), ad},
					struct {
						name          string
						aead          cipher.AEAD
						nonce, ct, ad []byte
					}{"DroppedFirstByte", aead, nonce, ct[1:], ad})
			}
			if adLen > 0 {
				cases = append(cases, struct {
					name          string
					aead          cipher.AEAD
					nonce, ct, ad []byte
				}{"WrongAddData", aead, nonce, ct, tweak(ad, rng.IntN(adLen))})
			}
			for _, tc := range cases {
				got, err := tc.aead.Open(nil, tc.nonce, tc.ct, tc.ad)
				if err != ErrOpen || got != nil {
					t.Errorf("%s (pt %d, ad %d): Open = %x, %v; want nil, %v", tc.name, ptLen, adLen, got, err, ErrOpen)
				}
			}
		}
	}
}

// TestTagFailureOverwrite is the standard library's test of the same name:
// a failed Open must not leave unauthenticated plaintext in dst.
func TestTagFailureOverwrite(t *testing.T) {
	key, _ := hex.DecodeString("ab72c77b97cb5fe9a382d9fe81ffdbed")
	nonce, _ := hex.DecodeString("54cc7dc2c37ec006bcc6d1db")
	ciphertext, _ := hex.DecodeString("0e1bde206a07a9c2c1b65300f8c649972b4401346697138c7a4891ee59867d0c")
	aead, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	n := len(ciphertext) - TagSize
	for _, extra := range []int{0, TagSize, 100} {
		t.Run(fmt.Sprintf("spare=%d", extra), func(t *testing.T) {
			backing := make([]byte, n+extra)
			for i := range backing {
				backing[i] = byte(i)
			}
			dst := backing[:0]
			result, err := aead.Open(dst, nonce, ciphertext, nil)
			if err != ErrOpen || result != nil {
				t.Fatalf("Open of a forgery = %x, %v; want nil, %v", result, err, ErrOpen)
			}
			for i, b := range backing {
				switch {
				case extra >= TagSize && i < n+TagSize && b != 0:
					t.Fatalf("byte %d of dst = %#x after a failed Open, want 0", i, b)
				case (extra < TagSize || i >= n+TagSize) && b != byte(i):
					// Without room for the scratch block Open works in a
					// buffer of its own and must leave dst alone.
					t.Fatalf("byte %d of dst = %#x after a failed Open, want it untouched", i, b)
				}
			}
		})
	}
}

// TestAEADFailureWipesPlaintext checks the wipe on a forgery whose
// plaintext (had it been accepted) is long, opened into a prefixed dst.
func TestAEADFailureWipesPlaintext(t *testing.T) {
	aead, rng := newTestAEAD(t, 8)
	nonce, pt := randBytes(rng, NonceSize), randBytes(rng, 300)
	ct := aead.Seal(nil, nonce, pt, nil)
	ct[len(ct)-1] ^= 0x80
	dst := append(make([]byte, 0, 10+len(ct)), "prefix...."...)
	if _, err := aead.Open(dst, nonce, ct, nil); err != ErrOpen {
		t.Fatalf("Open of a forgery: err = %v, want %v", err, ErrOpen)
	}
	full := dst[:cap(dst)]
	if string(full[:10]) != "prefix...." {
		t.Errorf("failed Open changed dst's contents: %q", full[:10])
	}
	if i := bytes.IndexFunc(full[10:], func(r rune) bool { return r != 0 }); i >= 0 {
		t.Errorf("byte %d after dst is not zero after a failed Open", i)
	}
}

func TestAEADMisuse(t *testing.T) {
	aead, _ := newTestAEAD(t, 9)
	for _, n := range []int{0, 8, 11, 13, 16} {
		mustPanic(t, "nonce length", func() { aead.Seal(nil, make([]byte, n), nil, nil) })
		mustPanic(t, "nonce length", func() { aead.Open(nil, make([]byte, n), make([]byte, 32), nil) })
	}
	if aead.NonceSize() != NonceSize || aead.Overhead() != TagSize {
		t.Errorf("NonceSize, Overhead = %d, %d; want %d, %d", aead.NonceSize(), aead.Overhead(), NonceSize, TagSize)
	}
	for _, n := range []int{0, 15, 17, 24, 32} {
		if _, err := New(make([]byte, n)); err == nil {
			t.Errorf("New(%d-byte key) succeeded, want an error", n)
		}
	}
	block, err := des.NewCipher(make([]byte, 8)) // 8-byte blocks
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewOCB(block); err == nil {
		t.Error("NewOCB(DES) succeeded, want an error for an 8-byte block")
	}
	if _, err := NewOCB(nil); err == nil {
		t.Error("NewOCB(nil) succeeded, want an error")
	}
}

// TestAEADConcurrent shares one AEAD between goroutines; run with -race.
func TestAEADConcurrent(t *testing.T) {
	aead, _ := newTestAEAD(t, 10)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 11))
			for range 200 {
				nonce, pt := randBytes(rng, NonceSize), randBytes(rng, rng.IntN(300))
				ct := aead.Seal(nil, nonce, pt, nil)
				got, err := aead.Open(nil, nonce, ct, nil)
				if err != nil || !bytes.Equal(got, pt) {
					t.Errorf("goroutine %d: round trip failed: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestAEADAllocs(t *testing.T) {
	aead, rng := newTestAEAD(t, 12)
	nonce, pt, ad := randBytes(rng, NonceSize), randBytes(rng, 1400), randBytes(rng, 13)
	ct := aead.Seal(nil, nonce, pt, ad)
	forged := bytes.Clone(ct)
	forged[0] ^= 1
	buf := make([]byte, 0, len(ct)+TagSize)
	inPlace := bytes.Clone(ct)
	cases := map[string]func(){
		"Seal":         func() { aead.Seal(buf[:0], nonce, pt, ad) },
		"Open":         func() { aead.Open(buf[:0], nonce, ct, ad) },
		"OpenInPlace":  func() { copy(inPlace, ct); aead.Open(inPlace[:0], nonce, inPlace, ad) },
		"OpenFailure":  func() { aead.Open(buf[:0], nonce, forged, ad) },
		"OpenTooShort": func() { aead.Open(buf[:0], nonce, ct[:5], ad) },
	}
	for name, f := range cases {
		if allocs := testing.AllocsPerRun(100, f); allocs != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, allocs)
		}
	}
}

// mustPanic checks that f panics with a message starting "crypto: " and
// containing want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		msg, _ := r.(string)
		if r == nil || !strings.HasPrefix(msg, "crypto: ") || !strings.Contains(msg, want) {
			t.Errorf("panic = %v, want a crypto panic about %q", r, want)
		}
	}()
	f()
}

package sspcrypto

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"testing"
)

// rfc7253Key is the key of the sample results in RFC 7253 Appendix A.
const rfc7253Key = "000102030405060708090A0B0C0D0E0F"

// rfc7253Vectors are the sample results of RFC 7253 Appendix A for
// AES-128 with a 128-bit tag (C is the ciphertext followed by the tag).
var rfc7253Vectors = []struct {
	n, a, p, c string
}{
	{"BBAA99887766554433221100", "", "", "785407BFFFC8AD9EDCC5520AC9111EE6"},
	{"BBAA99887766554433221101", "0001020304050607", "0001020304050607", "6820B3657B6F615A5725BDA0D3B4EB3A257C9AF1F8F03009"},
	{"BBAA99887766554433221102", "0001020304050607", "", "81017F8203F081277152FADE694A0A00"},
	{"BBAA99887766554433221103", "", "0001020304050607", "45DD69F8F5AAE72414054CD1F35D82760B2CD00D2F99BFA9"},
	{"BBAA99887766554433221104", "000102030405060708090A0B0C0D0E0F", "000102030405060708090A0B0C0D0E0F",
		"571D535B60B277188BE5147170A9A22C3AD7A4FF3835B8C5701C1CCEC8FC3358"},
	{"BBAA99887766554433221105", "000102030405060708090A0B0C0D0E0F", "", "8CF761B6902EF764462AD86498CA6B97"},
	{"BBAA99887766554433221106", "", "000102030405060708090A0B0C0D0E0F",
		"5CE88EC2E0692706A915C00AEB8B2396F40E1C743F52436BDF06D8FA1ECA343D"},
	{"BBAA99887766554433221107",
		"000102030405060708090A0B0C0D0E0F1011121314151617",
		"000102030405060708090A0B0C0D0E0F1011121314151617",
		"1CA2207308C87C010756104D8840CE1952F09673A448A122C92C62241051F57356D7F3C90BB0E07F"},
	{"BBAA99887766554433221108", "000102030405060708090A0B0C0D0E0F1011121314151617", "",
		"6DC225A071FC1B9F7C69F93B0F1E10DE"},
	{"BBAA99887766554433221109", "", "000102030405060708090A0B0C0D0E0F1011121314151617",
		"221BD0DE7FA6FE993ECCD769460A0AF2D6CDED0C395B1C3CE725F32494B9F914D85C0B1EB38357FF"},
	{"BBAA9988776655443322110A",
		"000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
		"000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
		"BD6F6C496201C69296C11EFD138A467ABD3C707924B964DEAFFC40319AF5A48540FBBA186C5553C68AD9F592A79A4240"},
	{"BBAA9988776655443322110B", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "",
		"FE80690BEE8A485D11F32965BC9D2A32"},
	{"BBAA9988776655443322110C", "", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
		"2942BFC773BDA23CABC6ACFD9BFD5835BD300F0973792EF46040C53F1432BCDFB5E1DDE3BC18A5F840B52E653444D5DF"},
	{"BBAA9988776655443322110D",
		"000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627",
		"000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627",
		"D5CA91748410C1751FF8A2F618255B68A0A12E093FF454606E59F9C1D0DDC54B65E8628E568BAD7AED07BA06A4A69483A7035490C5769E60"},
	{"BBAA9988776655443322110E", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627", "",
		"C5CD9D1850C141E358649994EE701B68"},
	{"BBAA9988776655443322110F", "", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627",
		"4412923493C57D5DE0D700F753CCE0D1D2D95060122E9F15A5DDBFC5787E50B5CC55EE507BCB084E479AD363AC366B95A98CA5F3000B1479"},
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func TestRFC7253Vectors(t *testing.T) {
	aead, err := New(mustHex(t, rfc7253Key))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range rfc7253Vectors {
		t.Run("N="+v.n, func(t *testing.T) {
			nonce, ad, pt, want := mustHex(t, v.n), mustHex(t, v.a), mustHex(t, v.p), mustHex(t, v.c)
			if got := aead.Seal(nil, nonce, pt, ad); !bytes.Equal(got, want) {
				t.Errorf("Seal(%s, %s, %s) = %X, want %X", v.n, v.a, v.p, got, want)
			}
			got, err := aead.Open(nil, nonce, want, ad)
			if err != nil || !bytes.Equal(got, pt) {
				t.Errorf("Open(%s, %s, %s) = %X, %v; want %X, nil", v.n, v.c, v.a, got, err, pt)
			}
			for _, tc := range []struct {
				name string
				buf  []byte
			}{{"ciphertext", want}, {"nonce", nonce}, {"ad", ad}} {
				for bit := range len(tc.buf) * 8 {
					tc.buf[bit/8] ^= 1 << (bit % 8)
					if _, err := aead.Open(nil, nonce, want, ad); err != ErrOpen {
						t.Errorf("Open with bit %d of the %s flipped: err = %v, want %v", bit, tc.name, err, ErrOpen)
					}
					tc.buf[bit/8] ^= 1 << (bit % 8)
				}
			}
		})
	}
}

// TestRFC7253Iterative is the all-lengths test of RFC 7253 Appendix A for
// KEYLEN = 128 and TAGLEN = 128. It seals messages and associated data of
// every length from 0 to 127 bytes, and the tag over all of them is a
// published value.
func TestRFC7253Iterative(t *testing.T) {
	key := make([]byte, KeySize)
	key[KeySize-1] = 128 // zeros(KEYLEN-8) || num2str(TAGLEN, 8)
	aead, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	nonceFor := func(i uint64) []byte {
		n := make([]byte, NonceSize)
		binary.BigEndian.PutUint64(n[4:], i)
		return n
	}
	var c []byte
	for i := range uint64(128) {
		s := make([]byte, i)
		c = aead.Seal(c, nonceFor(3*i+1), s, s)
		c = aead.Seal(c, nonceFor(3*i+2), s, nil)
		c = aead.Seal(c, nonceFor(3*i+3), nil, s)
	}
	got := aead.Seal(nil, nonceFor(385), nil, c)
	if want := mustHex(t, "67E944D23256C5E0B6C61FA22FDF1EA2"); !bytes.Equal(got, want) {
		t.Errorf("iterative output = %X, want %X", got, want)
	}
	// Every message sealed above must also open.
	off := 0
	for i := range uint64(128) {
		for j, lens := range [][2]uint64{{i, i}, {i, 0}, {0, i}} {
			ct := c[off : off+int(lens[0])+TagSize]
			off += len(ct)
			if _, err := aead.Open(nil, nonceFor(3*i+1+uint64(j)), ct, make([]byte, lens[1])); err != nil {
				t.Errorf("Open of message %d: %v", 3*i+1+uint64(j), err)
			}
		}
	}
	if off != len(c) {
		t.Errorf("walked %d bytes of %d", off, len(c))
	}
}

func ExampleNewOCB() {
	key, _ := hex.DecodeString(rfc7253Key)
	aead, err := New(key) // the same as NewOCB(aes.NewCipher(key))
	if err != nil {
		panic(err)
	}
	nonce, _ := hex.DecodeString("BBAA99887766554433221103")
	sealed := aead.Seal(nil, nonce, []byte{0, 1, 2, 3, 4, 5, 6, 7}, nil)
	fmt.Printf("%X\n", sealed)
	opened, err := aead.Open(nil, nonce, sealed, nil)
	fmt.Println(opened, err)
	// Output:
	// 45DD69F8F5AAE72414054CD1F35D82760B2CD00D2F99BFA9
	// [0 1 2 3 4 5 6 7] <nil>
}

package sspcrypto

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
)

// goldenKeys pairs key bytes with the text mosh prints for them. The first
// is the worked example of docs/protocol.md section 13.
var goldenKeys = []struct {
	hex, text string
}{
	{"000102030405060708090a0b0c0d0e0f", "AAECAwQFBgcICQoLDA0ODw"},
	{"00000000000000000000000000000000", "AAAAAAAAAAAAAAAAAAAAAA"},
	{"ffffffffffffffffffffffffffffffff", "/////////////////////w"},
	{"fbefbefbefbefbefbefbefbefbefbef0", "++++++++++++++++++++8A"},
	{"0f0e0d0c0b0a09080706050403020100", "Dw4NDAsKCQgHBgUEAwIBAA"},
}

func TestKeyGolden(t *testing.T) {
	for _, g := range goldenKeys {
		k, err := ParseKey(g.text)
		if err != nil {
			t.Fatalf("ParseKey(%q) = %v", g.text, err)
		}
		if got := fmt.Sprintf("%x", k.bytes()[:]); got != g.hex {
			t.Errorf("ParseKey(%q) holds %s, want %s", g.text, got, g.hex)
		}
		fromBytes, err := KeyFromBytes(mustHex(t, g.hex))
		if err != nil {
			t.Fatal(err)
		}
		if got := fromBytes.Base64(); got != g.text {
			t.Errorf("KeyFromBytes(%s).Base64() = %q, want %q", g.hex, got, g.text)
		}
		if !fromBytes.Equal(k) {
			t.Errorf("KeyFromBytes(%s) and ParseKey(%q) differ", g.hex, g.text)
		}
	}
}

// TestKeyLastByte mirrors mosh's base64 test: every value of the last key
// byte, checked against the standard library's padded encoding.
func TestKeyLastByte(t *testing.T) {
	b := []byte("0123456789abcde?")
	for v := range 256 {
		b[15] = byte(v)
		k, err := KeyFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(base64.StdEncoding.EncodeToString(b), "==")
		if got := k.Base64(); got != want {
			t.Fatalf("Base64 of last byte %#x = %q, want %q", v, got, want)
		}
		back, err := ParseKey(want)
		if err != nil || !bytes.Equal(back.bytes()[:], b) {
			t.Fatalf("ParseKey(%q) = %x, %v; want %x", want, back.bytes()[:], err, b)
		}
	}
}

func TestParseKeyErrors(t *testing.T) {
	const good = "AAECAwQFBgcICQoLDA0ODw"
	cases := []struct {
		name, in string
		want     error
	}{
		{"empty", "", errKeyTextLength},
		{"short", good[:21], errKeyTextLength},
		{"long", good + "A", errKeyTextLength},
		{"padded", good + "==", errKeyTextLength},
		{"utf8", good[:21] + "é", errKeyTextLength},
		{"url alphabet -", "-" + good[1:], errKeyAlphabet},
		{"url alphabet _", good[:5] + "_" + good[6:], errKeyAlphabet},
		{"padding inside", good[:20] + "==", errKeyAlphabet},
		{"space", good[:10] + " " + good[11:], errKeyAlphabet},
		{"newline", good[:10] + "\n" + good[11:], errKeyAlphabet},
		{"carriage return", "\r" + good[1:], errKeyAlphabet},
		{"nul", good[:21] + "\x00", errKeyAlphabet},
		{"high byte", good[:21] + "\xff", errKeyAlphabet},
		{"trailing bits B", good[:21] + "B", errKeyTrailing},
		{"trailing bits /", good[:21] + "/", errKeyTrailing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParseKey(tc.in)
			if err != tc.want || !errors.Is(err, ErrInvalidKey) || !k.IsZero() {
				t.Errorf("ParseKey(%q) = %v, %v; want the zero key, %v", tc.in, k, err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), tc.in) && tc.in != "" {
				t.Errorf("error %q contains the key text", err)
			}
		})
	}
}

// TestParseKeyLastChar: of the 64 base64 characters only A, Q, g and w
// (low 4 bits zero) may end a key.
func TestParseKeyLastChar(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for _, c := range alphabet {
		_, err := ParseKey("AAECAwQFBgcICQoLDA0OD" + string(c))
		if wantOK := strings.ContainsRune("AQgw", c); (err == nil) != wantOK {
			t.Errorf("ParseKey(... %c) error = %v, want ok=%v", c, err, wantOK)
		}
	}
}

func TestKeyFromBytesLength(t *testing.T) {
	for _, n := range []int{0, 15, 17, 32} {
		if _, err := KeyFromBytes(make([]byte, n)); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("KeyFromBytes(%d bytes) error = %v, want %v", n, err, ErrInvalidKey)
		}
	}
	b := bytes.Repeat([]byte{7}, KeySize)
	k, _ := KeyFromBytes(b)
	b[0] = 8 // the key keeps its own copy
	if k.bytes()[0] != 7 {
		t.Error("KeyFromBytes kept a reference to its argument")
	}
}

func TestNewKey(t *testing.T) {
	k, err := NewKey(bytes.NewReader(mustHex(t, "000102030405060708090a0b0c0d0e0fff")))
	if err != nil || k.Base64() != "AAECAwQFBgcICQoLDA0ODw" {
		t.Errorf("NewKey(fixed reader) = %q, %v", k.Base64(), err)
	}
	if _, err := NewKey(bytes.NewReader(make([]byte, 15))); err == nil {
		t.Error("NewKey(15-byte reader) succeeded")
	}
	if _, err := NewKey(iotest.ErrReader(errors.New("boom"))); err == nil || !strings.HasPrefix(err.Error(), "crypto: ") {
		t.Errorf("NewKey(failing reader) error = %v", err)
	}
	a, errA := NewKey(nil)
	b, errB := NewKey(nil)
	if errA != nil || errB != nil || a.IsZero() || a.Equal(b) {
		t.Errorf("NewKey(nil) twice = %v, %v (errors %v, %v); want two different random keys", a, b, errA, errB)
	}
}

func TestKeyEqualIsZero(t *testing.T) {
	var zero Key
	k1, _ := ParseKey("AAECAwQFBgcICQoLDA0ODw")
	k2, _ := KeyFromBytes(mustHex(t, "000102030405060708090a0b0c0d0e0f"))
	k3, _ := KeyFromBytes(mustHex(t, "000102030405060708090a0b0c0d0e0e"))
	explicitZero, _ := KeyFromBytes(make([]byte, KeySize))
	cases := []struct {
		name string
		a, b Key
		want bool
	}{
		{"same", k1, k2, true},
		{"last bit", k1, k3, false},
		{"zero value vs zero bytes", zero, explicitZero, true},
		{"zero vs key", zero, k1, false},
	}
	for _, tc := range cases {
		if got := tc.a.Equal(tc.b); got != tc.want {
			t.Errorf("%s: Equal = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !zero.IsZero() || !explicitZero.IsZero() || k1.IsZero() {
		t.Errorf("IsZero: zero value %v, zero bytes %v, key %v; want true, true, false",
			zero.IsZero(), explicitZero.IsZero(), k1.IsZero())
	}
	if zero.Base64() != "AAAAAAAAAAAAAAAAAAAAAA" {
		t.Errorf("zero Key.Base64() = %q", zero.Base64())
	}
}

// TestKeyRedacted checks that no way of printing a Key shows its secret,
// including inside structs whose Key field fmt cannot call methods on.
func TestKeyRedacted(t *testing.T) {
	k, _ := KeyFromBytes(bytes.Repeat([]byte{0xA5}, KeySize))
	type exported struct{ Key Key }
	type unexported struct{ key Key }
	values := []any{k, &k, exported{k}, &exported{k}, unexported{k}, &unexported{k}, []Key{k}, map[string]Key{"k": k}}
	secrets := []string{"a5a5a5", "A5A5A5", "165 165", "245 245", "10100101 10100101", "¥¥", k.Base64()}
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "% x", "%d", "%o", "%b", "%c", "%U", "%t", "%e", "%p"} {
			out := fmt.Sprintf(verb, v)
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("Sprintf(%q, %T) = %q contains %q", verb, v, out, s)
				}
			}
		}
	}
	if s := k.String(); s != "crypto.Key(redacted)" {
		t.Errorf("String() = %q", s)
	}
	if s := fmt.Sprint(Key{}); s != "crypto.Key(zero)" {
		t.Errorf("Sprint(Key{}) = %q", s)
	}
}

func FuzzParseKey(f *testing.F) {
	for _, g := range goldenKeys {
		f.Add(g.text)
	}
	f.Add("AAECAwQFBgcICQoLDA0ODx")
	f.Add("AAECAwQFBgcICQoLDA0ODw==")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidKey) || !k.IsZero() {
				t.Fatalf("ParseKey(%q) = %v, %v", s, k, err)
			}
			return
		}
		if got := k.Base64(); got != s {
			t.Fatalf("ParseKey(%q).Base64() = %q", s, got)
		}
		// The standard library's strict padded decoder agrees.
		want, err := base64.StdEncoding.Strict().DecodeString(s + "==")
		if err != nil || !bytes.Equal(k.bytes()[:], want) {
			t.Fatalf("ParseKey(%q) = %x; std decoder: %x, %v", s, k.bytes()[:], want, err)
		}
	})
}

func ExampleParseKey() {
	// The key mosh-server printed as "MOSH CONNECT 60001 AAECAwQFBgcICQoLDA0ODw".
	k, err := ParseKey("AAECAwQFBgcICQoLDA0ODw")
	fmt.Println(k, err)
	fmt.Println(k.Base64())

	_, err = ParseKey("AAECAwQFBgcICQoLDA0ODx") // last character has stray bits
	fmt.Println(err)
	// Output:
	// crypto.Key(redacted) <nil>
	// AAECAwQFBgcICQoLDA0ODw
	// crypto: invalid session key: last character does not end a 128-bit key
}

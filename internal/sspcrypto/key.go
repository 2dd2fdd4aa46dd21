package sspcrypto

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"
)

// ErrInvalidKey is matched (with [errors.Is]) by every error [ParseKey]
// and [KeyFromBytes] return. The errors never include the key text.
var ErrInvalidKey = errors.New("crypto: invalid session key")

var (
	errKeyTextLength = fmt.Errorf("%w: must be %d characters", ErrInvalidKey, KeyTextSize)
	errKeyAlphabet   = fmt.Errorf("%w: not well-formed base64", ErrInvalidKey)
	errKeyTrailing   = fmt.Errorf("%w: last character does not end a 128-bit key", ErrInvalidKey)
	errKeyLength     = fmt.Errorf("%w: must be %d bytes", ErrInvalidKey, KeySize)
)

// keyEncoding is standard base64 (A–Z a–z 0–9 + /) without padding: the
// 24-character padded form of 16 bytes ends in "==", which Mosh drops.
var keyEncoding = base64.RawStdEncoding

// incomparable makes a struct that embeds it unusable with ==, so that
// keys are compared only with the constant-time [Key.Equal].
type incomparable [0]func()

// Key is a Mosh session key: 16 random bytes used as the AES-128 key for
// both directions of a session. Its zero value is the all-zero key, which
// [NewSession] refuses; see [Key.IsZero]. Keys are values: copy them
// freely, and compare them with [Key.Equal] (== does not compile).
//
// A Key never prints its secret: String, GoString and every fmt verb show
// a redacted placeholder. [Key.Base64] is the one way to get the text form
// that mosh-server prints and MOSH_KEY carries.
type Key struct {
	_ incomparable
	// p points to the key's KeySize bytes, which are never written after
	// the Key is made, or is nil for the zero Key. fmt cannot call Format
	// on a Key held in an unexported struct field, and given a verb such
	// as %s it prints what an ordinary pointer points to; an
	// unsafe.Pointer it prints only as an address.
	p unsafe.Pointer
}

// zeroKey is what the zero Key holds.
var zeroKey [KeySize]byte

// bytes returns the key's bytes, which must not be modified.
func (k Key) bytes() *[KeySize]byte {
	if k.p == nil {
		return &zeroKey
	}
	return (*[KeySize]byte)(k.p)
}

// NewKey returns a key of [KeySize] bytes read from r, or from
// crypto/rand's Reader when r is nil.
func NewKey(r io.Reader) (Key, error) {
	if r == nil {
		r = rand.Reader
	}
	b := new([KeySize]byte)
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return Key{}, fmt.Errorf("crypto: reading session key: %w", err)
	}
	return Key{p: unsafe.Pointer(b)}, nil
}

// KeyFromBytes returns the key whose bytes are b, which must be [KeySize]
// bytes long. The key keeps a copy of b.
func KeyFromBytes(b []byte) (Key, error) {
	if len(b) != KeySize {
		return Key{}, errKeyLength
	}
	return Key{p: unsafe.Pointer((*[KeySize]byte)(bytes.Clone(b)))}, nil
}

// ParseKey parses Mosh's printable key form: exactly [KeyTextSize]
// characters of standard base64 without the "==" padding, encoding
// exactly 16 bytes, so the last character must carry zero trailing bits
// (only A, Q, g or w may end a key). It rejects everything mosh-client
// rejects, with errors matching [ErrInvalidKey].
func ParseKey(s string) (Key, error) {
	if len(s) != KeyTextSize {
		return Key{}, errKeyTextLength
	}
	// The decoder skips '\r' and '\n'; the alphabet check must not.
	if strings.ContainsAny(s, "\r\n=") {
		return Key{}, errKeyAlphabet
	}
	b := new([KeySize]byte)
	n, err := keyEncoding.Decode(b[:], []byte(s))
	if err != nil || n != KeySize {
		return Key{}, errKeyAlphabet
	}
	k := Key{p: unsafe.Pointer(b)}
	// 22 characters hold 132 bits; the last 4 must be zero. The
	// re-encoding is the canonical form, and must be the input.
	if k.Base64() != s {
		return Key{}, errKeyTrailing
	}
	return k, nil
}

// Base64 returns the key's [KeyTextSize]-character printable form, as
// mosh-server prints it in its "MOSH CONNECT port key" line. This is the
// secret: handle the result as carefully as the key.
func (k Key) Base64() string {
	return keyEncoding.EncodeToString(k.bytes()[:])
}

// String returns a placeholder that never contains the secret:
// "crypto.Key(redacted)", or "crypto.Key(zero)" for the zero key.
func (k Key) String() string {
	if k.IsZero() {
		return "crypto.Key(zero)"
	}
	return "crypto.Key(redacted)"
}

// GoString returns the same placeholder as [Key.String], for %#v.
func (k Key) GoString() string { return k.String() }

// Format makes every fmt verb and flag (%v, %+v, %#v, %s, %x, %q, ...)
// print [Key.String], so that no formatting of a Key, or of a struct that
// holds one, can leak the secret.
func (k Key) Format(f fmt.State, verb rune) {
	io.WriteString(f, k.String())
}

// Equal reports whether k and o are the same key, in constant time.
func (k Key) Equal(o Key) bool {
	return subtle.ConstantTimeCompare(k.bytes()[:], o.bytes()[:]) == 1
}

// IsZero reports whether k is the all-zero key (the zero value), in
// constant time.
func (k Key) IsZero() bool {
	return k.Equal(Key{})
}

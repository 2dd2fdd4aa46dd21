package sspcrypto

import (
	"encoding/hex"
	"testing"
)

func TestNonce(t *testing.T) {
	cases := []struct {
		dir  Direction
		seq  uint64
		want string // all 12 bytes
	}{
		{ToServer, 0, "000000000000000000000000"},
		{ToServer, 42, "00000000000000000000002a"}, // docs/protocol.md section 13
		{ToClient, 42, "00000000800000000000002a"}, // "800000000000002a" on the wire
		{ToServer, 0x0102030405060708, "000000000102030405060708"},
		{ToServer, MaxSeq, "000000007fffffffffffffff"},
		{ToClient, MaxSeq, "00000000ffffffffffffffff"},
		{ToClient, 0, "000000008000000000000000"},
	}
	for _, tc := range cases {
		n := NewNonce(tc.dir, tc.seq)
		if got := hex.EncodeToString(n[:]); got != tc.want {
			t.Errorf("NewNonce(%v, %d) = %s, want %s", tc.dir, tc.seq, got, tc.want)
		}
		if n.Dir() != tc.dir || n.Seq() != tc.seq {
			t.Errorf("NewNonce(%v, %d): Dir, Seq = %v, %d", tc.dir, tc.seq, n.Dir(), n.Seq())
		}
		tail := n.Tail()
		if got, want := hex.EncodeToString(tail[:]), tc.want[8:]; got != want {
			t.Errorf("NewNonce(%v, %d).Tail() = %s, want %s", tc.dir, tc.seq, got, want)
		}
		if back := NonceFromTail(tail); back != n {
			t.Errorf("NonceFromTail(%x) = %x, want %x", tail, back, n)
		}
	}
}

func TestNonceMisuse(t *testing.T) {
	mustPanic(t, "MaxSeq", func() { NewNonce(ToServer, MaxSeq+1) })
	mustPanic(t, "MaxSeq", func() { NewNonce(ToClient, 1<<64-1) })
	mustPanic(t, "direction", func() { NewNonce(2, 0) })
}

// TestNonceUnique is mosh's nonce-incr test in small: consecutive sequence
// numbers in both directions never repeat a nonce.
func TestNonceUnique(t *testing.T) {
	seen := make(map[Nonce]bool)
	for _, base := range []uint64{0, 1 << 32, MaxSeq - 1000} {
		for seq := base; seq <= base+1000; seq++ {
			for _, dir := range []Direction{ToServer, ToClient} {
				n := NewNonce(dir, seq)
				if seen[n] {
					t.Fatalf("NewNonce(%v, %d) repeats %x", dir, seq, n)
				}
				seen[n] = true
			}
		}
	}
}

func TestDirectionString(t *testing.T) {
	for d, want := range map[Direction]string{ToServer: "to-server", ToClient: "to-client", 7: "Direction(7)"} {
		if got := d.String(); got != want {
			t.Errorf("Direction(%d).String() = %q, want %q", uint8(d), got, want)
		}
	}
}

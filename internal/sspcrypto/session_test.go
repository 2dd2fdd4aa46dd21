package sspcrypto

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// The worked example of docs/protocol.md section 13: a client→server datagram
// with sequence number 42, accepted by a real mosh-server.
const (
	exampleKeyText = "AAECAwQFBgcICQoLDA0ODw"
	// exampleInstruction is the protobuf Instruction (state 3→4, keys
	// "ls\r", ack 7, throwaway 3, empty chaff).
	exampleInstruction = "0802100318042007280332090a07120522036c730d3a00"
	// exampleZlib is exampleInstruction compressed with zlib level 6.
	exampleZlib = "789ce360126096605160d76036e2e46217625562ce29e6b562000013a0023a"
	// exampleFragmentHeader is fragment id 5, fragment 0, final.
	exampleFragmentHeader = "0000000000000005" + "8000"
	// exampleTimestamps are the sender timestamp 1000 and no reply.
	exampleTimestamps = "03e8" + "ffff"
	exampleDatagram   = "000000000000002a" +
		"b63b5c8b0136abd5ae8554dfffbb910a84df7239a4d46d11" +
		"7120be5c61b102a14c1ba927d88bd364ae279841a563f010366dddb16ab407a2" +
		"c5fea7c51c"
)

func exampleSession(t testing.TB) *Session {
	t.Helper()
	k, err := ParseKey(exampleKeyText)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestWorkedExample(t *testing.T) {
	// Check the example's pieces against each other before using them.
	zr, err := zlib.NewReader(bytes.NewReader(mustHex(t, exampleZlib)))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := io.ReadAll(zr)
	if err != nil || hex.EncodeToString(inst) != exampleInstruction {
		t.Fatalf("the example's zlib inflates to %x, %v; want %s", inst, err, exampleInstruction)
	}
	plaintext := mustHex(t, exampleTimestamps+exampleFragmentHeader+exampleZlib)
	datagram := mustHex(t, exampleDatagram)
	if len(datagram) != 69 || len(datagram) != len(plaintext)+Overhead {
		t.Fatalf("datagram is %d bytes, plaintext %d; want 69 = 45 + %d", len(datagram), len(plaintext), Overhead)
	}
	s := exampleSession(t)

	dir, seq, got, err := s.Open(nil, datagram)
	if err != nil || dir != ToServer || seq != 42 || !bytes.Equal(got, plaintext) {
		t.Errorf("Open(example) = %v, %d, %x, %v; want to-server, 42, %x", dir, seq, got, err, plaintext)
	}
	sealed, err := s.Seal(nil, ToServer, 42, plaintext)
	if err != nil || !bytes.Equal(sealed, datagram) {
		t.Errorf("Seal(to-server, 42, example) = %x, %v; want %x", sealed, err, datagram)
	}
	// The same plaintext sent by the server carries the direction bit.
	toClient, err := s.Seal(nil, ToClient, 42, plaintext)
	if err != nil || hex.EncodeToString(toClient[:NonceTailSize]) != "800000000000002a" {
		t.Errorf("Seal(to-client, 42) starts %x, %v; want 800000000000002a", toClient[:NonceTailSize], err)
	}
	if bytes.Equal(toClient[NonceTailSize:], datagram[NonceTailSize:]) {
		t.Error("the two directions produced the same ciphertext")
	}
}

func TestSessionRoundTrip(t *testing.T) {
	s := exampleSession(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dir := range []Direction{ToServer, ToClient} {
		for _, seq := range []uint64{0, 1, 63, 64, 1 << 32, MaxSeq} {
			for _, n := range []int{0, 1, 4, 15, 16, 17, 1228, 2024} {
				pt := randBytes(rng, n)
				d, err := s.Seal([]byte("hdr"), dir, seq, pt)
				if err != nil || len(d) != 3+n+Overhead || string(d[:3]) != "hdr" {
					t.Fatalf("Seal(%v, %d, %d bytes) = %d bytes, %v", dir, seq, n, len(d), err)
				}
				gotDir, gotSeq, got, err := s.Open([]byte("x"), d[3:])
				if err != nil || gotDir != dir || gotSeq != seq || string(got[:1]) != "x" || !bytes.Equal(got[1:], pt) {
					t.Fatalf("Open(Seal(%v, %d, %d bytes)) = %v, %d, %d bytes, %v", dir, seq, n, gotDir, gotSeq, len(got), err)
				}
			}
		}
	}
}

func TestSessionInPlace(t *testing.T) {
	s := exampleSession(t)
	plaintext := mustHex(t, exampleTimestamps+exampleFragmentHeader+exampleZlib)
	buf := make([]byte, NonceTailSize+len(plaintext), 2048)
	copy(buf[NonceTailSize:], plaintext)
	d, err := s.Seal(buf[:0], ToServer, 42, buf[NonceTailSize:])
	if err != nil || hex.EncodeToString(d) != exampleDatagram || &d[0] != &buf[0] {
		t.Fatalf("in-place Seal = %x, %v; want %s in the same buffer", d, err, exampleDatagram)
	}
	_, seq, pt, err := s.Open(d[NonceTailSize:NonceTailSize], d)
	if err != nil || seq != 42 || !bytes.Equal(pt, plaintext) || &pt[0] != &buf[NonceTailSize] {
		t.Fatalf("in-place Open = %d, %x, %v; want 42, %x in the same buffer", seq, pt, err, plaintext)
	}
	// A short plaintext lying where the nonce tail goes.
	buf = append(buf[:0], "tiny"...)
	d, err = s.Seal(buf[:0], ToClient, 7, buf[:4])
	if err != nil {
		t.Fatal(err)
	}
	if _, _, pt, err := s.Open(nil, d); err != nil || string(pt) != "tiny" {
		t.Fatalf("Open(Seal over its own plaintext) = %q, %v; want \"tiny\"", pt, err)
	}
}

func TestSessionOpenRejects(t *testing.T) {
	s := exampleSession(t)
	datagram := mustHex(t, exampleDatagram)
	other, err := NewSession(mustKey(t, "Dw4NDAsKCQgHBgUEAwIBAA"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, s *Session, d []byte) {
		t.Helper()
		dir, seq, pt, err := s.Open(nil, d)
		if err != ErrOpen || dir != 0 || seq != 0 || pt != nil {
			t.Errorf("%s: Open = %v, %d, %x, %v; want 0, 0, nil, %v", name, dir, seq, pt, err, ErrOpen)
		}
	}
	for n := range Overhead + 1 {
		check(fmt.Sprintf("first %d bytes", n), s, datagram[:n])
	}
	check("truncated by one", s, datagram[:len(datagram)-1])
	check("extended by one", s, append(bytes.Clone(datagram), 0))
	check("other key", other, datagram)
	for bit := range len(datagram) * 8 {
		d := bytes.Clone(datagram)
		d[bit/8] ^= 1 << (bit % 8)
		check(fmt.Sprintf("bit %d flipped", bit), s, d)
	}
}

func mustKey(t testing.TB, text string) Key {
	t.Helper()
	k, err := ParseKey(text)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSessionSeqExhausted(t *testing.T) {
	s := exampleSession(t)
	dst := []byte("keep")
	for _, seq := range []uint64{MaxSeq + 1, 1<<64 - 1} {
		got, err := s.Seal(dst, ToServer, seq, []byte("x"))
		if err != ErrSeqExhausted || string(got) != "keep" {
			t.Errorf("Seal(seq %d) = %q, %v; want %q, %v", seq, got, err, "keep", ErrSeqExhausted)
		}
	}
	if s.SealedBlocks() != 0 {
		t.Errorf("refused Seals counted %d blocks", s.SealedBlocks())
	}
}

func TestSessionBlockLimit(t *testing.T) {
	s := exampleSession(t)
	for _, n := range []int{0, 1, 16, 17, 33} {
		before := s.SealedBlocks()
		if _, err := s.Seal(nil, ToClient, 1, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
		if got, want := s.SealedBlocks()-before, uint64((n+15)/16); got != want {
			t.Errorf("sealing %d bytes counted %d blocks, want %d", n, got, want)
		}
	}

	s.blocks.Store(BlockLimit - 3)
	if _, err := s.Seal(nil, ToClient, 1, make([]byte, 32)); err != nil {
		t.Fatalf("Seal of 2 blocks at limit-3: %v", err)
	}
	dst := []byte("keep")
	for _, n := range []int{1, 16, 2000} {
		if got, err := s.Seal(dst, ToClient, 2, make([]byte, n)); err != ErrSeqExhausted || string(got) != "keep" {
			t.Errorf("Seal(%d bytes) at limit-1 = %q, %v; want %q, %v", n, got, err, "keep", ErrSeqExhausted)
		}
	}
	if _, err := s.Seal(nil, ToClient, 3, nil); err != nil {
		t.Errorf("Seal(empty) at limit-1: %v; an empty plaintext adds no block", err)
	}
	if got := s.SealedBlocks(); got != BlockLimit-1 {
		t.Errorf("SealedBlocks = %d, want %d", got, uint64(BlockLimit-1))
	}
}

func TestSessionMisuse(t *testing.T) {
	if _, err := NewSession(Key{}); err == nil {
		t.Error("NewSession(zero key) succeeded")
	}
	s := exampleSession(t)
	mustPanic(t, "direction", func() { s.Seal(nil, 2, 0, nil) })
	buf := make([]byte, 64)
	mustPanic(t, "overlap", func() { s.Seal(buf[:0], ToServer, 0, buf[1:20]) })
	d, _ := s.Seal(nil, ToServer, 0, make([]byte, 30))
	copy(buf, d)
	mustPanic(t, "overlap", func() { s.Open(buf[:0], buf[:len(d)]) })
}

// TestSessionConcurrent seals and opens from several goroutines sharing a
// Session, each with its own sequence numbers; run with -race.
func TestSessionConcurrent(t *testing.T) {
	s := exampleSession(t)
	const perG = 300
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			buf := make([]byte, 0, 2048)
			out := make([]byte, 0, 2048)
			for i := range uint64(perG) {
				seq := uint64(g)*perG + i
				pt := fmt.Appendf(nil, "goroutine %d message %d %s", g, i, strings.Repeat("x", int(i)))
				d, err := s.Seal(buf[:0], ToClient, seq, pt)
				if err != nil {
					t.Error(err)
					return
				}
				_, gotSeq, got, err := s.Open(out[:0], d)
				if err != nil || gotSeq != seq || !bytes.Equal(got, pt) {
					t.Errorf("goroutine %d: Open = %d, %v", g, gotSeq, err)
					return
				}
			}
		})
	}
	wg.Wait()
	var want uint64
	for g := range 4 {
		for i := range perG {
			want += blocksIn(len(fmt.Sprintf("goroutine %d message %d ", g, i)) + i)
		}
	}
	if got := s.SealedBlocks(); got != want {
		t.Errorf("SealedBlocks = %d, want %d", got, want)
	}
}

func TestSessionAllocs(t *testing.T) {
	s := exampleSession(t)
	pt := make([]byte, 1228)
	buf := make([]byte, 0, 2048)
	out := make([]byte, 0, 2048)
	d, _ := s.Seal(nil, ToServer, 1, pt)
	bad := bytes.Clone(d)
	bad[30] ^= 1
	cases := map[string]func(){
		"Seal":        func() { s.Seal(buf[:0], ToServer, 1, pt) },
		"Open":        func() { s.Open(out[:0], d) },
		"OpenFailure": func() { s.Open(out[:0], bad) },
		"OpenShort":   func() { s.Open(out[:0], d[:10]) },
	}
	for name, f := range cases {
		if allocs := testing.AllocsPerRun(100, f); allocs != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, allocs)
		}
	}
}

// FuzzOpen feeds arbitrary datagrams to Session.Open: it must never panic,
// must fail with ErrOpen, and whatever it accepts must seal back to the
// same bytes.
func FuzzOpen(f *testing.F) {
	s := exampleSession(f)
	datagram := mustHex(f, exampleDatagram)
	f.Add(datagram)
	f.Add(datagram[:Overhead])
	f.Add(datagram[:Overhead-1])
	f.Add([]byte{})
	for _, dir := range []Direction{ToServer, ToClient} {
		for _, n := range []int{0, 4, 16, 100} {
			d, err := s.Seal(nil, dir, uint64(n)*1000+uint64(dir), bytes.Repeat([]byte{byte(n)}, n))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(d)
		}
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		in := bytes.Clone(d)
		dir, seq, pt, err := s.Open(nil, d)
		if !bytes.Equal(d, in) {
			t.Fatal("Open modified its input")
		}
		// The same again, in place.
		k := min(len(in), NonceTailSize)
		_, _, ptInPlace, errInPlace := s.Open(in[k:k], in)
		if (err == nil) != (errInPlace == nil) || !bytes.Equal(pt, ptInPlace) {
			t.Fatalf("Open = %x, %v but in place = %x, %v", pt, err, ptInPlace, errInPlace)
		}
		if err != nil {
			if err != ErrOpen {
				t.Fatalf("Open error = %v, want %v", err, ErrOpen)
			}
			return
		}
		resealed, err := s.Seal(nil, dir, seq, pt)
		if err != nil || !bytes.Equal(resealed, d) {
			t.Fatalf("Seal(Open(%x)) = %x, %v", d, resealed, err)
		}
	})
}

func ExampleSession() {
	key, err := ParseKey("AAECAwQFBgcICQoLDA0ODw") // from MOSH_KEY or the MOSH CONNECT line
	if err != nil {
		panic(err)
	}
	fmt.Println(key) // never prints the secret
	client, _ := NewSession(key)
	server, _ := NewSession(key)

	datagram, err := client.Seal(nil, ToServer, 42, []byte("hello"))
	if err != nil {
		panic(err) // ErrSeqExhausted: the session must end
	}
	fmt.Printf("%d bytes, nonce tail %x\n", len(datagram), datagram[:NonceTailSize])

	dir, seq, plaintext, err := server.Open(nil, datagram)
	if err != nil || dir != ToServer { // a server drops datagrams not sent to it
		return
	}
	fmt.Printf("%v seq %d: %s\n", dir, seq, plaintext)
	// Output:
	// crypto.Key(redacted)
	// 29 bytes, nonce tail 000000000000002a
	// to-server seq 42: hello
}

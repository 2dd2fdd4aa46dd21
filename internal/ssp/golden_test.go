package ssp

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// The worked example of docs/protocol.md section 13: key 00 01 .. 0F, a
// client datagram with sequence number 42, timestamp 1000 and no reply,
// carrying instruction id 5 (goldenInstruction, compressed by C zlib).
const (
	goldenKey         = "AAECAwQFBgcICQoLDA0ODw"
	goldenDatagramHex = "000000000000002a" +
		"b63b5c8b0136abd5ae8554dfffbb910a84df7239a4d46d11" +
		"7120be5c61b102a14c1ba927d88bd364ae279841a563f010366dddb16ab407a2" +
		"c5fea7c51c"
)

func goldenSession(t *testing.T) *sspcrypto.Session {
	t.Helper()
	key, err := sspcrypto.ParseKey(goldenKey)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sspcrypto.NewSession(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGoldenDatagramSeal builds the example datagram through gosh's
// sealing path: Fragment.AppendBinary, then link.seal with the sequence
// counter at 42 and the clock at 1000 ms. Go's zlib output differs from C
// zlib's, so the spec's zlib bytes are the input.
func TestGoldenDatagramSeal(t *testing.T) {
	f := Fragment{ID: 5, Final: true, Body: mustHex(t, goldenZlibHex)}
	payload, _ := f.AppendBinary(nil)
	epoch := time.Unix(5000, 0)
	l := link{sess: goldenSession(t), dir: sspcrypto.ToServer, clock: msClock{epoch}, seq: 42}
	got, err := l.seal([]byte("keep"), payload, epoch.Add(1000*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if string(got[:4]) != "keep" {
		t.Fatalf("seal clobbered dst")
	}
	if hex.EncodeToString(got[4:]) != goldenDatagramHex {
		t.Errorf("sealed datagram\n got %x\nwant %s", got[4:], goldenDatagramHex)
	}
	if len(got[4:]) != 69 || l.seq != 43 {
		t.Errorf("datagram length %d, next seq %d; want 69, 43", len(got[4:]), l.seq)
	}
}

// TestGoldenDatagramOpen takes the example datagram apart layer by layer
// and through a server Transport.
func TestGoldenDatagramOpen(t *testing.T) {
	dgram := mustHex(t, goldenDatagramHex)
	epoch := time.Unix(5000, 0)
	l := link{sess: goldenSession(t), dir: sspcrypto.ToClient, server: true, clock: msClock{epoch}, logf: t.Logf}
	from := netip.MustParseAddrPort("127.0.0.1:4000")
	var st Stats
	payload, _, derr := l.open(epoch.Add(1500*time.Millisecond), dgram, from, &st)
	if derr != nil {
		t.Fatalf("open: %v", derr)
	}
	if !l.haveSaved || l.savedTS != 1000 || l.expected != 43 || l.remote != from {
		t.Errorf("after open: saved ts %d (%v), expected seq %d, remote %v", l.savedTS, l.haveSaved, l.expected, l.remote)
	}
	if hex.EncodeToString(payload) != goldenFragmentHex {
		t.Fatalf("payload %x, want %s", payload, goldenFragmentHex)
	}
	f, err := ParseFragment(payload)
	if err != nil || f.ID != 5 || f.Num != 0 || !f.Final {
		t.Fatalf("fragment %+v, %v", f, err)
	}
	var a Assembly
	z, complete, err := a.Add(f, epoch)
	if !complete || err != nil {
		t.Fatalf("assembly: %v, %v", complete, err)
	}
	var c compressor
	raw, err := c.inflate(nil, z, MaxInflated)
	if err != nil || hex.EncodeToString(raw) != goldenInstructionHex {
		t.Fatalf("inflated %x, %v", raw, err)
	}
	in, err := ParseInstruction(raw)
	if err != nil || !instructionsEqual(&in, &goldenInstruction) {
		t.Fatalf("instruction %+v, %v", in, err)
	}
	// The reply reflects the timestamp advanced by the 200 ms we held it.
	out, err := l.seal(nil, []byte("0123456789"), epoch.Add(1700*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, seq, pt, err := goldenSession(t).Open(nil, out)
	if err != nil || seq != 0 || !bytes.Equal(pt[:4], []byte{0x06, 0xa4, 0x04, 0xb0}) {
		t.Errorf("reply plaintext %x (seq %d, %v); want timestamp 1700 (06a4), reply 1200 (04b0)", pt[:4], seq, err)
	}
}

func TestGoldenDatagramThroughTransport(t *testing.T) {
	key, _ := sspcrypto.ParseKey(goldenKey)
	now := time.Unix(5000, 0)
	tr, err := NewTransport(Config{Key: key, Server: true}, newTestLog(), newTestLog(), now)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Receive(now, mustHex(t, goldenDatagramHex), netip.MustParseAddrPort("127.0.0.1:4000")); err != nil {
		t.Fatalf("Receive: %v", err)
	}
	st := tr.Stats()
	// The example's diff starts from state 3, which this fresh server does
	// not hold: decoded, acked nothing, applied nothing.
	if st.Instructions != 1 || st.UnknownBase != 1 || st.TotalDropped() != 0 {
		t.Errorf("stats %+v", st)
	}
	if addr, ok := tr.RemoteAddr(); !ok || addr.Port() != 4000 {
		t.Errorf("RemoteAddr = %v, %v", addr, ok)
	}
}

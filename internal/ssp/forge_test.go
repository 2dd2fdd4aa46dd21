package ssp_test

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// forger builds datagrams by hand from the exported codecs, layer by
// layer, so tests can send what a broken or hostile peer would.
type forger struct {
	t    testing.TB
	sess *sspcrypto.Session
	dir  sspcrypto.Direction
	seq  uint64
	id   uint64
}

func newForger(t testing.TB, key sspcrypto.Key, dir sspcrypto.Direction, seq uint64) *forger {
	sess, err := sspcrypto.NewSession(key)
	if err != nil {
		t.Fatal(err)
	}
	return &forger{t: t, sess: sess, dir: dir, seq: seq, id: 1 << 40}
}

// plaintext seals an arbitrary plaintext.
func (f *forger) plaintext(pt []byte) []byte {
	d, err := f.sess.Seal(nil, f.dir, f.seq, pt)
	if err != nil {
		f.t.Fatal(err)
	}
	f.seq++
	return d
}

// fragment seals one fragment with no timestamps.
func (f *forger) fragment(fr ssp.Fragment) []byte {
	payload, err := fr.AppendBinary(nil)
	if err != nil {
		f.t.Fatal(err)
	}
	p := ssp.Packet{Timestamp: ssp.NoTimestamp, TimestampReply: ssp.NoTimestamp, Payload: payload}
	pt, _ := p.AppendBinary(nil)
	return f.plaintext(pt)
}

// compressed seals a compressed payload as fragments of at most 1000
// bytes under a fresh id.
func (f *forger) compressed(z []byte) [][]byte {
	f.id++
	var out [][]byte
	for num := 0; ; num++ {
		body := z[:min(1000, len(z))]
		z = z[len(body):]
		out = append(out, f.fragment(ssp.Fragment{ID: f.id, Num: uint16(num), Final: len(z) == 0, Body: body}))
		if len(z) == 0 {
			return out
		}
	}
}

// raw seals an uncompressed instruction encoding.
func (f *forger) raw(enc []byte) [][]byte { return f.compressed(zlibBytes(enc)) }

// instruction seals an instruction.
func (f *forger) instruction(in ssp.Instruction) [][]byte {
	enc, _ := in.AppendBinary(nil)
	return f.raw(enc)
}

func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// decode opens a single-fragment datagram and decodes its instruction.
func decode(t testing.TB, key sspcrypto.Key, d []byte) (ssp.Packet, ssp.Instruction) {
	t.Helper()
	sess, _ := sspcrypto.NewSession(key)
	_, _, pt, err := sess.Open(nil, d)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	p, err := ssp.ParsePacket(pt)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := ssp.ParseFragment(p.Payload)
	if err != nil || fr.Num != 0 || !fr.Final {
		t.Fatalf("fragment %+v, %v: want a single fragment", fr, err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(fr.Body))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	in, err := ssp.ParseInstruction(raw)
	if err != nil {
		t.Fatal(err)
	}
	return p, in
}

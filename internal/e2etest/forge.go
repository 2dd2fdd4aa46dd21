package e2etest

import (
	"bytes"
	"compress/zlib"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// Forger seals SSP datagrams with a session key in one direction, with
// its own sequence numbers and fragment ids: what a peer holding the key
// (a compromised server or client) can send. It is not safe for
// concurrent use.
type Forger struct {
	sess *sspcrypto.Session
	dir  sspcrypto.Direction
	seq  uint64
	id   uint64
}

// NewForger returns a forger sealing in direction dir.
func NewForger(key sspcrypto.Key, dir sspcrypto.Direction) (*Forger, error) {
	sess, err := sspcrypto.NewSession(key)
	if err != nil {
		return nil, err
	}
	return &Forger{sess: sess, dir: dir, id: 1 << 20}, nil
}

// Plaintext seals an arbitrary plaintext as the next datagram.
func (f *Forger) Plaintext(pt []byte) []byte {
	d, err := f.sess.Seal(nil, f.dir, f.seq, pt)
	if err != nil {
		panic("e2etest: " + err.Error()) // 2^63 datagrams: not in a test
	}
	f.seq++
	return d
}

// Fragment seals one fragment, with no timestamps.
func (f *Forger) Fragment(fr ssp.Fragment) []byte {
	payload, err := fr.AppendBinary(nil)
	if err != nil {
		panic("e2etest: " + err.Error())
	}
	p := ssp.Packet{Timestamp: ssp.NoTimestamp, TimestampReply: ssp.NoTimestamp, Payload: payload}
	pt, _ := p.AppendBinary(nil)
	return f.Plaintext(pt)
}

// Compressed seals a compressed instruction under a new id, as fragments
// of 1000 bytes.
func (f *Forger) Compressed(z []byte) [][]byte {
	f.id++
	var out [][]byte
	for num := 0; ; num++ {
		body := z[:min(1000, len(z))]
		z = z[len(body):]
		out = append(out, f.Fragment(ssp.Fragment{ID: f.id, Num: uint16(num), Final: len(z) == 0, Body: body}))
		if len(z) == 0 {
			return out
		}
	}
}

// NextID returns a new fragment id, for hand-made fragment sets.
func (f *Forger) NextID() uint64 {
	f.id++
	return f.id
}

// Instruction seals an instruction (the protocol version filled in).
func (f *Forger) Instruction(in ssp.Instruction) [][]byte {
	in.ProtocolVersion = ssp.ProtocolVersion
	enc, _ := in.AppendBinary(nil)
	return f.Compressed(Deflate(enc))
}

// Deflate returns the zlib encoding of b.
func Deflate(b []byte) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

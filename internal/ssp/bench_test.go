package ssp

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// typicalHostDiff is a 40-byte HostMessage as a server sends while
// someone types: an echo ack and a few characters of output with a
// cursor show/hide.
var typicalHostDiff = []byte("\x0a\x04\x3a\x02\x40\x2a" + // echoack 42
	"\x0a\x1e\x12\x1c\x22\x1a" + "\x1b[?25lls -l\r\n\x1b[?25h\x1b[0m") // hostbytes

func benchTransport(b *testing.B, server bool) *Transport[*ssptest.Log, *ssptest.Log] {
	key, _ := sspcrypto.ParseKey(goldenKey)
	cfg := Config{Key: key, Server: server, Rand: rand.NewChaCha8([32]byte{7})}
	if !server {
		cfg.Remote = netip.MustParseAddrPort("127.0.0.1:60001")
	}
	tr, err := NewTransport(cfg, ssptest.NewLog(), ssptest.NewLog(), t0)
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkSealFrame measures the send path for one instruction: chaff,
// protobuf encoding, zlib, fragmenting and sealing.
func BenchmarkSealFrame(b *testing.B) {
	tr := benchTransport(b, true)
	in := Instruction{ProtocolVersion: 2, OldNum: 41, NewNum: 42, AckNum: 17, ThrowawayNum: 40, Diff: typicalHostDiff}
	b.ReportAllocs()
	b.SetBytes(int64(len(typicalHostDiff)))
	for b.Loop() {
		if _, err := tr.send(t0, &in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenDecode measures the receive path for one datagram up to a
// decoded instruction: authentication, timestamps, reassembly, inflating
// and protobuf decoding.
func BenchmarkOpenDecode(b *testing.B) {
	srv := benchTransport(b, true)
	srv.link.hasRemote = true
	in := Instruction{ProtocolVersion: 2, OldNum: 41, NewNum: 42, AckNum: 17, ThrowawayNum: 40, Diff: typicalHostDiff}
	out, _ := srv.send(t0, &in)
	dgram := append([]byte(nil), out[0]...)
	cli := benchTransport(b, false)
	from := netip.MustParseAddrPort("127.0.0.1:60001")
	b.ReportAllocs()
	b.SetBytes(int64(len(dgram)))
	for b.Loop() {
		cli.link.expected = 0 // take the "newest datagram" path every time
		payload, _, derr := cli.link.open(t0, dgram, from, &cli.stats)
		if derr != nil {
			b.Fatal(derr)
		}
		f, _ := ParseFragment(payload)
		z, complete, err := cli.asm.Add(f, t0)
		if err != nil || !complete {
			b.Fatal(err)
		}
		if cli.inflated, err = cli.comp.inflate(cli.inflated[:0], z, MaxInflated); err != nil {
			b.Fatal(err)
		}
		if _, err := ParseInstruction(cli.inflated); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFragmentReassemble splits a compressed instruction into IPv4
// fragments and reassembles them.
func BenchmarkFragmentReassemble(b *testing.B) {
	for _, size := range []int{100, 1214, 10000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			payload := make([]byte, size)
			var fr Fragmenter
			var a Assembly
			var frags []Fragment
			var wire [][]byte
			in := Instruction{}
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				in.NewNum++
				frags, _ = fr.Split(frags[:0], &in, payload, MaxDatagramIPv4-sspcrypto.Overhead-TimestampSize-FragmentHeaderSize)
				for i := range frags {
					if i == len(wire) {
						wire = append(wire, nil)
					}
					wire[i], _ = frags[i].AppendBinary(wire[i][:0])
				}
				for _, w := range wire[:len(frags)] {
					f, _ := ParseFragment(w)
					if _, _, err := a.Add(f, t0); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkTransportSendReceive measures a whole state update through
// the exported API: the server's state changes by a 40-byte diff, Tick
// produces the datagram, and the client's Receive applies it.
func BenchmarkTransportSendReceive(b *testing.B) {
	srv := benchTransport(b, true)
	cli := benchTransport(b, false)
	now := t0
	from := netip.MustParseAddrPort("127.0.0.1:60001")
	// Attach the server: the client's first datagram.
	out, _ := cli.Tick(now)
	srv.Receive(now, out[0], netip.MustParseAddrPort("127.0.0.1:40000"))
	chunk := []byte("0123456789012345678901234567890123456789")
	b.ReportAllocs()
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		now = now.Add(SendIntervalMax)
		srv.Current().Append(chunk)
		out, err := srv.Tick(now) // notices the change
		if len(out) == 0 {
			now = srv.NextDeadline()
			out, err = srv.Tick(now)
		}
		if err != nil || len(out) != 1 {
			b.Fatalf("Tick: %d datagrams, %v", len(out), err)
		}
		if err := cli.Receive(now, out[0], from); err != nil || cli.RemoteNum() != srv.SentStateLast() {
			b.Fatalf("Receive: %v (remote state %d, want %d)", err, cli.RemoteNum(), srv.SentStateLast())
		}
		// Keep the sender's history short and the client attached, as the
		// client's acks would.
		srv.sender.processAck(srv.SentStateLast())
		srv.link.lastHeard = now
		cli.RemoteDiff() // the receiving loop consumes the new bytes
	}
}

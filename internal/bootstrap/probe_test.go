package bootstrap

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/sspcrypto"
	"google.golang.org/protobuf/encoding/protowire"
)

// probeServer proves that a server listens on addr:port with key: it sends
// one client instruction (state 0 -> 1, empty diff) sealed with the key, as
// mosh-client would (docs/protocol.md sections 3.1, 4, 5, 6.1), and requires an
// authentic datagram in the to-client direction back. Stock mosh-server
// answers a new client state with an ack within its ack delay.
func probeServer(t testing.TB, addr netip.Addr, port uint16, key sspcrypto.Key) {
	t.Helper()
	sess, err := sspcrypto.NewSession(key)
	if err != nil {
		t.Fatalf("sspcrypto.NewSession: %v", err)
	}
	conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, port)))
	if err != nil {
		t.Fatalf("dial UDP %v:%d: %v", addr, port, err)
	}
	defer conn.Close()
	buf := make([]byte, 2048)
	for seq := uint64(0); seq < 5; seq++ {
		dgram, err := sess.Seal(nil, sspcrypto.ToServer, seq, probePlaintext(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write(dgram); err != nil {
			t.Fatalf("send to %v:%d: %v", addr, port, err)
		}
		conn.SetReadDeadline(time.Now().Add(time.Second))
		n, err := conn.Read(buf)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			continue // resend, as the real client would
		}
		if err != nil {
			t.Fatalf("reading from %v:%d: %v", addr, port, err)
		}
		dir, _, _, err := sess.Open(nil, buf[:n])
		if err != nil {
			t.Fatalf("the server's reply does not open with the key from MOSH CONNECT: %v", err)
		}
		if dir != sspcrypto.ToClient {
			t.Fatalf("reply direction = %v, want %v", dir, sspcrypto.ToClient)
		}
		return
	}
	t.Fatalf("no authentic reply from %v:%d within 5 tries", addr, port)
}

// probePlaintext is timestamps + one final fragment holding the zlib
// compressed instruction {protocol 2, old 0, new 1, ack 0, throwaway 0,
// empty diff, empty chaff}.
func probePlaintext(t testing.TB) []byte {
	var inst []byte
	for i, v := range []uint64{2, 0, 1, 0, 0} {
		inst = protowire.AppendTag(inst, protowire.Number(i+1), protowire.VarintType)
		inst = protowire.AppendVarint(inst, v)
	}
	for _, n := range []protowire.Number{6, 7} {
		inst = protowire.AppendTag(inst, n, protowire.BytesType)
		inst = protowire.AppendBytes(inst, nil)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(inst)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := binary.BigEndian.AppendUint16(nil, uint16(time.Now().UnixMilli()%0xFFFF))
	p = binary.BigEndian.AppendUint16(p, 0xFFFF) // no timestamp reply
	p = binary.BigEndian.AppendUint64(p, 1)      // instruction id
	p = binary.BigEndian.AppendUint16(p, 0x8000) // final fragment 0
	return append(p, z.Bytes()...)
}

// udpListening reports whether some socket is bound to UDP port (from
// /proc/net/udp and udp6), a weaker check used in benchmarks.
func udpListening(port uint16) bool {
	for _, f := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if bytes.Contains(b, []byte(":"+hex4(port)+" ")) {
			return true
		}
	}
	return false
}

func hex4(v uint16) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[v>>12], digits[v>>8&15], digits[v>>4&15], digits[v&15]})
}

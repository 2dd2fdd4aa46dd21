package e2etest

import (
	"net"
	"net/netip"
	"testing"
	"time"
)

func TestRelay(t *testing.T) {
	server, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	r := NewRelay(t, server.LocalAddr().(*net.UDPAddr).AddrPort())
	client, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(r.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	buf := make([]byte, 100)

	echo := func(msg string) netip.AddrPort {
		t.Helper()
		if _, err := client.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		server.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, from, err := server.ReadFromUDPAddrPort(buf)
		if err != nil || string(buf[:n]) != msg {
			t.Fatalf("server read %q, %v; want %q", buf[:n], err, msg)
		}
		if _, err := server.WriteToUDPAddrPort([]byte("re:"+msg), from); err != nil {
			t.Fatal(err)
		}
		client.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err = client.Read(buf)
		if err != nil || string(buf[:n]) != "re:"+msg {
			t.Fatalf("client read %q, %v", buf[:n], err)
		}
		return from
	}
	a := echo("one")
	if err := r.Rebind(); err != nil {
		t.Fatal(err)
	}
	b := echo("two")
	if a == b || b.Port() != r.BackPort() {
		t.Errorf("after Rebind the server saw %v then %v (back port %d); want a new source port", a, b, r.BackPort())
	}
	r.SetDelay(100*time.Millisecond, 0)
	start := time.Now()
	echo("three")
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("delayed round trip took %v, want ≥ 100ms", d)
	}
	r.SetDelay(0, 0)
	r.SetDrop(true)
	client.Write([]byte("lost"))
	server.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, _, err := server.ReadFromUDPAddrPort(buf); err == nil {
		t.Error("a datagram crossed the relay while dropping")
	}
	r.SetDrop(false)
	echo("four")
}

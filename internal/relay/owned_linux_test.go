package relay

import (
	"context"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// otherUsersSocket opens a UDP socket on 127.0.0.1 that belongs to uid
// 65534 (a socket is its creator's file system uid's, which a thread of
// root's can set for itself alone). It needs root.
func otherUsersSocket(t *testing.T) *net.UDPConn {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("a socket of another user's needs root to make")
	}
	type result struct {
		c   *net.UDPConn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// The thread is never unlocked: it ends with this goroutine,
		// with its file system uid.
		runtime.LockOSThread()
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETFSUID, 65534, 0, 0); e != 0 {
			ch <- result{nil, e}
			return
		}
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		ch <- result{c, err}
	}()
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(func() { r.c.Close() })
	return r.c
}

// TestServeOwnedPorts: the zero Server relays to a port of a socket of
// this user's, and refuses a port nobody holds and one of another
// user's, before it opens a socket, with one line.
func TestServeOwnedPorts(t *testing.T) {
	goroutineLeakCheck(t)
	echo := startEcho(t, 0)
	sv := startServe(t, context.Background(), &Server{}, echo.addr())
	if got := sv.roundTrip(t, []byte("mine")); string(got) != "mine" {
		t.Errorf("echo = %q", got)
	}
	sv.in.Close()
	if err := wait(t, sv.result, "Serve"); err != nil {
		t.Errorf("Serve = %v", err)
	}

	probe, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	free := probe.LocalAddr().(*net.UDPAddr).AddrPort()
	probe.Close()
	targets := []netip.AddrPort{free}
	if os.Getuid() == 0 {
		targets = append(targets, otherUsersSocket(t).LocalAddr().(*net.UDPAddr).AddrPort())
	} else {
		t.Log("not root: the port of another user's socket is not tried")
	}
	for _, target := range targets {
		err := Serve(context.Background(), strings.NewReader(""), io.Discard, target)
		want := "relay: port " + strconv.Itoa(int(target.Port())) + " on 127.0.0.1 is not a port of yours"
		if err == nil || err.Error() != want {
			t.Errorf("Serve to %v = %v, want %q", target, err, want)
		}
		t.Logf("refused: %v", err)
	}
}

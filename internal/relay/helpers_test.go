package relay

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// testTimeout bounds every wait of these tests.
const testTimeout = 10 * time.Second

// goroutineLeakCheck fails the test if a goroutine of a Server or a Conn
// is still running when it ends (after its own cleanups, which run
// first).
func goroutineLeakCheck(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		marks := [][]byte{[]byte("relay.forward"), []byte("relay.(*Conn).read("), []byte("relay.(*Conn).write(")}
		buf := make([]byte, 1<<20)
		leaked := func() bool {
			n := runtime.Stack(buf, true)
			for _, m := range marks {
				if bytes.Contains(buf[:n], m) {
					return true
				}
			}
			return false
		}
		for deadline := time.Now().Add(testTimeout); time.Now().Before(deadline); {
			if !leaked() {
				return
			}
			runtime.Gosched()
		}
		n := runtime.Stack(buf, true)
		t.Errorf("relay goroutines leaked:\n%s", buf[:n])
	})
}

// echoServer is a UDP server on 127.0.0.1 that sends every datagram back
// to its sender.
type echoServer struct {
	conn *net.UDPConn
	wg   sync.WaitGroup
}

// startEcho starts an echo server on port (0: any), stopped when the test
// ends.
func startEcho(t *testing.T, port uint16) *echoServer {
	t.Helper()
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)))
	if err != nil {
		t.Fatal(err)
	}
	e := &echoServer{conn: conn}
	e.wg.Add(1)
	go e.run()
	t.Cleanup(func() {
		conn.Close()
		e.wg.Wait()
	})
	return e
}

func (e *echoServer) run() {
	defer e.wg.Done()
	buf := make([]byte, MaxDatagram)
	for {
		n, from, err := e.conn.ReadFromUDPAddrPort(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err == nil {
			e.conn.WriteToUDPAddrPort(buf[:n], from)
		}
	}
}

// addr returns the echo server's address.
func (e *echoServer) addr() netip.AddrPort {
	return e.conn.LocalAddr().(*net.UDPAddr).AddrPort()
}

// pipe returns an OS pipe, closed when the test ends. Both ends have
// deadlines, and the read end's are set to testTimeout from now, so no
// read of the test blocks for longer.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	if err := r.SetReadDeadline(time.Now().Add(testTimeout)); err != nil {
		t.Fatal(err)
	}
	return r, w
}

// wait returns what ch delivers, failing the test after testTimeout.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testTimeout):
		t.Fatalf("%s: timed out after %v", what, testTimeout)
		panic("unreachable")
	}
}

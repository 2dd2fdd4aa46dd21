package linkem

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRelayBuffers: the relay's sockets hold as much as gosh's own, so
// that a sender at LAN speed overruns the endpoint, not the emulator (with
// Linux's default 208 KiB, gosh bench forward over lan lost a twentieth
// of its datagrams at the relay's sockets, a loss no profile asked for).
func TestRelayBuffers(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/net/core/rmem_max"); err == nil {
		if max, _ := strconv.Atoi(strings.TrimSpace(string(b))); max < relayBuffer {
			t.Skipf("net.core.rmem_max is %d, below the relay's %d: the kernel caps the buffer", max, relayBuffer)
		}
	}
	srv := newEchoServer(t)
	r, err := NewUDPRelay(srv.addr(), Profile{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, c := range map[string]syscall.Conn{"front": r.front, "back": r.back} {
		raw, err := c.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var size int
		var serr error
		raw.Control(func(fd uintptr) { size, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF) })
		if serr != nil {
			t.Fatal(serr)
		}
		if size < relayBuffer {
			t.Errorf("the %s socket's receive buffer is %d bytes; want at least %d", name, size, relayBuffer)
		}
	}
}

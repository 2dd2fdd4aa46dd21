//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/daemon"
)

// TestRelayAllowSessions: a real gosh session's daemon, asked on its
// control socket, makes its port one the relay may reach (with the
// user's own sockets left out of the policy); the port next to it is
// refused. gosh server relay to a port nobody holds fails with one line.
func TestRelayAllowSessions(t *testing.T) {
	isolateControlDir(t)
	server := startGoshServer(t)
	notMine := func(netip.AddrPort) error { return errors.New("not asked") }
	allow := relayAllow(daemon.ListSessions, notMine)
	target := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), server.Port)
	if err := allow(context.Background(), target); err != nil {
		t.Errorf("the relay refuses the session's port %d: %v", server.Port, err)
	}
	other := netip.AddrPortFrom(target.Addr(), server.Port+1)
	if err := allow(context.Background(), other); err == nil {
		t.Errorf("the relay allows port %d, no session's", other.Port())
	}

	probe, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	free := probe.LocalAddr().(*net.UDPAddr).Port
	probe.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"server", "relay", "--host", "127.0.0.1", "--port", fmt.Sprint(free)}, strings.NewReader(""), &stdout, &stderr)
	want := fmt.Sprintf("gosh server relay: relay: port %d is not the port of one of your sessions on this host (gosh sessions lists them)\n", free)
	if code != exitError || stderr.String() != want {
		t.Errorf("gosh server relay --port %d = %d, %q; want %d, %q", free, code, stderr.String(), exitError, want)
	}
}

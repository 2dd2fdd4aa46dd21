//go:build !windows

package main

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestPortClosed: a port nothing listens on is known so at once; one a
// program holds, silent, is not, nor once the server has answered.
func TestPortClosed(t *testing.T) {
	closed, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	gone := closed.LocalAddr().(*net.UDPAddr).AddrPort()
	closed.Close()
	held, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	open := held.LocalAddr().(*net.UDPAddr).AddrPort()

	start := time.Now()
	if !portClosed(context.Background(), nil, gone, 5*time.Second) {
		t.Errorf("portClosed(%v) = false for a port closed", gone)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("portClosed took %v for a closed port on loopback", d)
	}
	if portClosed(context.Background(), nil, open, 600*time.Millisecond) {
		t.Errorf("portClosed(%v) = true for a port a program holds", open)
	}
	answered := make(chan struct{})
	close(answered)
	if portClosed(context.Background(), answered, gone, 5*time.Second) {
		t.Error("portClosed went on after the server answered")
	}
}

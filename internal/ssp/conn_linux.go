package ssp

import (
	"net"
	"syscall"
)

// setSocketOptions sets what mosh sets on its IPv4 sockets: no path-MTU
// discovery (datagrams may be fragmented; mosh's budgets assume a
// 1280-byte path) and the ECT(0) ECN codepoint. Failures are ignored, as
// mosh ignores them; both options are IPv4-level and do nothing for IPv6
// traffic.
func setSocketOptions(uc *net.UDPConn) {
	rc, err := uc.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, syscall.IP_MTU_DISCOVER, syscall.IP_PMTUDISC_DONT)
		syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, syscall.IP_TOS, 0x02)
	})
}

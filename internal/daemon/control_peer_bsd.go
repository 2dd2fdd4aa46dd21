//go:build darwin || freebsd

package daemon

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// xucredVersion is XUCRED_VERSION of darwin's and FreeBSD's sys/ucred.h.
const xucredVersion = 0

// peerUID is the effective user id of the process at the other end of
// the unix socket fd, as the kernel recorded it when it connected
// (LOCAL_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	if cred.Version != xucredVersion {
		return -1, fmt.Errorf("unknown xucred version %d", cred.Version)
	}
	return int(cred.Uid), nil
}

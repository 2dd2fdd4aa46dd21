//go:build unix && !linux && !darwin && !freebsd

package daemon

import "errors"

// peerUID reports that this system's peer credentials are not read: the
// control socket then refuses every connection (it fails closed).
func peerUID(fd int) (int, error) {
	return -1, errors.New("peer credentials are not supported on this system")
}

package netwatch

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// watchOS subscribes to the kernel's link, address and route changes on a
// netlink route socket; every message is a change.
func watchOS(ctx context.Context, out chan<- struct{}) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("netlink socket: %w", err)
	}
	groups := uint32(unix.RTMGRP_LINK | unix.RTMGRP_IPV4_IFADDR | unix.RTMGRP_IPV6_IFADDR |
		unix.RTMGRP_IPV4_ROUTE | unix.RTMGRP_IPV6_ROUTE)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: groups}); err != nil {
		unix.Close(fd)
		return fmt.Errorf("netlink bind: %w", err)
	}
	// A non-blocking descriptor joins the runtime's poller, so Close
	// unblocks the reader.
	f := os.NewFile(uintptr(fd), "netlink")
	go readChanges(ctx, f, out)
	return nil
}

//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package netwatch

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// watchOS reads the routing socket, on which the kernel announces every
// change of interfaces, addresses and routes.
func watchOS(ctx context.Context, out chan<- struct{}) error {
	fd, err := unix.Socket(unix.AF_ROUTE, unix.SOCK_RAW, unix.AF_UNSPEC)
	if err != nil {
		return fmt.Errorf("routing socket: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return fmt.Errorf("routing socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), "route")
	go readChanges(ctx, f, out)
	return nil
}

package bootstrap

import (
	"errors"

	"golang.org/x/sys/windows"
)

// isRefused reports whether err is a refused TCP connection (Winsock's
// own error number, which syscall.ECONNREFUSED is not).
func isRefused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }

//go:build unix

package netwatch

import (
	"errors"
	"syscall"
)

// isOverrun reports whether err says the socket's buffer overflowed.
func isOverrun(err error) bool { return errors.Is(err, syscall.ENOBUFS) }

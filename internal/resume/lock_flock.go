//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package resume

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// haveLocks reports that the lock, not the PID, tells whether a session
// is held. flock(2) locks belong to the open file description, so two
// Files in one process exclude each other too, and the kernel lets go
// when the holder exits, however it exits. Go opens files close-on-exec,
// so programs the client starts do not inherit the lock.
const haveLocks = true

// errLocked is tryLock's error when another open file holds the lock.
var errLocked = errors.New("locked")

// tryLock takes f's exclusive lock without waiting.
func tryLock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return errLocked
		default:
			return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
		}
	}
}

// unlock lets go of f's lock; closing f would too.
func unlock(f *os.File) {
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
}

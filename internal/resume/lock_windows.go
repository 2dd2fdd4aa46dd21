package resume

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// haveLocks reports that the lock, not the PID, tells whether a session
// is held. LockFileEx locks belong to the file handle, so two Files in
// one process exclude each other too, and Windows lets go when the
// holder exits. Go's handles are not inherited by the programs the
// client starts.
const haveLocks = true

// errLocked is tryLock's error when another handle holds the lock.
var errLocked = errors.New("locked")

// tryLock takes f's exclusive lock (on its first byte, which need not
// exist) without waiting.
func tryLock(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return errLocked
	default:
		return &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
	}
}

// unlock lets go of f's lock; closing f would too.
func unlock(f *os.File) {
	var ol windows.Overlapped
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

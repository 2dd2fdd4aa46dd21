package resume

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// ownedByUs reports true: on Windows the session directory is in
// %LOCALAPPDATA%, whose access control list keeps other users out.
func ownedByUs(fs.FileInfo) bool { return true }

// modeOK reports true: Windows has no mode bits to check (see ownedByUs).
func modeOK(fs.FileInfo) bool { return true }

// Retries of a rename or removal that another process's open handle got
// in the way of (a List reading the record, say).
const (
	busyRetries = 20
	busyWait    = 10 * time.Millisecond
)

// busy reports whether err is another handle's doing, and worth a retry.
func busy(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}

// replaceFile renames from over to (MoveFileEx, replacing), retrying
// while a reader has to open.
func replaceFile(from, to string) error {
	var err error
	for range busyRetries {
		if err = os.Rename(from, to); err == nil || !busy(err) {
			return err
		}
		time.Sleep(busyWait)
	}
	return err
}

// removeFile removes path, retrying while a reader has it open.
func removeFile(path string) error {
	var err error
	for range busyRetries {
		if err = os.Remove(path); err == nil || !busy(err) {
			return err
		}
		time.Sleep(busyWait)
	}
	return err
}

// syncDir does nothing: Windows cannot sync a directory, and NTFS
// journals renames.
func syncDir(string) error { return nil }

//go:build unix

package resume

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUs reports whether fi is the user's.
func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int64(st.Uid) == int64(os.Getuid())
}

// modeOK reports whether fi's mode lets nobody but the user in: 0600 or
// narrower, and no special bits.
func modeOK(fi fs.FileInfo) bool {
	return fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)&^0o600 == 0
}

// replaceFile renames from over to.
func replaceFile(from, to string) error { return os.Rename(from, to) }

// removeFile removes path.
func removeFile(path string) error { return os.Remove(path) }

// syncDir makes dir's entries (a rename, a removal) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

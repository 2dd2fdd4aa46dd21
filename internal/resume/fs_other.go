//go:build !unix && !windows

package resume

import (
	"io/fs"
	"os"
)

// ownedByUs reports true: this system reports no owner gosh checks.
func ownedByUs(fs.FileInfo) bool { return true }

// modeOK reports whether fi's mode is 0600 or narrower.
func modeOK(fi fs.FileInfo) bool { return fi.Mode().Perm()&^0o600 == 0 }

// replaceFile renames from over to.
func replaceFile(from, to string) error { return os.Rename(from, to) }

// removeFile removes path.
func removeFile(path string) error { return os.Remove(path) }

// syncDir makes dir's entries durable where the system can; elsewhere it
// does nothing.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	d.Sync()
	d.Close()
	return nil
}

//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// The control directory holds the control sockets of the user's session
// daemons. Its usual place, gosh-<uid> in the temporary directory when
// $XDG_RUNTIME_DIR is not set, has a name another local user can guess
// and take first (a directory or a link of theirs), which would leave
// this user without gosh sessions, --attach and --kill. So the fixed name
// is only the first choice: when it is not a 0700 directory of this
// user's, the sockets go to a directory with a random name,
// gosh-<uid>.<random> in the temporary directory, made with
// os.MkdirTemp (created by this user, 0700, under a name nobody could
// have taken before). It needs no record of its name: readers look at
// every gosh-<uid>.* there and use the ones that are 0700 directories of
// this user's, which others can create under that pattern but not make
// pass the check. (OpenSSH's agent does the same with its
// ssh-XXXXXXXXXX directories, and hands their names on through
// SSH_AUTH_SOCK; the session daemons and gosh sessions share no
// environment, hence the pattern.)

// ControlDir returns the user's control directory, creating it: gosh in
// $XDG_RUNTIME_DIR when that is a directory owned by the user, else
// gosh-<uid> in the temporary directory; when that one is not a 0700
// directory of the user's (another user took the name first, or it is a
// link or has a wider mode), a gosh-<uid>.<random> directory of the
// user's in the temporary directory, an existing one if there is one.
// The error, when none can be had, is one line saying why.
func ControlDir() (string, error) {
	dir, _, err := controlDir()
	return dir, err
}

// controlDirNote returns the control directory, and a line saying why it
// is not the usual one ("" when it is).
func controlDirNote() (string, string, error) {
	dir, unusable, err := controlDir()
	if err != nil || unusable == nil {
		return dir, "", err
	}
	why := strings.TrimPrefix(unusable.Error(), "daemon: ")
	return dir, fmt.Sprintf("%s; session control sockets are in %s instead", why, dir), nil
}

// controlDir is ControlDir, with why the usual directory was passed over
// (nil if it was not).
func controlDir() (dir string, unusable, err error) {
	first := controlDirs()[0]
	switch err := os.Mkdir(first, 0o700); {
	case err == nil:
		if err := os.Chmod(first, 0o700); err != nil { // whatever the umask took away
			return "", nil, fmt.Errorf("daemon: control directory: %w", err)
		}
	case !errors.Is(err, fs.ErrExist):
		return "", nil, fmt.Errorf("daemon: control directory: %w", err)
	}
	unusable = checkControlDir(first)
	if unusable == nil {
		return first, nil, nil
	}
	if others := randomControlDirs(); len(others) > 0 {
		return others[0], unusable, nil
	}
	d, err := os.MkdirTemp(os.TempDir(), fixedControlName()+".")
	if err != nil {
		return "", nil, fmt.Errorf("%v, and no other could be made: %w", unusable, err)
	}
	if err := os.Chmod(d, 0o700); err != nil { // MkdirTemp's is 0700 less the umask
		return "", nil, fmt.Errorf("daemon: control directory: %w", err)
	}
	return d, unusable, nil
}

// fixedControlName is the usual name of the control directory in the
// temporary directory.
func fixedControlName() string { return "gosh-" + strconv.Itoa(os.Getuid()) }

// controlDirs are where control sockets may be: [ControlDir]'s first
// choice, then the temporary directory's (for a daemon started without
// $XDG_RUNTIME_DIR), then the random-named ones of the user's.
func controlDirs() []string {
	tmp := filepath.Join(os.TempDir(), fixedControlName())
	dirs := []string{tmp}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		if fi, err := os.Lstat(rt); err == nil && fi.IsDir() && ownedByUs(fi) {
			if d := filepath.Join(rt, "gosh"); d != tmp {
				dirs = []string{d, tmp}
			}
		}
	}
	return append(dirs, randomControlDirs()...)
}

// randomControlDirs are the random-named control directories in the
// temporary directory that pass checkControlDir, in name order.
func randomControlDirs() []string {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), fixedControlName()+".*"))
	slices.Sort(matches)
	return slices.DeleteFunc(matches, func(d string) bool { return checkControlDir(d) != nil })
}

// checkControlDir refuses a control directory that others could enter or
// replace.
func checkControlDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("daemon: control directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("daemon: control directory %s is not a directory", dir)
	case !ownedByUs(fi):
		return fmt.Errorf("daemon: control directory %s is owned by uid %d, not by this user", dir, ownerOf(fi))
	case fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0o700:
		return fmt.Errorf("daemon: control directory %s has mode %04o, not 0700", dir, fi.Mode().Perm())
	}
	return nil
}

func ownedByUs(fi fs.FileInfo) bool { return ownerOf(fi) == int64(os.Getuid()) }

// ownerOf is the uid owning fi, or -1.
func ownerOf(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Uid)
	}
	return -1
}

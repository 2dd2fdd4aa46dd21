package resume

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Dir returns the user's session directory, creating it (and its parents)
// as needed: gosh/sessions in $XDG_STATE_HOME, or in $HOME/.local/state when
// that is unset or not absolute; on Windows, gosh\sessions in
// %LOCALAPPDATA%. The directory is the user's alone: it is made 0700,
// tightened to 0700 if it is wider, and refused if it is not a directory
// (a symbolic link is not) owned by the user.
func Dir() (string, error) {
	base, err := stateHome()
	if err != nil {
		return "", fmt.Errorf("resume: session directory: %w", err)
	}
	dir := filepath.Join(base, "gosh", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("resume: session directory: %w", err)
	}
	if err := checkDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// stateHome is the base directory of the user's state files.
func stateHome() (string, error) {
	if runtime.GOOS == "windows" {
		d := os.Getenv("LOCALAPPDATA")
		if !filepath.IsAbs(d) {
			return "", errors.New("%LOCALAPPDATA% is not set")
		}
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state"), nil
}

// checkDir refuses a session directory that others could enter or
// replace, and takes away any permission beyond 0700 (a umask, or an
// older version, may have left them).
func checkDir(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("resume: session directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("resume: session directory %s is not a directory", dir)
	case !ownedByUs(fi):
		return fmt.Errorf("resume: session directory %s is not owned by this user", dir)
	case runtime.GOOS != "windows" && fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0o700:
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("resume: session directory: %w", err)
		}
	}
	return nil
}

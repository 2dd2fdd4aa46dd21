//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package resume

import (
	"errors"
	"os"
)

// haveLocks reports that this system has no lock gosh uses: a session is
// held while its record has a PID, so a client that crashes leaves it
// looking held (until [Prune]), and two clients are not kept from
// claiming one session.
const haveLocks = false

// errLocked is tryLock's error when another file holds the lock; here it
// never is.
var errLocked = errors.New("locked")

// tryLock does nothing: there are no locks.
func tryLock(*os.File) error { return nil }

// unlock does nothing.
func unlock(*os.File) {}

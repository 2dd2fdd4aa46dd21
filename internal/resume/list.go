package resume

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// List returns the sessions saved in dir for host (as the user typed it;
// every host's when host is ""), newest (last updated) first, each with
// Detached set. Files it cannot read, corrupt records, and files that
// others could read or replace are skipped; a missing dir has no
// sessions.
func List(dir, host string) ([]Record, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("resume: listing sessions: %w", err)
	}
	var recs []Record
	for _, e := range ents {
		id, ok := isSessionFile(e.Name())
		if !ok {
			continue
		}
		r, err := readRecordFile(recordPath(dir, id), id)
		if err != nil || (host != "" && r.Host != host) {
			continue
		}
		r.Detached = detached(dir, r)
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b Record) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return recs, nil
}

// detached reports whether no live client holds r: its lock is free, or,
// where there are no locks, its PID is 0.
func detached(dir string, r Record) bool {
	if !haveLocks {
		return r.PID == 0
	}
	return !held(lockPath(dir, r.ID))
}

// Prune deletes from dir what is older than maxAge and held by no client:
// detached sessions last updated before then, and (by modification time)
// the user's corrupt records, temporary files and lock files without a
// record. It returns how many sessions and files it deleted.
func Prune(dir string, maxAge time.Duration) (int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, fmt.Errorf("resume: pruning sessions: %w", err)
	}
	cutoff := time.Now().Add(-maxAge)
	n := 0
	for _, e := range ents {
		name := e.Name()
		var id string
		switch {
		case strings.HasSuffix(name, ".json"):
			id = strings.TrimSuffix(name, ".json")
		case strings.HasSuffix(name, ".json.tmp"):
			id = strings.TrimSuffix(name, ".json.tmp")
		case strings.HasSuffix(name, ".lock"):
			id = strings.TrimSuffix(name, ".lock")
		}
		if !validID(id) {
			continue // not ours
		}
		if pruneSession(dir, id, cutoff) {
			n++
		}
	}
	return n, nil
}

// pruneSession deletes session id's files in dir if they are stale at
// cutoff and nobody holds the session, reporting whether it did. Prune
// sees a session once per file name (record, temporary, lock); the first
// call deletes them all, and the later ones find nothing.
func pruneSession(dir, id string, cutoff time.Time) bool {
	if !stale(dir, id, cutoff, true) {
		return false
	}
	if !haveLocks {
		if r, err := readRecordFile(recordPath(dir, id), id); err == nil && r.PID != 0 {
			return false
		}
		removeFile(recordPath(dir, id))
		removeFile(tempPath(dir, id))
		removeFile(lockPath(dir, id))
		syncDir(dir)
		return true
	}
	lk, err := acquire(lockPath(dir, id))
	if err != nil {
		return false // held
	}
	// Judge again under the lock, which acquire may have just made: a
	// client may have resumed and let go of the session since.
	if !stale(dir, id, cutoff, false) {
		unlock(lk)
		lk.Close()
		return false
	}
	removeFile(recordPath(dir, id))
	removeFile(tempPath(dir, id))
	dropLock(lk, lockPath(dir, id))
	syncDir(dir)
	return true
}

// stale reports whether session id's files in dir are stale at cutoff: a
// record last updated before it or, for the user's corrupt records and
// leftover temporary and lock files, all files modified before it (the
// lock file only if withLock).
func stale(dir, id string, cutoff time.Time, withLock bool) bool {
	r, err := readRecordFile(recordPath(dir, id), id)
	switch {
	case err == nil:
		return r.Updated.Before(cutoff)
	case errors.Is(err, ErrUnsafe):
		return false // not ours to judge
	}
	paths := []string{recordPath(dir, id), tempPath(dir, id)}
	if withLock {
		paths = append(paths, lockPath(dir, id))
	}
	found := false
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || !fi.Mode().IsRegular() || !ownedByUs(fi) || !fi.ModTime().Before(cutoff) {
			return false
		}
		found = true
	}
	return found || !withLock // under the lock, the lock file was found
}

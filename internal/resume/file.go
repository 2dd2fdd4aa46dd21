package resume

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Errors of [Create], [Claim] and the [File] methods, for errors.Is.
var (
	// ErrInUse is the error of claiming a session that a live client
	// holds; its message names the process.
	ErrInUse = errors.New("resume: session in use")
	// ErrUnsafe is the error of claiming a session whose file others
	// could read or write: not a regular file owned by the user with
	// mode 0600.
	ErrUnsafe = errors.New("resume: unsafe session file")
	// ErrClosed is the error of using a File after its Release or Remove.
	ErrClosed = errors.New("resume: session record released")
	// ErrExhausted is the error of reserving beyond the 2^63 sequence
	// numbers of a key: the session must end.
	ErrExhausted = errors.New("resume: sequence numbers exhausted")
)

// inUseError is [ErrInUse] with the holder's process.
type inUseError struct {
	id  string
	pid int
}

func (e *inUseError) Error() string {
	if e.pid > 0 {
		return fmt.Sprintf("resume: session %s is in use by process %d", e.id, e.pid)
	}
	return fmt.Sprintf("resume: session %s is in use by another process", e.id)
}

func (e *inUseError) Is(target error) bool { return target == ErrInUse }

// File is a session record held by this process, from [Create] or [Claim]
// until [File.Release] or [File.Remove]: it holds the record's lock, so no
// other client can claim the session meanwhile. Its methods are safe for
// concurrent use.
type File struct {
	dir string

	mu    sync.Mutex
	rec   Record   // as last written
	lock  *os.File // the locked <ID>.lock; nil once released or removed
	dirty bool     // rec.Scroll has changed since the last write
}

// recordPath, lockPath and tempPath name a session's files in dir.
func recordPath(dir, id string) string { return filepath.Join(dir, id+".json") }
func lockPath(dir, id string) string   { return filepath.Join(dir, id+".lock") }
func tempPath(dir, id string) string   { return filepath.Join(dir, id+".json.tmp") }

// Create saves a new session record in dir (from [Dir]) and holds it. A
// missing r.ID is chosen at random; r.PID is set to this process, a zero
// r.Started to now, and r.Updated to now. It is an error (wrapping
// fs.ErrExist) if dir already has a session r.ID.
//
// The client should treat an error as "this session cannot be resumed",
// not as fatal: a file system without locks, say, fails here.
func Create(dir string, r Record) (*File, error) {
	if r.ID == "" {
		r.ID = NewID()
	}
	now := time.Now()
	if r.Started.IsZero() {
		r.Started = now
	}
	r.Updated = now
	r.PID = os.Getpid()
	r.Detached = false
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("resume: new session: %w", err)
	}
	lk, err := acquire(lockPath(dir, r.ID))
	if err != nil {
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("resume: new session %s: %w", r.ID, fs.ErrExist)
		}
		return nil, fmt.Errorf("resume: new session: %w", err)
	}
	// O_EXCL claims the name; the contents go in by rename like every
	// later update, so that no reader ever sees half a record.
	path := recordPath(dir, r.ID)
	rf, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		unlock(lk)
		lk.Close()
		return nil, fmt.Errorf("resume: new session: %w", err)
	}
	rf.Close()
	f := &File{dir: dir, lock: lk}
	if err := f.write(r); err != nil {
		removeFile(path)
		dropLock(lk, lockPath(dir, r.ID))
		return nil, err
	}
	return f, nil
}

// Claim takes the saved session id in dir for resuming it: it holds the
// session's lock, sets the record's PID to this process and increments
// its Epoch. The client resumes sealing at the claimed record's Seq.
//
// Claim fails with an error wrapping fs.ErrNotExist for an unknown id,
// [ErrInUse] if a live client holds the session, and [ErrUnsafe] if the
// file is not the user's alone. It does not look at Record.Gosh: the
// caller tells the user that a stock mosh-server's session cannot be
// resumed (and may [File.Remove] it).
func Claim(dir, id string) (*File, error) {
	if !validID(id) {
		return nil, fmt.Errorf("resume: no session %q: %w", id, fs.ErrNotExist)
	}
	path := recordPath(dir, id)
	// Look first, so that an unknown id leaves no lock file behind.
	if _, err := readRecordFile(path, id); err != nil {
		return nil, err
	}
	lk, err := acquire(lockPath(dir, id))
	if err != nil {
		if errors.Is(err, errLocked) {
			pid := 0
			if r, err := readRecordFile(path, id); err == nil {
				pid = r.PID
			}
			return nil, &inUseError{id: id, pid: pid}
		}
		return nil, fmt.Errorf("resume: session %s: %w", id, err)
	}
	// Read again under the lock: the previous holder may have updated or
	// removed it before letting go.
	r, err := readRecordFile(path, id)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			dropLock(lk, lockPath(dir, id))
		} else {
			unlock(lk)
			lk.Close()
		}
		return nil, err
	}
	r.PID = os.Getpid()
	r.Epoch++
	f := &File{dir: dir, lock: lk}
	if err := f.write(r); err != nil {
		unlock(lk)
		lk.Close()
		return nil, err
	}
	return f, nil
}

// Record returns the record as last written, with any [File.SetScroll]
// not yet written.
func (f *File) Record() Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rec
}

// Reserve is called before sealing sequence number next. If next is
// below the reservation it returns the reservation at once; otherwise it
// durably records next + [Block] (with any pending scroll count) and
// returns that. Sequence numbers below the returned limit may be sealed;
// on an error the limit is the old one, and the client must not seal
// next.
func (f *File) Reserve(next uint64) (limit uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lock == nil {
		return f.rec.Seq, ErrClosed
	}
	if next < f.rec.Seq {
		return f.rec.Seq, nil
	}
	if next > maxSeq-Block {
		return f.rec.Seq, ErrExhausted
	}
	r := f.rec
	r.Seq = next + Block
	if err := f.write(r); err != nil {
		return f.rec.Seq, err
	}
	return f.rec.Seq, nil
}

// SetScroll records n as the record's Scroll. It is written with the
// next write ([File.Reserve], [File.Flush], [File.Release]), not now.
func (f *File) SetScroll(n uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rec.Scroll != n {
		f.rec.Scroll = n
		f.dirty = true
	}
}

// Flush writes a pending [File.SetScroll], if there is one.
func (f *File) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lock == nil {
		return ErrClosed
	}
	if !f.dirty {
		return nil
	}
	return f.write(f.rec)
}

// Release lets go of the session without ending it (the client exits,
// the server lives on): it writes PID 0 and releases the lock, so the
// session is detached and may be resumed. The lock is released even if
// the write fails; it, not the PID, is what [List] believes.
func (f *File) Release() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lock == nil {
		return ErrClosed
	}
	r := f.rec
	r.PID = 0
	err := f.write(r)
	unlock(f.lock)
	f.lock.Close()
	f.lock = nil
	return err
}

// Remove deletes the session's record and lock files: the session ended.
func (f *File) Remove() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lock == nil {
		return ErrClosed
	}
	err := removeFile(recordPath(f.dir, f.rec.ID))
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		err = syncDir(f.dir)
	}
	removeFile(tempPath(f.dir, f.rec.ID))
	dropLock(f.lock, lockPath(f.dir, f.rec.ID))
	f.lock = nil
	if err != nil {
		return fmt.Errorf("resume: removing session %s: %w", f.rec.ID, err)
	}
	return nil
}

// write durably replaces the record file with r, stamped now, and makes
// it f's record: a temporary file written and synced, renamed over the
// record, and the directory synced, so that after a crash the file holds
// either the old record or r. The caller holds f.mu.
func (f *File) write(r Record) error {
	r.Updated = time.Now()
	r.Detached = false
	b, err := r.marshal()
	if err != nil {
		return fmt.Errorf("resume: session %s: %w", r.ID, err)
	}
	if err := writeFileSync(f.dir, r.ID, b); err != nil {
		return fmt.Errorf("resume: writing session %s: %w", r.ID, err)
	}
	f.rec = r
	f.dirty = false
	return nil
}

// writeFileSync is write's file work.
func writeFileSync(dir, id string, b []byte) error {
	tmp := tempPath(dir, id)
	t, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	// A temporary file left by a crash keeps its mode; make it 0600.
	err = t.Chmod(0o600)
	if err == nil {
		_, err = t.Write(b)
	}
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = replaceFile(tmp, recordPath(dir, id))
	}
	if err != nil {
		removeFile(tmp)
		return err
	}
	return syncDir(dir)
}

// readRecordFile reads and checks the record of session id at path. It
// refuses, wrapping [ErrUnsafe], a file that is not a regular file owned
// by the user with mode 0600 or narrower.
func readRecordFile(path, id string) (Record, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Record{}, fmt.Errorf("resume: no session %s: %w", id, fs.ErrNotExist)
		}
		return Record{}, fmt.Errorf("resume: session %s: %w", id, err)
	}
	if err := checkFile(path, fi); err != nil {
		return Record{}, err
	}
	rf, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Record{}, fmt.Errorf("resume: no session %s: %w", id, fs.ErrNotExist)
		}
		return Record{}, fmt.Errorf("resume: session %s: %w", id, err)
	}
	defer rf.Close()
	// The file may have been replaced since the Lstat: check what was
	// opened.
	if fi, err = rf.Stat(); err != nil {
		return Record{}, fmt.Errorf("resume: session %s: %w", id, err)
	}
	if err := checkFile(path, fi); err != nil {
		return Record{}, err
	}
	b, err := io.ReadAll(io.LimitReader(rf, maxRecordSize+1))
	if err != nil {
		return Record{}, fmt.Errorf("resume: session %s: %w", id, err)
	}
	r, err := parseRecord(b)
	if err == nil && r.ID != id {
		err = fmt.Errorf("file holds session %s", r.ID)
	}
	if err != nil {
		return Record{}, fmt.Errorf("resume: session %s: corrupt record: %w", id, err)
	}
	return r, nil
}

// checkFile refuses a session file that others could read or replace.
func checkFile(path string, fi fs.FileInfo) error {
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file", ErrUnsafe, path)
	case !ownedByUs(fi):
		return fmt.Errorf("%w: %s is not owned by this user", ErrUnsafe, path)
	case !modeOK(fi):
		return fmt.Errorf("%w: %s has mode %04o, not 0600", ErrUnsafe, path, fi.Mode().Perm())
	}
	return nil
}

// acquire opens (creating) the lock file at path and locks it, failing
// with errLocked at once if another open file holds the lock.
func acquire(path string) (*os.File, error) {
	for range 3 {
		lk, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := tryLock(lk); err != nil {
			lk.Close()
			return nil, err
		}
		// The last holder may have removed the file ([File.Remove])
		// between our open and our lock, and someone may have made a new
		// one: a lock on a file no longer at path locks nothing.
		a, err1 := lk.Stat()
		b, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && os.SameFile(a, b) {
			return lk, nil
		}
		unlock(lk)
		lk.Close()
	}
	return nil, fmt.Errorf("lock file %s keeps changing", path)
}

// held reports whether a live client holds the lock file at path.
func held(path string) bool {
	lk, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false // no lock file, no holder
	}
	defer lk.Close()
	if err := tryLock(lk); err != nil {
		// errLocked, or a lock that cannot be tested: do not offer it.
		return true
	}
	unlock(lk)
	return false
}

// dropLock removes the locked lock file at path and lets go of it. On
// Unix the name goes first, so that nobody opens it after the lock is
// free; Windows cannot delete a file still open, so there it goes after.
func dropLock(lk *os.File, path string) {
	if runtime.GOOS != "windows" {
		removeFile(path)
	}
	unlock(lk)
	lk.Close()
	if runtime.GOOS == "windows" {
		removeFile(path) // best effort: someone may be looking at it
	}
}

// isSessionFile reports the session ID of a record file's name.
func isSessionFile(name string) (id string, ok bool) {
	id, ok = strings.CutSuffix(name, ".json")
	return id, ok && validID(id)
}

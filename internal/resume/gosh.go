package resume

import "fmt"

// SetGosh records whether the session's server is gosh's (which can
// resume a session), as the client learns it from the server's first
// state. It is written with the next write, as [File.SetScroll].
func (f *File) SetGosh(gosh bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rec.Gosh != gosh {
		f.rec.Gosh = gosh
		f.dirty = true
	}
}

// SetSession records the session's ID on its host ([Record.Session]), as
// a gosh server tells it to a client that never saw its detach notice
// (gosh connect --direct); the session is then known by it
// ([Record.Name]). It is written with the next write, as [File.SetScroll].
// An id that is not a session ID is refused.
func (f *File) SetSession(id string) error {
	if !validID(id) {
		return fmt.Errorf("resume: bad server session ID %q", id)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rec.Session != id {
		f.rec.Session = id
		f.dirty = true
	}
	return nil
}

package resume

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

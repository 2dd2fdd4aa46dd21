package bench

import (
	"sync"
	"time"

	"github.com/gosh-term/gosh/internal/bench/keylat"
	"github.com/gosh-term/gosh/internal/vt"
)

// mirror is a client's screen: it feeds what a transport's client writes
// to the user's terminal into an emulator, and keeps every state the
// screen went through with the time it appeared. It answers the
// emulator's replies to queries through reply, as a terminal would.
type mirror struct {
	reply func([]byte) // nil: replies are dropped

	mu      sync.Mutex // guards following
	emu     *vt.Emulator
	keep    bool
	snaps   []keylat.Snapshot
	last    time.Time     // when the latest output arrived
	changed chan struct{} // closed and replaced on every output
}

// newMirror returns a cols×rows screen; keep records every state.
func newMirror(cols, rows int, keep bool) *mirror {
	return &mirror{emu: vt.NewEmulator(cols, rows), keep: keep, changed: make(chan struct{})}
}

// Write feeds output that arrived now.
func (m *mirror) Write(p []byte) (int, error) {
	now := time.Now()
	m.mu.Lock()
	reply := m.emu.Feed(p, nil)
	if m.keep {
		m.snaps = append(m.snaps, keylat.Snapshot{At: now, FB: m.emu.Framebuffer().Clone()})
	}
	m.last = now
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
	if len(reply) > 0 && m.reply != nil {
		m.reply(reply)
	}
	return len(p), nil
}

// screen returns a copy of the current screen.
func (m *mirror) screen() *vt.Framebuffer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.emu.Framebuffer().Clone()
}

// snapshots returns the states recorded since t.
func (m *mirror) snapshots(since time.Time) []keylat.Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []keylat.Snapshot
	for _, s := range m.snaps {
		if !s.At.Before(since) {
			out = append(out, s)
		}
	}
	return out
}

// waitFor waits until cond holds for the screen, at most timeout, and
// returns when it first held (the zero time if it never did).
func (m *mirror) waitFor(timeout time.Duration, cond func(*vt.Framebuffer) bool) time.Time {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		ok, at, ch := cond(m.emu.Framebuffer()), m.last, m.changed
		m.mu.Unlock()
		if ok {
			return at
		}
		select {
		case <-ch:
		case <-deadline.C:
			return time.Time{}
		}
	}
}

// changedAfter waits until output arrives after t, at most timeout, and
// reports whether it did.
func (m *mirror) changedAfter(t time.Time, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		last, ch := m.last, m.changed
		m.mu.Unlock()
		if last.After(t) {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

// quiet waits until no output has arrived for d, at most max.
func (m *mirror) quiet(d, max time.Duration) { m.quietAfter(time.Time{}, d, max) }

// quietAfter is quiet, counting the quiet time from from at the earliest
// (a keystroke just written, whose echo may not have come yet).
func (m *mirror) quietAfter(from time.Time, d, max time.Duration) {
	end := time.Now().Add(max)
	for time.Now().Before(end) {
		m.mu.Lock()
		last := m.last
		if last.Before(from) {
			last = from
		}
		since := time.Since(last)
		ch := m.changed
		m.mu.Unlock()
		if since >= d {
			return
		}
		t := time.NewTimer(min(d-since, time.Until(end)))
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

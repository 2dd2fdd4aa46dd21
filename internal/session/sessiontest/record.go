package sessiontest

import (
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// Snapshot is the terminal's screen right after one write of the client,
// and when that write came.
type Snapshot struct {
	At time.Time
	FB *vt.Framebuffer
}

// Record makes the terminal keep every state its screen goes through from
// now on ([Terminal.Snapshots]): what a keystroke-latency measurement
// matches against the screens a program shows.
func (t *Terminal) Record() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.keep = true
}

// Snapshots returns the states recorded since [Terminal.Record], oldest
// first.
func (t *Terminal) Snapshots() []Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Snapshot(nil), t.snaps...)
}

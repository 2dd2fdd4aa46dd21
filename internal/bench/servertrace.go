package bench

import (
	"sync"
	"time"

	"github.com/gosh-term/gosh/internal/bench/keylat"
)

// serverTrace records what the server side's program writes, piece by
// piece with the time each was read, where the transport's server runs in
// this process (gosh's loops, the SSH baseline): there the program's
// output passes through this process on its way to the client, and the
// record takes the tap's place where there is no tap (Windows). On
// Windows the output is the pseudo console's rendering of the program's
// console, which is also what the client ends up drawing.
type serverTrace struct {
	mu       sync.Mutex
	observed bool
	out      []keylat.Output
}

// observer returns the function a transport's server side calls with each
// piece of the program's output, and marks the trace as recorded; nil for
// a nil trace.
func (t *serverTrace) observer() func([]byte) {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	t.observed = true
	t.mu.Unlock()
	return t.add
}

// add records p (copied) as read now.
func (t *serverTrace) add(p []byte) {
	if len(p) == 0 {
		return
	}
	o := keylat.Output{At: time.Now(), Data: append([]byte(nil), p...)}
	t.mu.Lock()
	t.out = append(t.out, o)
	t.mu.Unlock()
}

// outputs returns what was recorded, in order: nil if no transport
// observed the program (it ran out of reach), not nil otherwise, even if
// the program wrote nothing.
func (t *serverTrace) outputs() []keylat.Output {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.observed {
		return nil
	}
	return append([]keylat.Output{}, t.out...)
}

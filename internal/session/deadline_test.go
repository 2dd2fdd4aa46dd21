package session_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/vt"
)

// duePredictor predicts nothing, but its deadline is due from a keystroke
// until the next Cull, as the engine's is while a prediction waits to be
// judged; it counts how often the loop asks for it, and stops being due
// after spinLimit asks, so that a loop that spins on it ends.
type duePredictor struct {
	mu   sync.Mutex // guards following
	due  time.Time
	asks int
}

const spinLimit = 100000

func (p *duePredictor) NewUserInput(now time.Time, _ []byte, _ *vt.Framebuffer, _ predict.Link) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.due = now
}

func (p *duePredictor) Cull(time.Time, *vt.Framebuffer, predict.Link) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.due = time.Time{}
}

func (p *duePredictor) NextDeadline() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.asks++; p.asks > spinLimit {
		return time.Time{}
	}
	return p.due
}

func (p *duePredictor) Apply(*vt.Framebuffer) {}
func (p *duePredictor) Reset()                {}
func (p *duePredictor) Shown() bool           { return false }

// TestClientWaitsForAnswerWithoutSpinning: while a paint waits for the
// terminal's answer to its query (here a terminal that never answers, for
// cprWait, 500 ms), a prediction's deadline, due since a keystroke, does
// not wake the client loop: only a paint acts on it, and the paint waits.
// Before, the loop spun until the answer came: in virtual time for ever
// (the clock never moved), in real time for the wait, a core at full load.
func TestClientWaitsForAnswerWithoutSpinning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.term.Mute()
		p := &duePredictor{}
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{Predict: p})
		r.waitScreen(ready, 2*time.Second)
		r.term.Type("x")
		time.Sleep(time.Second)
		r.waitScreen(prompt+"x", time.Second)
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.asks > 1000 {
			t.Errorf("the client loop asked the predictor's deadline %d times in a second (spinning)", p.asks)
		}
	})
}

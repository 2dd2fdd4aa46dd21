package sessiontest

import (
	"strings"
	"sync"

	"github.com/gosh-term/gosh/internal/vt"
)

// Terminal is an in-memory user terminal (session.Terminal). It is safe
// for concurrent use: the client paints from its loop while the test types
// and reads the screen.
type Terminal struct {
	input chan []byte

	mu        sync.Mutex // guards following
	emu       *vt.Emulator
	hist      *vt.History
	cols      int
	rows      int
	raw       bool
	suspended int
	written   int
}

// NewTerminal returns a cols×rows terminal in cooked mode.
func NewTerminal(cols, rows int) *Terminal {
	t := &Terminal{input: make(chan []byte), emu: vt.NewEmulator(cols, rows), cols: cols, rows: rows}
	t.hist = t.emu.EnableHistory(1 << 20)
	return t
}

// Scrollback returns the lines the terminal keeps in its scrollback
// (those scrolled off the top of its primary screen), oldest first,
// trailing blanks removed.
func (t *Terminal) Scrollback() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hist.Texts()
}

// Type sends s as one read's worth of typed bytes; it blocks until the
// client takes it.
func (t *Terminal) Type(s string) { t.input <- []byte(s) }

// Hangup closes the input, as when the terminal goes away.
func (t *Terminal) Hangup() { close(t.input) }

// SetSize changes the window size; the test then sends the client
// session.SignalResize, as the kernel would send SIGWINCH.
func (t *Terminal) SetSize(cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cols, t.rows = cols, rows
	t.emu.Resize(cols, rows)
}

// Screen returns the rendered rows, trailing blanks removed.
func (t *Terminal) Screen() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	fb := t.emu.Framebuffer()
	rows := make([]string, fb.Height())
	for y := range rows {
		rows[y] = strings.TrimRight(fb.Row(y).Text(), " ")
	}
	return rows
}

// Contains reports whether some row of the screen contains s.
func (t *Terminal) Contains(s string) bool {
	for _, r := range t.Screen() {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// Raw reports whether the terminal is in raw mode.
func (t *Terminal) Raw() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.raw
}

// Suspended returns how many times the client suspended itself.
func (t *Terminal) Suspended() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.suspended
}

// Written returns how many bytes the client has painted so far.
func (t *Terminal) Written() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written
}

// Write renders p.
func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.emu.Feed(p, nil)
	t.written += len(p)
	return len(p), nil
}

// Input delivers what [Terminal.Type] sends.
func (t *Terminal) Input() <-chan []byte { return t.input }

// Size returns the window size.
func (t *Terminal) Size() (cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// MakeRaw enters raw mode.
func (t *Terminal) MakeRaw() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.raw = true
	return nil
}

// Restore leaves raw mode.
func (t *Terminal) Restore() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.raw = false
	return nil
}

// Suspend counts the suspension and returns at once, as if the user had
// continued the client immediately.
func (t *Terminal) Suspend() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.suspended++
}

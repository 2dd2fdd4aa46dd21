// Package tty is the user's terminal on the client: raw mode and its
// restoration, the window size, a reader of typed bytes that stops when
// asked (a read on a terminal cannot be interrupted, so it polls), and
// job-control suspension. [Terminal] is the session.Terminal the client
// loop paints on.
package tty

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/term"
)

// readSize is the most read from the terminal at once.
const readSize = 16 << 10

// ErrNotATerminal is returned by [Open] when standard input is not a
// terminal.
var ErrNotATerminal = errors.New("tty: standard input is not a terminal")

// Terminal is the user's terminal: in for keys, out for painting.
type Terminal struct {
	in, out *os.File

	input     chan []byte // typed bytes; closed at EOF or error
	done      chan struct{}
	wake      readerWake // tells the reader of done at once (Unix)
	closeOnce sync.Once
	reader    sync.WaitGroup

	mu    sync.Mutex // guards following
	saved *term.State
	extra consoleState // platform modes (Windows console VT flags)
}

// Open starts reading typed bytes from in; out receives the painting.
// The terminal stays in its mode until [Terminal.MakeRaw].
func Open(in, out *os.File) (*Terminal, error) {
	if !term.IsTerminal(int(in.Fd())) {
		return nil, ErrNotATerminal
	}
	t := &Terminal{in: in, out: out, input: make(chan []byte), done: make(chan struct{}), wake: newReaderWake()}
	t.reader.Add(1)
	go t.read()
	return t, nil
}

// Input delivers typed bytes; it is closed at end of file or on a read
// error.
func (t *Terminal) Input() <-chan []byte { return t.input }

// Write paints p.
func (t *Terminal) Write(p []byte) (int, error) { return t.out.Write(p) }

// MakeRaw puts the terminal in raw mode, saving the mode it had the first
// time.
func (t *Terminal) MakeRaw() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, err := term.MakeRaw(int(t.in.Fd()))
	if err != nil {
		return err
	}
	if t.saved == nil {
		t.saved = st
	}
	t.extra = enableVT(t.in, t.out)
	return nil
}

// Restore returns the terminal to the mode it had before the first
// MakeRaw; it does nothing before that.
func (t *Terminal) Restore() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.saved == nil {
		return nil
	}
	restoreVT(t.in, t.out, t.extra) // first: it saw the raw input mode
	return term.Restore(int(t.in.Fd()), t.saved)
}

// Size reports the window size, falling back to 80×24.
func (t *Terminal) Size() (cols, rows int) {
	cols, rows, err := term.GetSize(int(t.out.Fd()))
	if err != nil || cols <= 0 || rows <= 0 {
		cols, rows, err = term.GetSize(int(t.in.Fd()))
	}
	if err != nil || cols <= 0 || rows <= 0 {
		return 80, 24
	}
	return cols, rows
}

// Close stops reading and restores the terminal's mode. On Unix it waits
// for the reader; on Windows a console read cannot be interrupted, so the
// reader ends with the process. It does not close in or out.
func (t *Terminal) Close() error {
	t.closeOnce.Do(func() {
		close(t.done)
		t.wake.wake()
		t.reader.Wait()
		t.wake.close()
	})
	return t.Restore()
}

package sessiontest

import (
	"bytes"
	"io"
	"strconv"
	"sync"
)

// Flood is a [session.PTY] with a shell that runs one command, "seq":
// it prints the prompt, echoes what is typed, and on Enter prints numbers
// a line each, as fast as the terminal is read (at most a tty's 4 KiB per
// read), until a Ctrl-C. The output already in the tty's buffer when the
// Ctrl-C comes (FloodBuffered) is still read; then "^C" and the prompt.
// It ignores resizes. It is safe for concurrent use.
type Flood struct {
	prompt string
	ready  chan struct{} // buffered 1: output was queued, or the flood started
	closed chan struct{} // closed by Close
	once   sync.Once

	mu      sync.Mutex // guards following
	out     []byte     // output not yet read, before the flood's
	running bool       // the command runs
	drain   int        // after a Ctrl-C: flood bytes still to read (-1: none yet)
	next    int        // the next number
	lines   []byte     // flood output made but not read
}

// FloodBuffered is how much of the flood's output a Ctrl-C leaves to be
// read: what a pseudo-terminal holds (Linux's line discipline and its
// buffer, some 64 KiB).
const FloodBuffered = 64 << 10

// floodRead is the most a read of the flood returns: the line
// discipline's buffer.
const floodRead = 4 << 10

// NewFlood returns a terminal whose shell prints prompt.
func NewFlood(prompt string) *Flood {
	f := &Flood{prompt: prompt, ready: make(chan struct{}, 1), closed: make(chan struct{}), drain: -1, next: 1}
	f.queueLocked([]byte(prompt))
	return f
}

// Read returns the shell's output; io.EOF after Close.
func (f *Flood) Read(b []byte) (int, error) {
	for {
		f.mu.Lock()
		if len(f.out) > 0 {
			n := copy(b, f.out)
			f.out = f.out[n:]
			f.mu.Unlock()
			return n, nil
		}
		if f.running {
			n := f.floodLocked(b[:min(len(b), floodRead)])
			f.mu.Unlock()
			return n, nil
		}
		f.mu.Unlock()
		select {
		case <-f.ready:
		case <-f.closed:
			return 0, io.EOF
		}
	}
}

// floodLocked fills b with the flood's next lines; after a Ctrl-C, with
// what is left of the buffered output, then the prompt.
func (f *Flood) floodLocked(b []byte) int {
	for len(f.lines) < len(b) {
		f.lines = strconv.AppendInt(f.lines, int64(f.next), 10)
		f.lines = append(f.lines, '\r', '\n')
		f.next++
	}
	n := len(b)
	if f.drain >= 0 {
		n = min(n, f.drain)
		f.drain -= n
	}
	copy(b, f.lines[:n])
	f.lines = append(f.lines[:0], f.lines[n:]...)
	if f.drain == 0 {
		f.running, f.drain, f.lines = false, -1, f.lines[:0]
		f.out = append(f.out, "^C\r\n"+f.prompt...)
	}
	return n
}

// Write takes typed input: echoed, and Enter starts the flood; a Ctrl-C
// ends it.
func (f *Flood) Write(b []byte) (int, error) {
	select {
	case <-f.closed:
		return 0, io.ErrClosedPipe
	default:
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.running && bytes.IndexByte(b, 0x03) >= 0:
		if f.drain < 0 {
			f.drain = FloodBuffered
		}
	case f.running:
	case bytes.IndexByte(b, '\r') >= 0:
		i := bytes.IndexByte(b, '\r')
		f.queueLocked(append(b[:i:i], '\r', '\n'))
		f.running = true
		f.signalLocked()
	default:
		f.queueLocked(b)
	}
	return len(b), nil
}

// queueLocked adds b to the output.
func (f *Flood) queueLocked(b []byte) {
	f.out = append(f.out, b...)
	f.signalLocked()
}

func (f *Flood) signalLocked() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// Resize does nothing.
func (f *Flood) Resize(cols, rows int) error { return nil }

// Close hangs up: Read returns io.EOF.
func (f *Flood) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

package sessiontest

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// Transcript is what a real program wrote to its terminal, key by key: the
// program typed into directly, one key at a time, each key's output
// complete before the next key. [NewReplay] plays it back, so that the
// session loops can be typed into a real program's screens in virtual
// time.
type Transcript struct {
	// Name says what program and workload it is.
	Name string `json:"name"`
	// Cols and Rows are the terminal's size during the recording.
	Cols int `json:"cols"`
	Rows int `json:"rows"`
	// Start is what the program wrote before the first key.
	Start []byte `json:"start"`
	// Steps are the keys in the order typed, each with the program's
	// output in answer.
	Steps []Step `json:"steps"`
}

// Step is one key of a [Transcript] and what the program wrote after it.
type Step struct {
	Key string `json:"key"`
	Out []byte `json:"out"`
}

// Replay is a [session.PTY] whose program replays a [Transcript]: it
// writes the transcript's start at once, and each step's output when the
// step's key arrives; output not read yet is read with what follows, as
// from a pty. Bytes that are not the next key (the server's answers to
// the program's queries, and anything typed beyond the transcript) are
// skipped, an escape sequence at a time. It ignores resizes. It is safe
// for concurrent use.
type Replay struct {
	ready  chan struct{} // buffered 1: output was queued
	closed chan struct{} // closed by Close
	once   sync.Once

	mu      sync.Mutex // guards following
	steps   []Step
	next    int    // the step whose key is awaited
	in      []byte // input not yet matched
	out     []byte // output not yet read
	skipped int    // input bytes that were not keys
}

// NewReplay returns a terminal whose program replays t.
func NewReplay(t *Transcript) *Replay {
	r := &Replay{ready: make(chan struct{}, 1), closed: make(chan struct{}), steps: t.Steps}
	r.queueLocked(t.Start)
	return r
}

// Keys returns how many of the transcript's keys have arrived.
func (r *Replay) Keys() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// Skipped returns how many input bytes were not the keys awaited.
func (r *Replay) Skipped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// Read returns the program's output; io.EOF after Close.
func (r *Replay) Read(b []byte) (int, error) {
	for {
		r.mu.Lock()
		if len(r.out) > 0 {
			n := copy(b, r.out)
			r.out = r.out[n:]
			r.mu.Unlock()
			return n, nil
		}
		r.mu.Unlock()
		select {
		case <-r.ready:
		case <-r.closed:
			return 0, io.EOF
		}
	}
}

// Write takes input: each key of the transcript, in order, makes the
// program write that step's output.
func (r *Replay) Write(b []byte) (int, error) {
	select {
	case <-r.closed:
		return 0, io.ErrClosedPipe
	default:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.in = append(r.in, b...)
	for len(r.in) > 0 {
		if r.next < len(r.steps) {
			key := r.steps[r.next].Key
			if isKey(r.in, key) {
				r.in = r.in[len(key):]
				r.queueLocked(r.steps[r.next].Out)
				r.next++
				continue
			}
			if len(r.in) < len(key) && strings.HasPrefix(key, string(r.in)) {
				break // the rest of the key is on its way
			}
		}
		n := seqLen(r.in)
		r.skipped += n
		r.in = r.in[n:]
	}
	return len(b), nil
}

// isKey reports whether in starts with key, as the key and not as the
// first byte of an answer to a query: an Escape key followed by the
// start of a control sequence (CSI, OSC, DCS) is the answer.
func isKey(in []byte, key string) bool {
	if !bytes.HasPrefix(in, []byte(key)) {
		return false
	}
	return key != "\x1b" || len(in) == 1 || !strings.ContainsRune("[]P", rune(in[1]))
}

// seqLen returns the length of the escape sequence at the start of b, as
// far as b holds it (a CSI to its final byte, an OSC or DCS to its
// terminator), or 1 for any other byte.
func seqLen(b []byte) int {
	if len(b) < 2 || b[0] != 0x1b {
		return 1
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
		}
		return len(b)
	case ']', 'P':
		for i := 2; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
		}
		return len(b)
	}
	return 2
}

// queueLocked adds b to the output.
func (r *Replay) queueLocked(b []byte) {
	if len(b) == 0 {
		return
	}
	r.out = append(r.out, b...)
	select {
	case r.ready <- struct{}{}:
	default:
	}
}

// Resize does nothing: the transcript was recorded at one size.
func (r *Replay) Resize(cols, rows int) error { return nil }

// Close hangs up: Read returns io.EOF.
func (r *Replay) Close() error {
	r.once.Do(func() { close(r.closed) })
	return nil
}

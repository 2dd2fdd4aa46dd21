package sessiontest

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// Terminal is an in-memory user terminal (session.Terminal). It is safe
// for concurrent use: the client paints from its loop while the test types
// and reads the screen.
type Terminal struct {
	input    chan []byte
	gone     chan struct{} // closed by Hangup or Close
	goneOnce sync.Once
	answers  sync.WaitGroup // answers on their way to the input

	mu        sync.Mutex // guards following
	emu       *vt.Emulator
	hist      *vt.History
	sb        []vt.ScrollLine // the scrollback: hist's lines, less those a growth took back
	seen      uint64          // hist's lines in sb
	cols      int
	rows      int
	raw       bool
	suspended int
	written   int
	mute      bool // answers no queries
	oneScreen bool // ignores mode 1049 (IgnoreAltScreen)
	hungUp    bool
	racing    []int // heights to take right after the next answer (ResizeAfterAnswer)
	readSize  int   // the most a read takes (0: a whole write)
	midWrite  []int // heights to take between the reads of a write (ResizeMidWrite)
	midDone   int   // how many times they were taken
	preWrite  []int // heights to take before each of the next writes that are not a query alone (ResizeBeforeWrites)
	keep      bool  // records every state of the screen (Record)
	snaps     []Snapshot
}

// answerWait bounds how long an answer waits for the client to read it.
const answerWait = time.Minute

// NewTerminal returns a cols×rows terminal in cooked mode.
func NewTerminal(cols, rows int) *Terminal {
	t := &Terminal{input: make(chan []byte), gone: make(chan struct{}), emu: vt.NewEmulator(cols, rows), cols: cols, rows: rows}
	t.hist = t.emu.EnableHistory(1 << 20)
	return t
}

// Scrollback returns the lines the terminal keeps in its scrollback
// (those scrolled off the top of its primary screen), oldest first,
// trailing blanks removed.
func (t *Terminal) Scrollback() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.syncScrollback()
	out := make([]string, len(t.sb))
	for i, l := range t.sb {
		out[i] = strings.TrimRight(l.Row(max(l.Width, 1)).Text(), " ")
	}
	return out
}

// syncScrollback adds to sb the lines the emulator recorded since.
func (t *Terminal) syncScrollback() {
	for ; t.seen < t.hist.Total(); t.seen++ {
		if l, ok := t.hist.Line(t.seen); ok {
			t.sb = append(t.sb, l)
		}
	}
}

// Type sends s as one read's worth of typed bytes; it blocks until the
// client takes it.
func (t *Terminal) Type(s string) { t.input <- []byte(s) }

// Hangup closes the input, as when the terminal goes away.
func (t *Terminal) Hangup() {
	t.mu.Lock()
	t.hungUp = true
	t.mu.Unlock()
	t.goneOnce.Do(func() { close(t.gone) })
	t.answers.Wait()
	close(t.input)
}

// Close drops the answers still on their way to a client that has ended
// (a test's cleanup: in a synctest bubble they would outlive the test).
func (t *Terminal) Close() {
	t.goneOnce.Do(func() { close(t.gone) })
	t.answers.Wait()
}

// SetSize changes the window size as xterm and tmux do, keeping the text
// at the bottom: shrinking, rows below the cursor go and then rows leave
// the top for the scrollback; growing, lines come back from the
// scrollback onto the top. The test then sends the client
// session.SignalResize, as the kernel would send SIGWINCH; a test that
// changes the size several times before it does stands for a window
// dragged faster than the client hears of it.
func (t *Terminal) SetSize(cols, rows int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setSize(cols, rows)
}

// ResizeAfterAnswer makes the terminal take each of the heights in turn
// (as SetSize) the moment it has answered the next query that came alone,
// before it renders anything the client writes after reading the answer:
// a window resized between a client's question and the paint that
// follows the answer. The test then sends session.SignalResize.
func (t *Terminal) ResizeAfterAnswer(rows ...int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.racing = rows
}

// SetReadSize makes the terminal read what the client writes n bytes at
// a time, as xterm and tmux read 4 KiB at a time: between two reads of
// one write, the window may change (ResizeMidWrite).
func (t *Terminal) SetReadSize(n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.readSize = n
}

// ResizeMidWrite makes the terminal take each of the heights in turn (as
// SetSize) while it renders the next large write (1 KiB or more, a
// repaint): after its first read if it takes more than one, else right
// after it. The test then sends session.SignalResize. MidWriteResizes
// says when it happened.
func (t *Terminal) ResizeMidWrite(rows ...int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.midWrite = rows
}

// MidWriteResizes returns how many times ResizeMidWrite's heights were
// taken.
func (t *Terminal) MidWriteResizes() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.midDone
}

// ResizeBeforeWrites makes the terminal take the heights (as SetSize)
// one by one, each just before it reads the next write that is more than
// a query alone: a window dragged while the client's paints were on their
// way. The test then sends session.SignalResize.
func (t *Terminal) ResizeBeforeWrites(rows ...int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.preWrite = rows
}

// largeWrite is where ResizeMidWrite's writes start.
const largeWrite = 1024

// queryAlone bounds the writes ResizeAfterAnswer takes for a query alone.
const queryAlone = 32

func (t *Terminal) setSize(cols, rows int) {
	t.syncScrollback()
	old := t.rows
	t.cols, t.rows = cols, rows
	t.emu.Resize(cols, rows)
	t.syncScrollback()
	p := min(rows-old, len(t.sb))
	if p <= 0 || t.emu.Framebuffer().Modes().AltScreen {
		return
	}
	pulled := t.sb[len(t.sb)-p:]
	t.sb = t.sb[:len(t.sb)-p]
	b := fmt.Appendf(nil, "\x1b7\x1b[H\x1b[%dL", p) // rows move down
	for i, l := range pulled {
		b = fmt.Appendf(b, "\x1b[%d;1H\x1b[0m", i+1)
		b = append(b, l.Text...)
	}
	b = fmt.Appendf(b, "\x1b8\x1b[%dB", p) // the cursor moves with its text
	t.emu.Feed(b, nil)
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

// Cursor returns where the cursor is and whether it shows.
func (t *Terminal) Cursor() (x, y int, visible bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fb := t.emu.Framebuffer()
	x, y = fb.Cursor()
	return x, y, fb.CursorVisible()
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

// Mute makes the terminal answer no queries, as a few do not.
func (t *Terminal) Mute() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.mute = true
}

// IgnoreAltScreen makes the terminal ignore mode 1049, as GNU screen
// does by default, tmux with alternate-screen off and xterm with
// titeInhibit: it has one screen, on which the alternate screen's rows
// are drawn over the primary one's, and 1049 neither saves nor restores
// the cursor.
func (t *Terminal) IgnoreAltScreen() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.oneScreen = true
}

// altScreenModes are the sequences IgnoreAltScreen takes out of what the
// client writes (it writes mode 1049 alone, never in a list).
var altScreenModes = []string{"\x1b[?1049h", "\x1b[?1049l"}

// Write renders p. Queries in it (the cursor position, DSR 6) are
// answered on the input, after what was typed before, as a terminal does.
func (t *Terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	size := len(p)
	if t.oneScreen {
		for _, m := range altScreenModes {
			p = bytes.ReplaceAll(p, []byte(m), nil)
		}
	}
	if len(t.preWrite) > 0 && len(p) > queryAlone {
		t.setSize(t.cols, t.preWrite[0])
		t.preWrite = t.preWrite[1:]
	}
	var reply []byte
	if len(t.midWrite) > 0 && len(p) >= largeWrite {
		n := len(p)
		if t.readSize > 0 {
			n = min(n, t.readSize)
		}
		reply = t.emu.Feed(p[:n], nil)
		for _, rows := range t.midWrite {
			t.setSize(t.cols, rows)
		}
		t.midWrite = nil
		t.midDone++
		reply = t.emu.Feed(p[n:], reply)
	} else {
		reply = t.emu.Feed(p, nil)
	}
	t.written += size
	if t.keep {
		t.snaps = append(t.snaps, Snapshot{At: time.Now(), FB: t.emu.Framebuffer().Clone()})
	}
	if len(reply) > 0 && len(p) <= queryAlone && len(t.racing) > 0 {
		for _, rows := range t.racing {
			t.setSize(t.cols, rows)
		}
		t.racing = nil
	}
	if len(reply) > 0 && !t.mute && !t.hungUp {
		t.answers.Add(1)
		go func() {
			defer t.answers.Done()
			select {
			case t.input <- reply:
			case <-t.gone:
			case <-time.After(answerWait): // the client is gone
			}
		}()
	}
	return size, nil
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

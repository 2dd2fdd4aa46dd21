//go:build unix

package e2etest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gosh-term/gosh/internal/vt"
)

// Term runs a program in a pseudo-terminal the test owns and mirrors its
// output into a gosh emulator, timestamping every read: the precise way to
// ask "when did this appear on the user's screen". (Tmux is the way to
// watch a real terminal emulator; Term is the way to time one.)
type Term struct {
	t   testing.TB
	cmd *exec.Cmd
	pty *os.File

	mu      sync.Mutex // guards following
	emu     *vt.Emulator
	last    time.Time // when the latest output arrived
	waiters []*termWaiter
	keep    bool       // record every screen state
	snaps   []Snapshot // when keep
	exited  bool
	done    chan struct{} // closed when the reader ends

	exitErr error         // set before exitCh is closed
	exitCh  chan struct{} // closed when the program has exited
}

type termWaiter struct {
	cond func(fb *vt.Framebuffer) bool
	at   time.Time
	hit  chan struct{}
}

// Snapshot is the screen as it was right after one read of a program's
// output, and when that read returned.
type Snapshot struct {
	At time.Time
	FB *vt.Framebuffer
}

// StartTerm runs argv in a cols×rows pseudo-terminal with env added to the
// environment, and ends it when the test ends.
func StartTerm(t testing.TB, cols, rows int, env []string, argv ...string) *Term {
	return startTerm(t, false, cols, rows, env, argv...)
}

// startTerm is StartTerm, optionally recording every screen state.
func startTerm(t testing.TB, keep bool, cols, rows int, env []string, argv ...string) *Term {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatalf("starting %v: %v", argv, err)
	}
	tm := &Term{t: t, cmd: cmd, pty: f, emu: vt.NewEmulator(cols, rows), keep: keep,
		done: make(chan struct{}), exitCh: make(chan struct{})}
	go tm.read()
	go func() { tm.exitErr = cmd.Wait(); close(tm.exitCh) }()
	t.Cleanup(tm.Close)
	return tm
}

func (tm *Term) read() {
	defer close(tm.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := tm.pty.Read(buf)
		now := time.Now()
		if n > 0 {
			tm.mu.Lock()
			reply := tm.emu.Feed(buf[:n], nil)
			if tm.keep {
				tm.snaps = append(tm.snaps, Snapshot{At: now, FB: tm.emu.Framebuffer().Clone()})
			}
			tm.last = now
			tm.checkLocked(now)
			tm.mu.Unlock()
			if len(reply) > 0 {
				_, _ = tm.pty.Write(reply) // a terminal answers queries
			}
		}
		if err != nil {
			tm.mu.Lock()
			tm.exited = true
			tm.mu.Unlock()
			return
		}
	}
}

func (tm *Term) checkLocked(now time.Time) {
	if len(tm.waiters) == 0 {
		return
	}
	fb := tm.emu.Framebuffer()
	kept := tm.waiters[:0]
	for _, w := range tm.waiters {
		if w.cond(fb) {
			w.at = now
			close(w.hit)
			continue
		}
		kept = append(kept, w)
	}
	tm.waiters = kept
}

func (tm *Term) screenLocked() []string { return Rows(tm.emu.Framebuffer()) }

// Rows returns the rows of fb, trailing blanks removed.
func Rows(fb *vt.Framebuffer) []string {
	rows := make([]string, fb.Height())
	for y := range rows {
		rows[y] = fb.Row(y).Text()
	}
	return rows
}

// Screen returns the rows of the emulated screen, trailing blanks removed.
func (tm *Term) Screen() []string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.screenLocked()
}

// Framebuffer returns a copy of the emulated screen.
func (tm *Term) Framebuffer() *vt.Framebuffer {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.emu.Framebuffer().Clone()
}

// Type writes keys to the program as the user's keyboard would.
func (tm *Term) Type(keys string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(keys)); err != nil {
		tm.t.Fatalf("typing %q: %v", keys, err)
	}
}

// Watch registers cond, checked against the screen after every read; the
// returned function waits up to timeout and returns when cond first held.
// Registering before the action that should change the screen avoids
// missing a change.
func (tm *Term) Watch(cond func(screen []string) bool) func(timeout time.Duration, what string) time.Time {
	return tm.WatchScreen(func(fb *vt.Framebuffer) bool { return cond(Rows(fb)) })
}

// WatchScreen is Watch with a condition on the whole screen (cells,
// cursor, renditions).
func (tm *Term) WatchScreen(cond func(fb *vt.Framebuffer) bool) func(timeout time.Duration, what string) time.Time {
	w := &termWaiter{cond: cond, hit: make(chan struct{})}
	tm.mu.Lock()
	if cond(tm.emu.Framebuffer()) {
		w.at = time.Now()
		close(w.hit)
	} else {
		tm.waiters = append(tm.waiters, w)
	}
	tm.mu.Unlock()
	return func(timeout time.Duration, what string) time.Time {
		tm.t.Helper()
		select {
		case <-w.hit:
			return w.at
		case <-time.After(timeout):
			tm.t.Fatalf("timed out after %v waiting for %s; screen:\n%s", timeout, what, Dump(tm.Screen()))
			return time.Time{}
		}
	}
}

// WaitForText waits until text is on the screen and returns when it
// appeared.
func (tm *Term) WaitForText(timeout time.Duration, text string) time.Time {
	tm.t.Helper()
	return tm.Watch(func(s []string) bool { return strings.Contains(strings.Join(s, "\n"), text) })(timeout, fmt.Sprintf("%q", text))
}

// Quiet waits until no output has arrived for d (at most max).
func (tm *Term) Quiet(d, max time.Duration) {
	start := time.Now()
	for time.Since(start) < max {
		tm.mu.Lock()
		last := tm.last
		tm.mu.Unlock()
		if time.Since(last) >= d && time.Since(start) >= d {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Snapshots returns every screen state recorded from since on (only a
// Typist records them).
func (tm *Term) Snapshots(since time.Time) []Snapshot {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	i, _ := slices.BinarySearchFunc(tm.snaps, since, func(s Snapshot, t time.Time) int { return s.At.Compare(t) })
	return slices.Clone(tm.snaps[i:])
}

// Wait waits for the program to exit and returns its error.
func (tm *Term) Wait(timeout time.Duration) error {
	select {
	case <-tm.exitCh:
		return tm.exitErr
	case <-time.After(timeout):
		return errors.New("e2etest: the program did not exit")
	}
}

// PID is the program's process id.
func (tm *Term) PID() int { return tm.cmd.Process.Pid }

// Close kills the program if it still runs and releases the terminal.
func (tm *Term) Close() {
	select {
	case <-tm.exitCh:
	default:
		_ = tm.cmd.Process.Kill()
	}
	<-tm.exitCh
	tm.pty.Close()
	<-tm.done
}

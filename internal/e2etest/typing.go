//go:build unix

package e2etest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/keylat"
	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/vt"
)

// Keystroke is one key of a typing workload: the bytes a terminal sends
// for it (a character, or a whole escape sequence for an arrow), typed
// Pause after the previous one.
type Keystroke struct {
	Keys  string
	Pause time.Duration
}

// Typist is a Term that records every state its screen went through and
// types with a typist's timing: the raw material to tell when each
// keystroke showed and whether a wrong character ever did.
type Typist struct{ *Term }

// StartTypist runs argv in a cols×rows pseudo-terminal with env added to
// the environment, and ends it when the test ends.
func StartTypist(t testing.TB, cols, rows int, env []string, argv ...string) *Typist {
	t.Helper()
	return &Typist{startTerm(t, true, cols, rows, env, argv...)}
}

// Screen returns a copy of the current screen.
func (ty *Typist) Screen() *vt.Framebuffer { return ty.Framebuffer() }

// WaitFor waits until cond holds, failing the test after timeout.
func (ty *Typist) WaitFor(timeout time.Duration, what string, cond func(fb *vt.Framebuffer) bool) {
	ty.t.Helper()
	ty.WatchScreen(cond)(timeout, what)
}

// Type types the keystrokes with their pauses and returns when each one
// was written.
func (ty *Typist) Type(keys []Keystroke) []time.Time {
	ty.t.Helper()
	at := make([]time.Time, len(keys))
	next := time.Now()
	for i, k := range keys {
		next = next.Add(k.Pause)
		time.Sleep(time.Until(next))
		at[i] = time.Now()
		if _, err := ty.pty.Write([]byte(k.Keys)); err != nil {
			ty.t.Fatalf("typing %q: %v", k.Keys, err)
		}
	}
	return at
}

// RecordReference types keys into a program running directly in a
// terminal (no network), one at a time, waiting for the screen to settle
// after each, and returns the screen after each keystroke: what a session
// over any link must eventually show, keystroke by keystroke. The
// program's first screen is waitReady's business. On a loaded machine a
// screen can settle late; the recording is therefore made twice (and up
// to twice more) until two agree, failing the test otherwise.
func RecordReference(t testing.TB, cols, rows int, env []string, argv []string, waitReady func(*Typist), keys []Keystroke) []*vt.Framebuffer {
	t.Helper()
	prev := recordOnce(t, cols, rows, env, argv, waitReady, keys)
	for range 3 {
		refs := recordOnce(t, cols, rows, env, argv, waitReady, keys)
		if i := firstDifference(prev, refs); i < 0 {
			return refs
		} else {
			t.Logf("reference recordings differ after keystroke %d (%q); recording again", i, keys[i].Keys)
		}
		prev = refs
	}
	t.Fatalf("no two reference recordings agree: the machine is too busy to measure")
	return nil
}

func recordOnce(t testing.TB, cols, rows int, env []string, argv []string, waitReady func(*Typist), keys []Keystroke) []*vt.Framebuffer {
	t.Helper()
	ty := StartTypist(t, cols, rows, env, argv...)
	defer ty.Close()
	waitReady(ty)
	ty.Quiet(200*time.Millisecond, 5*time.Second)
	refs := make([]*vt.Framebuffer, len(keys))
	for i, k := range keys {
		if _, err := ty.pty.Write([]byte(k.Keys)); err != nil {
			t.Fatalf("typing %q: %v", k.Keys, err)
		}
		settle := 100 * time.Millisecond
		if k.Pause >= time.Second || strings.ContainsAny(k.Keys, "\r\x1b") {
			settle = 400 * time.Millisecond // a command runs, or vi changes mode
		}
		time.Sleep(2 * time.Millisecond)
		ty.Quiet(settle, 5*time.Second)
		refs[i] = ty.Screen()
	}
	return refs
}

// firstDifference returns the first index where a and b show different
// rows or cursors, or -1.
func firstDifference(a, b []*vt.Framebuffer) int {
	for i := range a {
		ax, ay := a[i].Cursor()
		bx, by := b[i].Cursor()
		if ax != bx || ay != by || !slices.Equal(Rows(a[i]), Rows(b[i])) {
			return i
		}
	}
	return -1
}

// TypingResult measures how a session showed a typing workload: see
// [keylat.Result].
type TypingResult = keylat.Result

// The measurement's bounds, from [keylat].
const (
	WrongWindow    = keylat.WrongWindow
	Transient      = keylat.Transient
	InstantLatency = keylat.InstantLatency
)

// MeasureTyping matches the screen states a session went through (snaps)
// against the reference screens after each keystroke (refs) typed at the
// given times, with [keylat.Measure]. With GOSH_TYPING_DEBUG set, it
// prints each wrong screen with its reference to standard error.
func MeasureTyping(at []time.Time, refs []*vt.Framebuffer, snaps []Snapshot) TypingResult {
	ks := make([]keylat.Snapshot, len(snaps))
	for i, s := range snaps {
		ks[i] = keylat.Snapshot(s)
	}
	var logf logf.Func
	if os.Getenv("GOSH_TYPING_DEBUG") != "" {
		logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format, args...) }
	}
	return keylat.Measure(at, refs, ks, logf)
}

// SameLine reports whether a and b have the cursor at the same place and
// the same text on its row: see [keylat.SameLine].
func SameLine(a, b *vt.Framebuffer) bool { return keylat.SameLine(a, b) }

// WrongCell finds an underlined character on fb that none of refs has at
// that place: see [keylat.WrongCell].
func WrongCell(fb *vt.Framebuffer, refs []*vt.Framebuffer) (x, y int, found bool) {
	return keylat.WrongCell(fb, refs)
}

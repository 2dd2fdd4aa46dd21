//go:build unix

package e2etest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

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

// TypingResult measures how a session showed a typing workload.
type TypingResult struct {
	Keys int
	// Latency is, per keystroke, how long after it was typed the screen
	// first showed it (the cursor and the text of its row as they are
	// after it, or after a later keystroke already typed); -1 if never.
	Latency []time.Duration
	// Wrong marks the keystrokes during which the screen showed a wrong
	// prediction: an underlined character that the screen did not hold
	// at that place after any keystroke of the previous WrongWindow
	// (screen states that lasted less than Transient excepted).
	Wrong []bool
}

// WrongWindow is how far back a shown prediction may match the reference:
// a prediction stands for keystrokes whose echo comes an RTT and a few
// frame intervals later, and can lag what has been typed since.
const WrongWindow = 2 * time.Second

// Transient is how long a screen state must last to count as shown wrong:
// the client writes each frame at once, but the terminal may deliver it
// in pieces, whose intermediate states (a scroll without the rows redrawn
// after it) were never meant to be seen.
const Transient = time.Millisecond

// InstantLatency is the "shown at once" bound.
const InstantLatency = 5 * time.Millisecond

// MeasureTyping matches the screen states a session went through (snaps)
// against the reference screens after each keystroke (refs) typed at the
// given times.
func MeasureTyping(at []time.Time, refs []*vt.Framebuffer, snaps []Snapshot) TypingResult {
	r := TypingResult{Keys: len(at), Latency: make([]time.Duration, len(at)), Wrong: make([]bool, len(at))}
	for i := range r.Latency {
		r.Latency[i] = -1
	}
	last := -1
	for n, s := range snaps {
		for last+1 < len(at) && !at[last+1].After(s.At) {
			last++
		}
		if last < 0 {
			continue
		}
		for j := last; j >= 0 && r.Latency[j] < 0; j-- {
			if SameLine(s.FB, refs[j]) {
				for i := j; i >= 0 && r.Latency[i] < 0; i-- {
					r.Latency[i] = s.At.Sub(at[i])
				}
				break
			}
		}
		if n+1 < len(snaps) && snaps[n+1].At.Sub(s.At) < Transient {
			continue // a frame read in pieces: not on the screen long enough to be seen
		}
		from := last
		for from > 0 && s.At.Sub(at[from]) < WrongWindow {
			from--
		}
		if x, y, bad := WrongCell(s.FB, refs[from:last+1]); bad {
			if !r.Wrong[last] && os.Getenv("GOSH_TYPING_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "wrong cell (%d,%d) after key %d:\n%s\nreference:\n%s\n", x, y, last, Dump(Rows(s.FB)), Dump(Rows(refs[last])))
			}
			r.Wrong[last] = true
		}
	}
	return r
}

// SameLine reports whether a and b have the cursor at the same place and
// the same text on its row.
func SameLine(a, b *vt.Framebuffer) bool {
	ax, ay := a.Cursor()
	bx, by := b.Cursor()
	return ax == bx && ay == by && a.Row(ay).Text() == b.Row(by).Text()
}

// WrongCell finds an underlined character on fb that none of refs has at
// that place.
func WrongCell(fb *vt.Framebuffer, refs []*vt.Framebuffer) (x, y int, found bool) {
	w, h := fb.Size()
	for y := range h {
		for x := range w {
			c := fb.Cell(x, y)
			if c.Rend.Attrs.Underline() == vt.UnderlineNone || c.IsBlank() {
				continue
			}
			if !slices.ContainsFunc(refs, func(r *vt.Framebuffer) bool { return sameText(c, r.Cell(x, y)) }) {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

func sameText(a, b vt.Cell) bool {
	if a.IsBlank() || b.IsBlank() {
		return a.IsBlank() && b.IsBlank()
	}
	return a.Text() == b.Text()
}

// Summary returns the figures: keystrokes shown within InstantLatency,
// shown wrongly, and the median and mean latency (a keystroke never shown
// counts as 10 s).
func (r TypingResult) Summary() (instant, wrong float64, median, mean time.Duration) {
	lat := make([]time.Duration, len(r.Latency))
	var sum time.Duration
	n, w := 0, 0
	for i, d := range r.Latency {
		if d < 0 {
			d = 10 * time.Second
		}
		if d <= InstantLatency {
			n++
		}
		if r.Wrong[i] {
			w++
		}
		lat[i] = d
		sum += d
	}
	slices.Sort(lat)
	k := float64(len(lat))
	return float64(n) / k, float64(w) / k, lat[len(lat)/2], sum / time.Duration(len(lat))
}

// String formats the summary.
func (r TypingResult) String() string {
	instant, wrong, median, mean := r.Summary()
	return fmt.Sprintf("%d keystrokes: %.1f%% shown within %v, %.1f%% shown wrongly, median %v, mean %v",
		r.Keys, 100*instant, InstantLatency, 100*wrong, median.Round(100*time.Microsecond), mean.Round(100*time.Microsecond))
}

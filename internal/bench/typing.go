package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/bench/keylat"
	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/vt"
)

// Screen size of every typing run.
const (
	typingCols = 80
	typingRows = 24
)

// QuickKeys is how many keystrokes of each workload a --quick run types.
const QuickKeys = 40

// TypingOptions configure [Typing].
type TypingOptions struct {
	// Link is the emulated link between client and server.
	Link linkem.Profile
	// With names the transports compared (Transports); nil means ssh,
	// gosh and gosh-nopredict, and mosh when it is installed.
	With []string
	// Workload is what is typed.
	Workload *workload.Workload
	// MaxKeys, if positive, types only the first MaxKeys keystrokes.
	MaxKeys int
	// Seed makes the link's randomness repeatable: run r (from 0) of
	// every transport uses Seed+r, so all of them meet the same loss and
	// jitter draws.
	Seed uint64
	// Runs is how many times each transport types the workload, one seed
	// after another; 0 means 1.
	Runs int
	// Pacing is the gosh transports' pacing (ssp.Pacing).
	Pacing ssp.Pacing
	// Gosh is the gosh binary the gosh transports run as a user runs it
	// (gosh server new, and gosh connect --direct in a pseudo-terminal,
	// as mosh-client runs); "" runs the client and server loops in this
	// process instead.
	Gosh string
	// Progress receives a line per step; nil discards them.
	Progress io.Writer
}

// TypingResult is one transport's runs of a workload over a link.
type TypingResult struct {
	Transport string
	Workload  string
	Link      string
	// Skipped says why the transport did not run ("" if it did).
	Skipped string
	// Predicts says whether the transport has a prediction engine;
	// without one, Wrong means nothing.
	Predicts bool
	// Note says how the transport ran (for ssh: the TCP congestion
	// control).
	Note string
	// Runs are the runs, one per seed, and Failed says why any other
	// run could not be measured.
	Runs   []TypingRun
	Failed []string
}

// TypingRun is one run of one transport: the workload typed once, with
// one seed of the link's randomness.
type TypingRun struct {
	Seed uint64
	// Result is per keystroke (keylat.Result), Stats its figures.
	Result keylat.Result
	Stats  keylat.Stats
	// Wire is the bytes that crossed the link, both ways, while typing.
	Wire int64
	// Mismatch, if not empty, says that the session's final screen
	// differs from the reference's: the run did not type what the
	// reference did (a transport lost keys, or the workload is not
	// deterministic).
	Mismatch string
}

// BytesPerKey is the wire bytes per keystroke.
func (r TypingRun) BytesPerKey() float64 {
	if r.Result.Keys == 0 {
		return 0
	}
	return float64(r.Wire) / float64(r.Result.Keys)
}

// DefaultTransports are the transports compared when none are named.
func DefaultTransports() []string {
	with := []string{TransportSSH, TransportGosh, TransportGoshNoPredict}
	if _, err := starterFor(TransportMosh, transportConfig{}); err == nil {
		with = append(with, TransportMosh)
	}
	return with
}

// Typing types a workload into a real shell through each transport over
// the same emulated link, and measures when each keystroke showed on the
// client's screen against a reference recording (the same keys typed
// slowly into the same shell with no network), and whether a wrong
// prediction ever showed. The runs are one after another, so they share
// no CPU and the workload's files are the same for each.
func Typing(ctx context.Context, o TypingOptions) ([]TypingResult, error) {
	with := o.With
	if with == nil {
		with = DefaultTransports()
	}
	tb, skipped, err := newTypingBench(ctx, o.Workload, o.MaxKeys, o.Progress)
	if err != nil || tb == nil {
		return skippedAll(with, o.Workload.Name, o.Link.Name, skipped), err
	}
	defer tb.close()
	tb.cfg = transportConfig{pacing: o.Pacing, gosh: o.Gosh}
	return tb.run(ctx, o.Link, with, o.Seed, max(o.Runs, 1))
}

// skippedAll says that every transport was skipped, and why.
func skippedAll(with []string, workload, link, why string) []TypingResult {
	if why == "" {
		return nil
	}
	var out []TypingResult
	for _, name := range with {
		out = append(out, TypingResult{Transport: name, Workload: workload, Link: link, Skipped: why})
	}
	return out
}

// typingBench is a workload ready to be typed over links: its shell, its
// directory and its reference screens.
type typingBench struct {
	w        workload.Workload
	base     string
	spec     remoteSpec
	refs     []*vt.Framebuffer
	cfg      transportConfig
	progress io.Writer
	// tap is this program's executable, which runs the tap (TapArgs)
	// that records the server's screen during a typing run; "" for none.
	tap string
	// seeSession, if not nil, is shown each run's session before it is
	// measured (tests).
	seeSession func(*keylat.Session)
	// starters, if not nil, replaces starterFor (tests).
	starters func(name string) (starter, error)
}

// newTypingBench prepares w (its first maxKeys keys, if positive) and
// records its reference. It returns a nil bench and why when the
// workload's program is not installed.
func newTypingBench(ctx context.Context, wl *workload.Workload, maxKeys int, progress io.Writer) (*typingBench, string, error) {
	if progress == nil {
		progress = io.Discard
	}
	w := *wl
	if maxKeys > 0 && len(w.Keys) > maxKeys {
		w.Keys = w.Keys[:maxKeys]
	}
	if len(w.Keys) == 0 {
		return nil, "", errors.New("bench: the workload has no keystrokes")
	}
	for _, p := range w.Programs() {
		if _, err := exec.LookPath(p); err != nil {
			why := p + " is not installed"
			fmt.Fprintf(progress, "%s: skipped: %s\n", w.Name, why)
			return nil, why, nil
		}
	}
	base, err := os.MkdirTemp("", "gosh-bench-")
	if err != nil {
		return nil, "", err
	}
	spec, err := shellSpec(base, shellOf(&w))
	if err != nil {
		os.RemoveAll(base)
		why := err.Error()
		fmt.Fprintf(progress, "%s: skipped: %s\n", w.Name, why)
		return nil, why, nil
	}
	tb := &typingBench{w: w, base: base, spec: spec, progress: progress}
	if exe, err := os.Executable(); err == nil && tapSupported {
		tb.tap = exe
	}
	if tb.refs, err = tb.record(ctx); err != nil {
		tb.close()
		return nil, "", fmt.Errorf("bench: recording the reference for %s: %w", w.Name, err)
	}
	return tb, "", nil
}

// referenceTries bounds the recordings of a reference.
const referenceTries = 4

// record records the workload's reference until two recordings agree,
// screen for screen: a machine that stalls for a moment (another
// program's burst of work) can make one recording miss an echo, and
// every transport's figures would then be measured against a wrong
// screen. If no two agree, it keeps the last and says so: the workload
// is not deterministic.
func (tb *typingBench) record(ctx context.Context) ([]*vt.Framebuffer, error) {
	var tries [][]*vt.Framebuffer
	for n := range referenceTries {
		fmt.Fprintf(tb.progress, "%s: recording the reference (%d keys, no network), %d of at most %d\n", tb.w.Name, len(tb.w.Keys), n+1, referenceTries)
		if err := resetDir(tb.spec.Dir, &tb.w); err != nil {
			return nil, err
		}
		refs, err := recordReference(ctx, tb.spec, &tb.w)
		if err != nil {
			return nil, err
		}
		for _, earlier := range tries {
			if i := firstDifferentScreen(earlier, refs); i < 0 {
				return refs, nil
			}
		}
		if len(tries) > 0 {
			i := firstDifferentScreen(tries[len(tries)-1], refs)
			fmt.Fprintf(tb.progress, "%s: the recording differs from the one before after key %d (%q)\n", tb.w.Name, i, tb.w.Keys[i].Key)
		}
		tries = append(tries, refs)
	}
	fmt.Fprintf(tb.progress, "%s: warning: no two of %d recordings of the reference agree; the last is used\n", tb.w.Name, referenceTries)
	return tries[len(tries)-1], nil
}

// firstDifferentScreen is the first index where a and b show different
// text or cursors, or -1.
func firstDifferentScreen(a, b []*vt.Framebuffer) int {
	for i := range min(len(a), len(b)) {
		ax, ay := a[i].Cursor()
		bx, by := b[i].Cursor()
		if ax != bx || ay != by || !sameRows(a[i], b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func (tb *typingBench) close() { os.RemoveAll(tb.base) }

// starter returns how to start the named transport.
func (tb *typingBench) starter(name string) (starter, error) {
	if tb.starters != nil {
		return tb.starters(name)
	}
	return starterFor(name, tb.cfg)
}

// run types the workload through each transport over link, runs times:
// run r of every transport with seed+r, the transports taking turns so
// that a change in the machine's load falls on all of them alike.
func (tb *typingBench) run(ctx context.Context, link linkem.Profile, with []string, seed uint64, runs int) ([]TypingResult, error) {
	results := make([]TypingResult, len(with))
	starts := make([]starter, len(with))
	for i, name := range with {
		results[i] = TypingResult{Transport: name, Workload: tb.w.Name, Link: link.Name, Predicts: predicts(name)}
		start, err := tb.starter(name)
		if err != nil {
			fmt.Fprintf(tb.progress, "%s/%s/%s: skipped: %v\n", link.Name, tb.w.Name, name, err)
			results[i].Skipped = err.Error()
			continue
		}
		starts[i] = start
	}
	for _, turn := range schedule(len(with), seed, runs) {
		i, name := turn.transport, with[turn.transport]
		if starts[i] == nil {
			continue
		}
		if err := resetDir(tb.spec.Dir, &tb.w); err != nil {
			return nil, err
		}
		fmt.Fprintf(tb.progress, "%s/%s/%s: run %d of %d (seed %d): typing %d keys\n", link.Name, tb.w.Name, name, turn.run+1, runs, turn.seed, len(tb.w.Keys))
		run, note, err := tb.typeOver(ctx, starts[i], link, turn.seed)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// One run that fails (a server that never showed its prompt
			// on a loaded machine) leaves the others standing.
			fmt.Fprintf(tb.progress, "%s/%s/%s: run %d failed: %v\n", link.Name, tb.w.Name, name, turn.run+1, err)
			results[i].Failed = append(results[i].Failed, fmt.Sprintf("run %d (seed %d): %v", turn.run+1, turn.seed, err))
			continue
		}
		results[i].Runs = append(results[i].Runs, run)
		results[i].Note = note
	}
	return results, nil
}

// turn is one run of one transport.
type turn struct {
	transport, run int
	seed           uint64
}

// schedule is the order of the runs of n transports: run r of every
// transport, with seed+r for all of them, then run r+1.
func schedule(n int, seed uint64, runs int) []turn {
	var out []turn
	for r := range runs {
		for i := range n {
			out = append(out, turn{transport: i, run: r, seed: seed + uint64(r)})
		}
	}
	return out
}

// resetDir empties dir and creates the workload's files in it.
func resetDir(dir string, w *workload.Workload) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, content := range w.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// settle is how long the screen must stay unchanged after a keystroke of
// the reference recording: a shell or an editor answers a key within a
// millisecond here; Enter runs a command and Escape makes vi wait for a
// possible escape sequence (ttimeoutlen, 100 ms in vim's defaults).
func settle(key string) time.Duration {
	switch {
	case strings.ContainsAny(key, "\r\n"):
		return 400 * time.Millisecond
	case strings.Contains(key, "\x1b"):
		return 250 * time.Millisecond
	}
	return 40 * time.Millisecond
}

// readyTimeout bounds the wait for the first prompt over a slow link.
const readyTimeout = 30 * time.Second

// endTimeout bounds the wait, after the last keystroke, for the screen to
// show it.
const endTimeout = 20 * time.Second

// waitReady waits for the workload's first screen: its ready text (or any
// output) and a quiet moment. Then it clears the screen (Ctrl-L, on which
// bash redraws its prompt at the top, or cls), so that every transport
// starts from the same screen whatever it showed first (mosh-server starts
// its client a line down).
func waitReady(m *mirror, w *workload.Workload, timeout time.Duration, typeKeys func([]byte) error) error {
	ready := w.Ready
	at := m.waitFor(timeout, func(fb *vt.Framebuffer) bool {
		for y := range fb.Height() {
			if t := fb.Row(y).Text(); strings.TrimSpace(t) != "" && (ready == "" || strings.Contains(t, ready)) {
				return true
			}
		}
		return false
	})
	if at.IsZero() {
		return fmt.Errorf("the session never showed %q", ready)
	}
	m.quiet(300*time.Millisecond, 5*time.Second)
	clear := clearKeys[shellOf(w)]
	if err := typeKeys([]byte(clear)); err != nil {
		return err
	}
	if m.waitFor(timeout, cleared).IsZero() {
		return fmt.Errorf("the screen did not clear after %q; it shows:\n%s", clear, rowsText(m.screen()))
	}
	m.quiet(300*time.Millisecond, 5*time.Second)
	return nil
}

// cleared reports whether fb shows nothing but the cursor's row: the
// screen after Ctrl-L in bash (the prompt on the top row) or cls in cmd
// (which draws an empty line before its prompt).
func cleared(fb *vt.Framebuffer) bool {
	_, cy := fb.Cursor()
	for y := range fb.Height() {
		if y != cy && strings.TrimSpace(fb.Row(y).Text()) != "" {
			return false
		}
	}
	return true
}

// sameRows reports whether a and b show the same text.
func sameRows(a, b *vt.Framebuffer) bool { return slices.Equal(textRows(a), textRows(b)) }

func textRows(fb *vt.Framebuffer) []string {
	rows := make([]string, fb.Height())
	for y := range rows {
		rows[y] = fb.Row(y).Text()
	}
	return rows
}

func rowsText(fb *vt.Framebuffer) string {
	var s string
	for _, r := range textRows(fb) {
		s += "| " + r + "\n"
	}
	return s
}

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
	// Seed makes the link's randomness repeatable.
	Seed uint64
	// Pacing is the gosh transports' pacing (ssp.Pacing).
	Pacing ssp.Pacing
	// Progress receives a line per step; nil discards them.
	Progress io.Writer
}

// TypingResult is one transport's measurement of a workload over a link.
type TypingResult struct {
	Transport string
	Workload  string
	Link      string
	// Skipped says why the transport did not run ("" if it did).
	Skipped string
	// Latency and Wrong are per keystroke (keylat.Result).
	Result keylat.Result
	Stats  keylat.Stats
	// Wire is the bytes that crossed the link, both ways, while typing.
	Wire int64
	// Note says how the transport ran (for ssh: the TCP congestion
	// control).
	Note string
	// Mismatch, if not empty, says that the session's final screen
	// differs from the reference's: the run did not type what the
	// reference did (a transport lost keys, or the workload is not
	// deterministic).
	Mismatch string
}

// BytesPerKey is the wire bytes per keystroke.
func (r TypingResult) BytesPerKey() float64 {
	if r.Result.Keys == 0 {
		return 0
	}
	return float64(r.Wire) / float64(r.Result.Keys)
}

// DefaultTransports are the transports compared when none are named.
func DefaultTransports() []string {
	with := []string{TransportSSH, TransportGosh, TransportGoshNoPredict}
	if _, err := starterFor(TransportMosh, 0); err == nil {
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
	tb.pacing = o.Pacing
	return tb.run(ctx, o.Link, with, o.Seed)
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
	pacing   ssp.Pacing
	progress io.Writer
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
	if w.Program != "" {
		if _, err := exec.LookPath(w.Program); err != nil {
			why := w.Program + " is not installed"
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
	fmt.Fprintf(progress, "%s: recording the reference (%d keys, no network)\n", w.Name, len(w.Keys))
	if err := resetDir(tb.spec.Dir, &w); err != nil {
		tb.close()
		return nil, "", err
	}
	if tb.refs, err = recordReference(ctx, tb.spec, &w); err != nil {
		tb.close()
		return nil, "", fmt.Errorf("bench: recording the reference for %s: %w", w.Name, err)
	}
	return tb, "", nil
}

func (tb *typingBench) close() { os.RemoveAll(tb.base) }

// run types the workload through each transport over link.
func (tb *typingBench) run(ctx context.Context, link linkem.Profile, with []string, seed uint64) ([]TypingResult, error) {
	var results []TypingResult
	for i, name := range with {
		start, err := starterFor(name, tb.pacing)
		if err != nil {
			fmt.Fprintf(tb.progress, "%s/%s/%s: skipped: %v\n", link.Name, tb.w.Name, name, err)
			results = append(results, TypingResult{Transport: name, Workload: tb.w.Name, Link: link.Name, Skipped: err.Error()})
			continue
		}
		if err := resetDir(tb.spec.Dir, &tb.w); err != nil {
			return nil, err
		}
		fmt.Fprintf(tb.progress, "%s/%s/%s: typing %d keys\n", link.Name, tb.w.Name, name, len(tb.w.Keys))
		r, err := typeOver(ctx, start, tb.spec, link, seed+uint64(i)*1000, &tb.w, tb.refs, tb.progress)
		if err != nil {
			return nil, fmt.Errorf("bench: %s over %s: %w", name, link.Name, err)
		}
		r.Transport, r.Workload, r.Link = name, tb.w.Name, link.Name
		results = append(results, r)
	}
	return results, nil
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

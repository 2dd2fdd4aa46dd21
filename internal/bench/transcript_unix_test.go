//go:build unix

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/session/sessiontest"
	"github.com/gosh-term/gosh/internal/vt"
)

var updateTranscripts = flag.Bool("update", false, "record testdata/transcripts/*.json again from the real programs")

// TestRecordTranscripts records, with -update, what each built-in POSIX
// workload's program writes after each key (testdata/transcripts), which
// the virtual-time typing tests replay. It needs bash, python3, vim and
// less; each recording is made twice (and up to twice more) until two
// agree screen by screen, so that a loaded machine cannot attribute a
// key's output to the next key.
func TestRecordTranscripts(t *testing.T) {
	if !*updateTranscripts {
		t.Skip("records the transcripts with -update")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	for _, name := range virtualWorkloads {
		w, err := workload.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := recordAgreed(ctx, w)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := json.MarshalIndent(tr, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("testdata", "transcripts", name+".json")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d keys, %d bytes of output", name, len(tr.Steps), transcriptBytes(tr))
	}
}

// recordSettle stretches the reference recording's settle times for the
// transcripts, which are made once and kept: on a loaded machine a shell's
// echo can take longer than the 40 ms the reference waits, and would be
// taken for the next key's output.
const recordSettle = 4

// recordAgreed records w's transcript until two recordings show the same
// screens after every key.
func recordAgreed(ctx context.Context, w *workload.Workload) (*sessiontest.Transcript, error) {
	prev, err := recordTranscript(ctx, w)
	if err != nil {
		return nil, err
	}
	for range 3 {
		tr, err := recordTranscript(ctx, w)
		if err != nil {
			return nil, err
		}
		if i := firstScreenDifference(prev, tr); i < 0 {
			return tr, nil
		} else {
			fmt.Fprintf(os.Stderr, "%s: recordings differ after step %d (%q); recording again\n", w.Name, i, tr.Steps[i].Key)
		}
		prev = tr
	}
	return nil, fmt.Errorf("no two recordings of %s agree: the machine is too busy", w.Name)
}

// firstScreenDifference returns the first step after which a and b show
// different screens, or -1.
func firstScreenDifference(a, b *sessiontest.Transcript) int {
	ra, rb := transcriptScreens(a), transcriptScreens(b)
	for i := range min(len(ra), len(rb)) {
		ax, ay := ra[i].Cursor()
		bx, by := rb[i].Cursor()
		if ax != bx || ay != by || !slices.Equal(textRows(ra[i]), textRows(rb[i])) {
			return i
		}
	}
	if len(ra) != len(rb) {
		return min(len(ra), len(rb))
	}
	return -1
}

// recordTranscript types w into its program in a local pty, as
// recordReference does (the screen cleared first, then each key once the
// screen settled after the previous one, recordSettle times as long),
// keeping what the program wrote
// before the first key and after each key.
func recordTranscript(ctx context.Context, w *workload.Workload) (*sessiontest.Transcript, error) {
	base, err := os.MkdirTemp("", "gosh-transcript-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(base)
	spec, err := shellSpec(base, shellOf(w))
	if err != nil {
		return nil, err
	}
	if err := resetDir(spec.Dir, w); err != nil {
		return nil, err
	}
	prog, err := pty.Start(pty.Spec{Command: spec.Argv, Env: spec.Env, Dir: spec.Dir, Cols: spec.Cols, Rows: spec.Rows})
	if err != nil {
		return nil, err
	}
	m := newMirror(spec.Cols, spec.Rows, false)
	m.reply = func(b []byte) { _, _ = prog.Write(b) }
	var raw takeBuffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(io.MultiWriter(&raw, m), prog)
	}()
	defer func() {
		prog.Close()
		<-copied
	}()
	tr := &sessiontest.Transcript{Name: w.Name, Cols: spec.Cols, Rows: spec.Rows}
	// As waitReady, but the clearing key's output is waited for from the
	// key on: the screen may pass for cleared before it is.
	if m.waitFor(10*time.Second, func(fb *vt.Framebuffer) bool { return strings.Contains(strings.Join(textRows(fb), "\n"), w.Ready) }).IsZero() {
		return nil, fmt.Errorf("%s never showed %q", w.Name, w.Ready)
	}
	m.quiet(300*time.Millisecond, 5*time.Second)
	tr.Start = raw.take()
	clear := clearKeys[shellOf(w)]
	at := time.Now()
	if _, err := prog.Write([]byte(clear)); err != nil {
		return nil, err
	}
	m.quietAfter(at, 400*time.Millisecond, 5*time.Second)
	if !cleared(m.screen()) {
		return nil, fmt.Errorf("the screen did not clear after %q; it shows:\n%s", clear, rowsText(m.screen()))
	}
	tr.Steps = append(tr.Steps, sessiontest.Step{Key: clear, Out: raw.take()})
	for i, k := range w.Keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		at := time.Now()
		if _, err := prog.Write([]byte(k.Key)); err != nil {
			return nil, fmt.Errorf("typing key %d (%q): %w", i, k.Key, err)
		}
		m.quietAfter(at, recordSettle*settle(k.Key), 10*time.Second)
		tr.Steps = append(tr.Steps, sessiontest.Step{Key: k.Key, Out: raw.take()})
	}
	return tr, nil
}

// takeBuffer collects what a program writes, for the recording to take
// piece by piece.
type takeBuffer struct {
	mu  sync.Mutex // guards following
	buf bytes.Buffer
}

func (b *takeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns what was written since the last take.
func (b *takeBuffer) take() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := bytes.Clone(b.buf.Bytes())
	b.buf.Reset()
	return out
}

// transcriptBytes is the program's output in tr, in bytes.
func transcriptBytes(tr *sessiontest.Transcript) int {
	n := len(tr.Start)
	for _, s := range tr.Steps {
		n += len(s.Out)
	}
	return n
}

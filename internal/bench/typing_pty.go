//go:build unix || windows

package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/bench/keylat"
	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/vt"
)

// recordReference types the workload into the shell in a local pty, one
// key at a time, waiting for the screen to settle after each, and returns
// the screen after each key: what a session over any link must show,
// keystroke by keystroke.
func recordReference(ctx context.Context, spec remoteSpec, w *workload.Workload) ([]*vt.Framebuffer, error) {
	prog, err := pty.Start(pty.Spec{Command: spec.Argv, Env: spec.Env, Dir: spec.Dir, Cols: spec.Cols, Rows: spec.Rows})
	if err != nil {
		return nil, err
	}
	m := newMirror(spec.Cols, spec.Rows, false)
	m.reply = func(b []byte) { _, _ = prog.Write(b) }
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(m, prog)
	}()
	defer func() {
		prog.Close()
		<-copied
	}()
	typeKeys := func(b []byte) error { _, err := prog.Write(b); return err }
	if err := waitReady(m, w, 10*time.Second, typeKeys); err != nil {
		return nil, err
	}
	refs := make([]*vt.Framebuffer, len(w.Keys))
	started := false // the key before started a program that now reads
	for i, k := range w.Keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		typed := time.Now()
		if _, err := prog.Write([]byte(k.Key)); err != nil {
			return nil, fmt.Errorf("typing key %d (%q): %w", i, k.Key, err)
		}
		// The echo first, if there is one, then quiet from the keystroke
		// on: on a loaded machine the echo can take longer than the
		// settling time, and the reference would miss it (a Backspace
		// under the race detector, in CI; two keys of the shell
		// workload on a machine with a load of 8 on 2 CPUs). A key that
		// changes nothing (a password's character) waits echoWait.
		// The first key a program just started reads may wait longer
		// (bash setting up readline under the race detector, at a load
		// of 4 on 2 CPUs, echoed it 300 ms late).
		wait := echoWait
		if started {
			wait = startedEchoWait
		}
		m.changedAfter(typed, wait)
		m.quietAfter(typed, settle(k.Key), 5*time.Second)
		started = strings.ContainsAny(k.Key, "\r\n") && awaitReader(prog.Canonical, readerTimeout)
		if started {
			m.quiet(settle(k.Key), 5*time.Second) // the program started: its first screen
		}
		refs[i] = m.screen()
	}
	return refs, nil
}

// waitEnd waits, at most limit, until the screen shows the last key's line
// (final) and has been quiet for 300 ms with it. A screen from before the
// last keys were echoed can have that line too (Backspaces back to an
// earlier text): on a loaded machine whose echoes lagged, the wait ended
// on such a screen, the echoes still to come, and the run was judged on
// a screen two keys behind.
func waitEnd(m *mirror, final *vt.Framebuffer, limit time.Duration) {
	end := time.Now().Add(limit)
	for {
		m.waitFor(time.Until(end), func(fb *vt.Framebuffer) bool { return keylat.SameLine(fb, final) })
		m.quiet(300*time.Millisecond, 3*time.Second)
		if keylat.SameLine(m.screen(), final) || !time.Now().Before(end) {
			return
		}
	}
}

// readerTimeout bounds the reference's wait for a program to read the
// terminal key by key after an Enter: one that reads lines (cat) never
// does.
const readerTimeout = 10 * time.Second

// awaitReader waits, at most limit, until the terminal leaves canonical
// mode (canonical reports it): until the program an Enter ran reads key
// by key, as bash, python's REPL, vim and less do, or the shell reads its
// next command. The settling time alone does not tell: python3 says
// nothing for the first 100 ms of its start, on a loaded machine for
// seconds, and the keys typed meanwhile would be echoed by the kernel on
// a line of their own, a screen no session ever shows after them (which
// made every later keystroke of the python workload "never shown" or
// wrong, one run in five on a loaded machine). It reports whether it
// waited; where the mode is unknown (canonical fails) it does not.
func awaitReader(canonical func() (bool, error), limit time.Duration) bool {
	end := time.Now().Add(limit)
	for waited := false; ; waited = true {
		c, err := canonical()
		if err != nil || !c || time.Now().After(end) {
			return waited && err == nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// echoWait is how long the reference recording waits for a keystroke's
// echo before it takes the key to change nothing.
const echoWait = 300 * time.Millisecond

// startedEchoWait is echoWait for the first key after an Enter that
// started a program reading the terminal key by key.
const startedEchoWait = 2 * time.Second

// typeOver runs the workload through one transport with one seed: it
// starts the transport (the server's program under the tap, when there is
// one; otherwise a transport whose server side runs in this process
// records the program's output), waits for the first screen, types each
// key after its gap, waits for the screen to show the last key, and
// measures. It returns the run
// and the transport's note. It is the run's steps in order (tap, start,
// type, wait, measure); hence its length.
func (tb *typingBench) typeOver(ctx context.Context, start starter, link linkem.Profile, seed uint64) (TypingRun, string, error) {
	spec, w, refs := tb.spec, &tb.w, tb.refs
	var tapLog string
	var trace *serverTrace
	if tb.tap == "" {
		// No tap (Windows): the transports whose server side runs in
		// this process record the program's output themselves.
		trace = &serverTrace{}
		spec.trace = trace
	} else {
		f, err := os.CreateTemp(tb.base, "tap-*.log")
		if err != nil {
			return TypingRun{}, "", err
		}
		tapLog = f.Name()
		f.Close()
		defer os.Remove(tapLog)
		spec.Argv = tapArgv(tb.tap, tapLog, spec.Cols, spec.Rows, spec.Argv)
	}
	lv, err := start(ctx, spec, link, seed)
	if err != nil {
		return TypingRun{}, "", err
	}
	defer lv.close()
	m := lv.screen()
	if err := waitReady(m, w, readyTimeout, lv.typeKeys); err != nil {
		return TypingRun{}, "", err
	}
	initial := m.screen()
	wire0 := lv.wire()
	at := make([]time.Time, len(w.Keys))
	next := time.Now()
	lastReport := next
	for i, k := range w.Keys {
		next = next.Add(k.Gap)
		select {
		case <-time.After(time.Until(next)):
		case <-ctx.Done():
			return TypingRun{}, "", ctx.Err()
		}
		at[i] = time.Now()
		if err := lv.typeKeys([]byte(k.Key)); err != nil {
			return TypingRun{}, "", fmt.Errorf("typing key %d: %w", i, err)
		}
		if time.Since(lastReport) >= 10*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(tb.progress, "  %d/%d keys\n", i+1, len(w.Keys))
		}
	}
	final := refs[len(refs)-1]
	waitEnd(m, final, endTimeout)
	run := TypingRun{Seed: seed, Wire: lv.wire() - wire0}
	session := keylat.Session{At: at, Refs: refs, Initial: initial, Screen: m.snapshots(at[0]),
		Up: link.Up.Delay, Down: link.Down.Delay}
	if tapLog != "" {
		if session.Server, err = readTapFile(tapLog); err != nil {
			return TypingRun{}, "", fmt.Errorf("reading the server's screens: %w", err)
		}
	} else {
		session.Server = trace.outputs()
	}
	if tb.seeSession != nil {
		tb.seeSession(&session)
	}
	if os.Getenv("GOSH_TYPING_DEBUG") != "" {
		session.Logf = func(format string, args ...any) { fmt.Fprintf(tb.progress, format, args...) }
	}
	run.Result = session.Measure()
	run.Stats = run.Result.Stats()
	if got := m.screen(); !sameRows(got, final) {
		run.Mismatch = fmt.Sprintf("the final screen differs from the reference's:\n%s\nreference:\n%s", rowsText(got), rowsText(final))
	}
	return run, lv.note(), nil
}

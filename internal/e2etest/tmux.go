package e2etest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tmux is a private tmux server with one window, owned by a test.
type Tmux struct {
	t    testing.TB
	sock string
	conf string // the configuration file
}

// RequireCommands fails the test, pointing at `make deps`, if any of the
// named programs is missing.
func RequireCommands(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if _, err := os.Stat(filepath.Join("/usr/sbin", n)); err == nil {
				continue
			}
			t.Fatalf("%s is not installed; run `make deps` (it installs the Debian packages the tests drive)", n)
		}
	}
}

// NewTmux starts a tmux server with a cols×rows window running argv with
// the extra environment env, and kills it when the test ends.
func NewTmux(t testing.TB, cols, rows int, env []string, argv ...string) *Tmux {
	t.Helper()
	return NewTmuxConf(t, "", cols, rows, env, argv...)
}

// NewTmuxConf is NewTmux with a tmux configuration file holding conf
// (tmux commands, one a line), such as "set -g alternate-screen off".
func NewTmuxConf(t testing.TB, conf string, cols, rows int, env []string, argv ...string) *Tmux {
	t.Helper()
	RequireCommands(t, "tmux")
	dir, err := os.MkdirTemp("", "gosh-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	tm := &Tmux{t: t, sock: filepath.Join(dir, "sock"), conf: os.DevNull}
	if conf != "" {
		tm.conf = filepath.Join(dir, "tmux.conf")
		if err := os.WriteFile(tm.conf, []byte(conf+"\n"), 0o600); err != nil {
			os.RemoveAll(dir)
			t.Fatal(err)
		}
	}
	// One command list: keep panes after their program exits (so the final
	// screen can be read), no status line (the pane is the whole window).
	args := []string{"start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
		"set-option", "-g", "status", "off", ";",
		"set-option", "-g", "history-limit", "100000", ";",
		"new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows)}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	args = append(args, "--")
	args = append(args, argv...)
	if out, err := tm.run(args...); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() {
		_, _ = tm.run("kill-server")
		os.RemoveAll(dir)
	})
	return tm
}

// run runs one tmux client command, bounded to 10 s, and returns its
// standard output (combined with standard error when it fails).
func (tm *Tmux) run(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "tmux", append([]string{"-S", tm.sock, "-f", tm.conf}, args...)...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return append(out, stderr.Bytes()...), err
	}
	return out, nil
}

// Send types keys literally (no key-name lookup).
func (tm *Tmux) Send(keys string) {
	tm.t.Helper()
	if out, err := tm.run("send-keys", "-l", "--", keys); err != nil {
		tm.t.Fatalf("tmux send-keys: %v: %s", err, out)
	}
}

// SendKey sends tmux key names such as "Enter", "C-c" or "Escape".
func (tm *Tmux) SendKey(names ...string) {
	tm.t.Helper()
	if out, err := tm.run(append([]string{"send-keys", "--"}, names...)...); err != nil {
		tm.t.Fatalf("tmux send-keys: %v: %s", err, out)
	}
}

// Screen returns the visible text of the pane, one string per row, with
// trailing spaces removed.
func (tm *Tmux) Screen() []string {
	tm.t.Helper()
	return tm.capture("-p")
}

// capture runs capture-pane with args and returns its rows, trailing
// spaces removed.
func (tm *Tmux) capture(args ...string) []string {
	tm.t.Helper()
	out, err := tm.run(append([]string{"capture-pane"}, args...)...)
	if err != nil {
		tm.t.Fatalf("tmux capture-pane: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// History returns the pane's scrollback followed by its visible rows, one
// string per row, trailing spaces removed (capture-pane -S -).
func (tm *Tmux) History() []string {
	tm.t.Helper()
	return tm.capture("-p", "-S", "-")
}

// Resize changes the window size.
func (tm *Tmux) Resize(cols, rows int) {
	tm.t.Helper()
	if out, err := tm.run("resize-window", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows)); err != nil {
		tm.t.Fatalf("tmux resize-window: %v: %s", err, out)
	}
}

// Cursor returns the cursor's column and row.
func (tm *Tmux) Cursor() (col, row int) {
	tm.t.Helper()
	out, err := tm.run("display-message", "-p", "#{cursor_x},#{cursor_y}")
	if err != nil {
		tm.t.Fatalf("tmux display-message: %v", err)
	}
	fmt.Sscanf(strings.TrimSpace(string(out)), "%d,%d", &col, &row)
	return col, row
}

// PaneDead reports whether the pane's program has exited, and its status.
func (tm *Tmux) PaneDead() (dead bool, status int) {
	tm.t.Helper()
	out, err := tm.run("display-message", "-p", "#{pane_dead},#{pane_dead_status}")
	if err != nil {
		return true, -1
	}
	var d int
	fmt.Sscanf(strings.TrimSpace(string(out)), "%d,%d", &d, &status)
	return d == 1, status
}

// KillWindow closes the window, as a user closing a terminal tab does:
// tmux closes the pane's terminal, whose programs get SIGHUP. With the
// test's one window gone the tmux server exits too.
func (tm *Tmux) KillWindow() {
	tm.t.Helper()
	if out, err := tm.run("kill-window"); err != nil {
		tm.t.Fatalf("tmux kill-window: %v: %s", err, out)
	}
}

// PanePID returns the pid of the program in the pane.
func (tm *Tmux) PanePID() int {
	tm.t.Helper()
	out, err := tm.run("display-message", "-p", "#{pane_pid}")
	if err != nil {
		tm.t.Fatalf("tmux display-message: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return pid
}

// WaitFor polls the screen until cond holds or timeout passes; it fails the
// test with the last screen on timeout.
func (tm *Tmux) WaitFor(timeout time.Duration, what string, cond func(screen []string) bool) []string {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := tm.Screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out after %v waiting for %s; screen:\n%s", timeout, what, Dump(s))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitForText waits until text appears anywhere on the screen.
func (tm *Tmux) WaitForText(timeout time.Duration, text string) []string {
	tm.t.Helper()
	return tm.WaitFor(timeout, fmt.Sprintf("%q", text), func(s []string) bool {
		return strings.Contains(strings.Join(s, "\n"), text)
	})
}

// WaitForSeq waits until the pane's history (History) holds the lines of
// "seq from to" in order, each once, as the last numbers in it: what a
// terminal that keeps every line that scrolled off shows after the
// command. Lines are numbers when their first word is one; earlier
// numbers must be below from. It fails the test on timeout, saying what
// the history held.
func (tm *Tmux) WaitForSeq(timeout time.Duration, from, to int) {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why := seqTail(tm.History(), from, to)
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out after %v waiting for lines %d..%d in the history: %s", timeout, from, to, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// seqTail reports what keeps history from ending its numbers with exactly
// from..to, or "".
func seqTail(history []string, from, to int) string {
	var nums []int
	for _, l := range history {
		if f := strings.Fields(l); len(f) > 0 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				nums = append(nums, n)
			}
		}
	}
	in := 0
	for _, n := range nums {
		if n >= from {
			in++
		}
	}
	want := to - from + 1
	if in != want || len(nums) < want {
		return fmt.Sprintf("%d numbers from %d on, want %d (%d numbers in all)", in, from, want, len(nums))
	}
	for i, n := range nums[len(nums)-want:] {
		if n != from+i {
			return fmt.Sprintf("line %d of the run is %d", i, n)
		}
	}
	return ""
}

// Dump renders a screen for failure messages.
func Dump(screen []string) string {
	var b bytes.Buffer
	for i, l := range screen {
		fmt.Fprintf(&b, "%2d|%s\n", i, l)
	}
	return b.String()
}

// Paste types text as one paste (tmux's paste-buffer), as a terminal
// delivers a clipboard paste.
func (tm *Tmux) Paste(text string) {
	tm.t.Helper()
	f, err := os.CreateTemp("", "gosh-paste-")
	if err != nil {
		tm.t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(text); err != nil {
		tm.t.Fatal(err)
	}
	f.Close()
	if out, err := tm.run("load-buffer", "-b", "gosh", f.Name()); err != nil {
		tm.t.Fatalf("tmux load-buffer: %v: %s", err, out)
	}
	if out, err := tm.run("paste-buffer", "-b", "gosh", "-d"); err != nil {
		tm.t.Fatalf("tmux paste-buffer: %v: %s", err, out)
	}
}

// PaneTitle returns the title the program in the pane set.
func (tm *Tmux) PaneTitle() string {
	tm.t.Helper()
	out, err := tm.run("display-message", "-p", "#{pane_title}")
	if err != nil {
		tm.t.Fatalf("tmux display-message: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// Record appends everything the pane's program writes to path (tmux
// pipe-pane), for diagnosing a failure.
func (tm *Tmux) Record(path string) {
	tm.t.Helper()
	if out, err := tm.run("pipe-pane", "-o", "cat >> "+path); err != nil {
		tm.t.Fatalf("tmux pipe-pane: %v: %s", err, out)
	}
}

// ScreenAttrs returns the visible rows with their attributes as SGR
// escape sequences (tmux capture-pane -e).
func (tm *Tmux) ScreenAttrs() []string {
	tm.t.Helper()
	out, err := tm.run("capture-pane", "-p", "-e")
	if err != nil {
		tm.t.Fatalf("tmux capture-pane: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

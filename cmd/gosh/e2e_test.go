//go:build linux

package main

// End-to-end tests: the real gosh binary, stock mosh-client and
// mosh-server, in terminals of a private tmux server, reading the rendered
// screen. Every server runs on 127.0.0.1 and is killed when its test ends.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// goshBin is the gosh binary under test, built once by TestMain.
var goshBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gosh-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goshBin = filepath.Join(dir, "gosh")
	// The daemons the tests start keep their control sockets to
	// themselves: not in the user's control directory, where the user's
	// gosh sessions would list them (and --kill could end them).
	runtime := filepath.Join(dir, "run")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_RUNTIME_DIR", runtime)
	args := []string{"build", "-o", goshBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building gosh:", err)
		os.Exit(1)
	}
	if raceEnabled {
		// Every gosh the tests start (daemons too, whose stderr is gone)
		// writes race reports here; any report fails the run.
		os.Setenv("GORACE", "log_path="+filepath.Join(dir, "race"))
	}
	code := m.Run()
	if reports, _ := filepath.Glob(filepath.Join(dir, "race.*")); len(reports) > 0 {
		for _, r := range reports {
			b, _ := os.ReadFile(r)
			fmt.Fprintf(os.Stderr, "race detected in a gosh process (%s):\n%s\n", r, b)
		}
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// shellArgv is the program the test servers run: an interactive bash with a
// fixed prompt and no user configuration.
var shellArgv = []string{"env", "PS1=e2e$ ", "HISTFILE=/dev/null", "bash", "--norc", "--noprofile", "-i"}

const prompt = "e2e$"

// localeEnv is what the servers and clients need: a UTF-8 locale.
var localeEnv = []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color"}

func startGoshServer(t *testing.T, extraEnv ...string) *e2etest.Server {
	t.Helper()
	argv := append([]string{goshBin, "server", "new", "-v", "-i", "127.0.0.1", "-p", "0", "--"}, shellArgv...)
	return e2etest.StartServer(t, append(append([]string{}, localeEnv...), extraEnv...), argv...)
}

func startMoshServer(t *testing.T) *e2etest.Server {
	t.Helper()
	e2etest.RequireCommands(t, "mosh-server")
	argv := append([]string{"mosh-server", "new", "-i", "127.0.0.1", "-p", "0", "--"}, shellArgv...)
	return e2etest.StartServer(t, localeEnv, argv...)
}

// goshSession starts gosh server and, in a tmux terminal, gosh connect to
// it through clientWrapper, and waits for the prompt.
func goshSession(t *testing.T, serverEnv ...string) (*e2etest.Server, *e2etest.Tmux, string) {
	t.Helper()
	server := startGoshServer(t, serverEnv...)
	dir := t.TempDir()
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, goshClient(server))...)
	tm.WaitForText(10*time.Second, prompt)
	return server, tm, dir
}

// relayedSession is goshSession with the datagrams going through a UDP
// relay on loopback.
func relayedSession(t *testing.T) (*e2etest.Server, *e2etest.Relay, *e2etest.Tmux, string) {
	t.Helper()
	server := startGoshServer(t)
	relay := e2etest.NewRelay(t, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), server.Port))
	dir := t.TempDir()
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, goshClientVia(server, relay))...)
	tm.WaitForText(10*time.Second, prompt)
	return server, relay, tm, dir
}

// clientWrapper runs a client command inside sh so the test can see its
// exit status and compare the terminal modes before and after.
func clientWrapper(dir, client string) []string {
	script := fmt.Sprintf(`stty -g > %[1]s/before; %[2]s; rc=$?; stty -g > %[1]s/after; echo "client-exit=$rc"; sleep 600`,
		dir, client)
	return []string{"sh", "-c", script}
}

// goshClientVia is goshClient through relay.
func goshClientVia(s *e2etest.Server, relay *e2etest.Relay) string {
	return fmt.Sprintf("MOSH_KEY=%s %s connect --direct 127.0.0.1 %d", s.Key, goshBin, relay.Addr().Port())
}

func goshClient(s *e2etest.Server) string {
	return fmt.Sprintf("MOSH_KEY=%s %s connect --direct 127.0.0.1 %d", s.Key, goshBin, s.Port)
}

func moshClient(s *e2etest.Server) string {
	return fmt.Sprintf("MOSH_KEY=%s mosh-client 127.0.0.1 %d", s.Key, s.Port)
}

// sessionScript is the end-to-end script every client/server pairing runs:
// output, resize, vim, UTF-8 and CJK, and a clean exit with the terminal
// restored.
func sessionScript(t *testing.T, tm *e2etest.Tmux, dir string, server *e2etest.Server) {
	const wait = 10 * time.Second
	var sttyAsked time.Time
	tm.WaitForText(wait, prompt)

	tm.Send("echo gosh-$((6*7))-ok\r")
	tm.WaitForText(wait, "gosh-42-ok")

	// The client learns of the resize by SIGWINCH, which can come after
	// keys typed at once (then stty reports the old size): ask again
	// until the new size shows.
	tm.Resize(100, 30)
	tm.WaitFor(wait, "stty size to report 30 100", func(screen []string) bool {
		for _, l := range screen {
			if strings.Contains(l, "30 100") {
				return true
			}
		}
		if last := time.Now(); last.Sub(sttyAsked) > time.Second {
			sttyAsked = last
			tm.Send("stty size\r")
		}
		return false
	})

	tm.Send("vim -u NONE -N -n " + filepath.Join(dir, "file.txt") + "\r")
	tm.WaitFor(wait, "vim's empty buffer", func(s []string) bool {
		tildes := 0
		for _, l := range s {
			if l == "~" {
				tildes++
			}
		}
		return tildes > 10
	})
	tm.Send("ihello from vim")
	tm.SendKey("Escape")
	tm.WaitForText(wait, "hello from vim")
	tm.Send(":q!\r")
	tm.WaitFor(wait, "the prompt after vim", func(s []string) bool {
		return s[lastNonEmpty(s)] == prompt
	})
	tm.Send("echo after-vim-$((3+4))\r")
	tm.WaitForText(wait, "after-vim-7")

	tm.Send("echo 'héllo wörld 世界 こんにちは'\r")
	tm.WaitForText(wait, "héllo wörld 世界 こんにちは\n")

	tm.Send("exit\r")
	tm.WaitForText(wait, "client-exit=0")
	checkRestored(t, dir)
	if !server.WaitExit(10 * time.Second) {
		t.Errorf("the server (pid %d) is still running after the shell exited", server.PID)
	}
}

// checkRestored compares the terminal modes clientWrapper saved before
// and after the client ran.
func checkRestored(t *testing.T, dir string) {
	t.Helper()
	before, err1 := os.ReadFile(filepath.Join(dir, "before"))
	after, err2 := os.ReadFile(filepath.Join(dir, "after"))
	if err1 != nil || err2 != nil || len(before) == 0 {
		t.Fatalf("reading the terminal modes: %v, %v", err1, err2)
	}
	if string(before) != string(after) {
		t.Errorf("terminal modes not restored:\nbefore %s\nafter  %s", before, after)
	}
}

func lastNonEmpty(s []string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if strings.TrimSpace(s[i]) != "" {
			return i
		}
	}
	return 0
}

func TestE2EGoshClientGoshServer(t *testing.T) {
	t.Parallel()
	server := startGoshServer(t)
	dir := t.TempDir()
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, goshClient(server))...)
	sessionScript(t, tm, dir, server)
}

func TestE2EMoshClientGoshServer(t *testing.T) {
	t.Parallel()
	e2etest.RequireCommands(t, "mosh-client")
	server := startGoshServer(t)
	dir := t.TempDir()
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, moshClient(server))...)
	sessionScript(t, tm, dir, server)
}

func TestE2EGoshClientMoshServer(t *testing.T) {
	t.Parallel()
	server := startMoshServer(t)
	dir := t.TempDir()
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, goshClient(server))...)
	sessionScript(t, tm, dir, server)
}

// TestE2EInitialSize: a window that is not 80×24 from the start reaches
// the remote program, against gosh server and stock mosh-server.
func TestE2EInitialSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		start func(*testing.T) *e2etest.Server
	}{{"gosh server", func(t *testing.T) *e2etest.Server { return startGoshServer(t) }}, {"mosh-server", startMoshServer}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			server := tc.start(t)
			tm := e2etest.NewTmux(t, 120, 40, localeEnv, clientWrapper(t.TempDir(), goshClient(server))...)
			tm.WaitForText(10*time.Second, prompt)
			tm.Send("stty size\r")
			tm.WaitForText(10*time.Second, "40 120")
		})
	}
}

// TestE2EFlood: a command that floods the terminal is interrupted: Ctrl-C
// reaches the program, the prompt comes back, and the session goes on.
// (How fast is a figure: BenchmarkSessionFloodInterrupt in perf_test.go.)
func TestE2EFlood(t *testing.T) {
	t.Parallel()
	_, tm, _ := goshSession(t)
	tm.Send("seq 1 10000000; echo flood-$((1+1))-done\r")
	tm.WaitFor(10*time.Second, "the flood", func(s []string) bool {
		return len(s) > 10 && strings.TrimSpace(s[10]) != "" && !strings.Contains(strings.Join(s, ""), "flood-2-done")
	})
	tm.SendKey("C-c")
	tm.WaitFor(10*time.Second, "the prompt after Ctrl-C", func(s []string) bool {
		i := lastNonEmpty(s)
		return strings.HasPrefix(s[i], prompt) && strings.Contains(strings.Join(s, "\n"), "^C")
	})
	tm.Send("echo still-$((2+2))-alive\r")
	tm.WaitForText(5*time.Second, "still-4-alive")
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2ERoaming: the session goes through a UDP relay on loopback. The
// relay moves to a new source port mid-session (the client roams, as the
// server sees it) and the session continues over real sockets. (Outages,
// port hops, the 40 s detach and the server's timeouts are tested in
// virtual time in internal/session.)
func TestE2ERoaming(t *testing.T) {
	t.Parallel()
	_, relay, tm, _ := relayedSession(t)
	tm.Send("echo before-$((1+1))\r")
	tm.WaitForText(5*time.Second, "before-2")

	oldPort := relay.BackPort()
	if err := relay.Rebind(); err != nil {
		t.Fatal(err)
	}
	t.Logf("relay moved from port %d to %d", oldPort, relay.BackPort())
	tm.Send("echo roamed-$((2+1))\r")
	tm.WaitForText(5*time.Second, "roamed-3")
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2ELargePaste: a paste much larger than the terminal's buffers into a
// program that echoes it (cat in cooked mode) does not deadlock the server,
// which stock mosh-server can.
//
// The paste waits for a line the shell prints after reading the command:
// until then readline holds the terminal in its own mode, without ICRNL,
// and a paste arriving then (the shell slow to be scheduled on a loaded
// machine) reaches cat with its first 4 KB as CRs, not lines.
func TestE2ELargePaste(t *testing.T) {
	t.Parallel()
	_, tm, dir := goshSession(t)
	tm.Send("echo cat-$((2*3))-ready; cat > " + filepath.Join(dir, "pasted") + "\r")
	tm.WaitForText(10*time.Second, "cat-6-ready")
	var paste strings.Builder
	for i := 0; paste.Len() < 256<<10; i++ {
		fmt.Fprintf(&paste, "paste line %06d abcdefghijklmnopqrstuvwxyz\r", i)
	}
	tm.Paste(paste.String())
	tm.WaitForText(60*time.Second, "paste line 00")
	tm.SendKey("C-d")
	tm.Send("wc -l < " + filepath.Join(dir, "pasted") + "; echo paste-$((5*5))-done\r")
	tm.WaitForText(60*time.Second, "paste-25-done")
	b, err := os.ReadFile(filepath.Join(dir, "pasted"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(string(b), "\n"), strings.Count(paste.String(), "\r"); got != want {
		t.Errorf("the application received %d lines of the paste, want %d", got, want)
	}
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2EEscapeQuit: Ctrl-^ . ends the session from the client side; the
// client exits cleanly with the terminal restored and the server exits.
func TestE2EEscapeQuit(t *testing.T) {
	t.Parallel()
	server, tm, dir := goshSession(t)
	tm.Send("\x1e")
	screen := tm.WaitForText(5*time.Second, `gosh: Commands: Ctrl-Z suspends, "." quits, "^" gives literal Ctrl-^`)
	if got, want := screen[0], `gosh: Commands: Ctrl-Z suspends, "." quits, "^" gives literal Ctrl-^`; got != want {
		t.Errorf("bar = %q, want %q", got, want)
	}
	tm.Send(".")
	tm.WaitForText(10*time.Second, "client-exit=0")
	checkRestored(t, dir)
	if !server.WaitExit(10 * time.Second) {
		t.Error("the server is still running after the client quit")
	}
}

// TestE2EClientSignal: SIGTERM to the client shuts the session down
// cleanly and restores the terminal.
func TestE2EClientSignal(t *testing.T) {
	t.Parallel()
	server, tm, dir := goshSession(t)
	pid := e2etest.ChildPID(t, tm.PanePID(), "gosh")
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	tm.WaitForText(10*time.Second, "client-exit=0")
	checkRestored(t, dir)
	if !server.WaitExit(10 * time.Second) {
		t.Error("the server is still running after the client was terminated")
	}
}

// TestE2ETerminalBehaviour: the server answers the application's terminal
// queries, maps cursor keys per the application's DECCKM, the client shows
// the window title with its prefix, and Ctrl-^ Ctrl-Z suspends the client.
func TestE2ETerminalBehaviour(t *testing.T) {
	t.Parallel()
	server := startGoshServer(t)
	dir := t.TempDir()
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, goshClient(server))...)
	const wait = 10 * time.Second
	tm.WaitForText(wait, prompt)

	// Device attributes and cursor position reports reach the application.
	tm.Send(`read -s -t 5 -d c -p $'\e[c' da; echo "da=${da:2}"` + "\r")
	tm.WaitForText(wait, "da=?62")
	tm.Send(`printf '\e[5;7H'; read -s -t 5 -d R -p $'\e[6n' pos; echo; echo "pos=${pos:2}"` + "\r")
	tm.WaitForText(wait, "pos=5;7")

	// Arrow keys: normal mode unless the application asks for application mode.
	// (Keys are translated when they reach the server, so each waits for
	// the application to be ready.)
	tm.Send("clear; echo normal-$((1+0)); cat -v\r")
	tm.WaitForText(wait, "normal-1")
	tm.SendKey("Up")
	tm.WaitForText(wait, "^[[A")
	interrupt(tm, wait)
	tm.Send("clear; printf '\\e[?1h'; echo app-$((1+1)); cat -v\r")
	tm.WaitForText(wait, "app-2")
	tm.SendKey("Up")
	tm.WaitForText(wait, "^[OA")
	interrupt(tm, wait)
	tm.Send("printf '\\e[?1l'; clear\r")

	// The window title, with the client's prefix.
	tm.Send(`printf '\e]0;remote title\a'` + "\r")
	deadline := time.Now().Add(wait)
	for tm.PaneTitle() != "[gosh] remote title" {
		if time.Now().After(deadline) {
			t.Fatalf("pane title = %q, want %q", tm.PaneTitle(), "[gosh] remote title")
		}
		time.Sleep(20 * time.Millisecond)
	}

	tm.Send("exit\r")
	tm.WaitForText(wait, "client-exit=0")
}

// interrupt types Ctrl-C and waits for the shell's prompt, as a user
// does before typing on. Typing on at once loses the typeahead, with any
// transport: the tty discards its input queue when it sees the interrupt
// character (POSIX: ISIG without NOFLSH), and if more input arrives before
// the interrupted program is scheduled, that program reads it before it
// dies. (Measured on a bare pty: a command written together with the
// Ctrl-C is lost 34 times in 40, 100 µs after it 3 in 40, 1 ms after it
// none, on an idle machine; a loaded one stretches the window.)
func interrupt(tm *e2etest.Tmux, wait time.Duration) {
	tm.SendKey("C-c")
	tm.WaitFor(wait, "the prompt after Ctrl-C", func(s []string) bool {
		return s[lastNonEmpty(s)] == prompt
	})
}

// TestE2ESuspend: Ctrl-^ Ctrl-Z suspends the client like a job of the
// user's shell (with the terminal restored), and fg resumes the session.
func TestE2ESuspend(t *testing.T) {
	t.Parallel()
	server := startGoshServer(t)
	const wait = 10 * time.Second
	outer := []string{"env", "PS1=outer$ ", "HISTFILE=/dev/null", "bash", "--norc", "--noprofile", "-i"}
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, outer...)
	rec := filepath.Join(t.TempDir(), "rec")
	tm.Record(rec)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(rec)
			t.Logf("terminal output: %q", b)
		}
	})
	tm.WaitForText(wait, "outer$")
	tm.Send(goshClient(server) + "\r")
	tm.WaitFor(wait, "the session", func(s []string) bool { return strings.HasPrefix(s[0], prompt) })
	tm.Send("\x1e\x1a")
	tm.WaitForText(wait, "[gosh is suspended.]")
	tm.WaitForText(wait, "Stopped")
	tm.Send("fg\r")
	tm.WaitFor(wait, "the session again", func(s []string) bool { return strings.HasPrefix(s[0], prompt) })
	tm.Send("echo resumed-$((4*4))\r")
	tm.WaitForText(wait, "resumed-16")
	tm.Send("exit\r")
	tm.WaitForText(wait, "[gosh is exiting.]")
}

// TestE2ECapabilities: a gosh client and server negotiate display
// capabilities beyond stock Mosh (here strikethrough and faint text reach
// the user's terminal), while a stock mosh-client against gosh server gets
// the same text in the stock set it understands.
func TestE2ECapabilities(t *testing.T) {
	t.Parallel()
	const wait = 10 * time.Second
	for _, c := range []struct {
		name   string
		client func(*e2etest.Server) string
		styled bool
	}{{"gosh client", goshClient, true}, {"mosh-client", moshClient, false}} {
		server := startGoshServer(t)
		tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(t.TempDir(), c.client(server))...)
		tm.WaitForText(wait, prompt)
		tm.Send(`printf '\e[9;2mstyled\e[0m-%d\n' $((2+3))` + "\r")
		tm.WaitForText(wait, "styled-5")
		var row string
		for _, l := range tm.ScreenAttrs() {
			if strings.Contains(l, "styled") && strings.Contains(l, "-5") && !strings.Contains(l, "printf") {
				row = l
			}
		}
		styled := strings.Contains(row, "\x1b[2;9mstyled")
		if styled != c.styled {
			t.Errorf("%s: row %q: strikethrough and faint shown = %v, want %v", c.name, row, styled, c.styled)
		}
		tm.Send("exit\r")
		tm.WaitForText(wait, "client-exit=0")
	}
}

// TestE2ETitlePrefix: the client prefixes the remote window title with
// "[gosh] " unless MOSH_TITLE_NOPREFIX is set.
func TestE2ETitlePrefix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env, want string
	}{{"", "[gosh] remote"}, {"MOSH_TITLE_NOPREFIX=1 ", "remote"}} {
		server := startGoshServer(t)
		tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(t.TempDir(), c.env+goshClient(server))...)
		tm.WaitForText(10*time.Second, prompt)
		tm.Send(`printf '\e]2;remote\a'; echo titled` + "\r")
		tm.WaitForText(10*time.Second, "titled\n")
		deadline := time.Now().Add(5 * time.Second)
		for tm.PaneTitle() != c.want {
			if time.Now().After(deadline) {
				t.Fatalf("%q: pane title = %q, want %q", c.env, tm.PaneTitle(), c.want)
			}
			time.Sleep(20 * time.Millisecond)
		}
		tm.Send("exit\r")
		tm.WaitForText(10*time.Second, "client-exit=0")
	}
}

// TestE2EIPv6: a session over ::1.
func TestE2EIPv6(t *testing.T) {
	t.Parallel()
	argv := append([]string{goshBin, "server", "new", "-v", "-i", "::1", "-p", "0", "--"}, shellArgv...)
	server := e2etest.StartServer(t, localeEnv, argv...)
	dir := t.TempDir()
	client := fmt.Sprintf("MOSH_KEY=%s %s connect --direct ::1 %d", server.Key, goshBin, server.Port)
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, client)...)
	tm.WaitForText(10*time.Second, prompt)
	tm.Send("echo v6-$((3*2))\r")
	tm.WaitForText(5*time.Second, "v6-6")
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2ELocal: gosh connect --local (what make run does) starts a server
// on this machine and connects to it, with native scrollback: seq's lines
// end up in the terminal's own history.
func TestE2ELocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	client := goshBin + " connect --local -- " + strings.Join(shellArgv, " ")
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, client)...)
	tm.WaitForText(10*time.Second, prompt)
	tm.Send("echo local-$((5+5))\r")
	tm.WaitForText(5*time.Second, "local-10")
	tm.Send("seq 1 3000\r")
	seqDone(t, tm, 3000, 30*time.Second)
	waitHistory(t, tm, 10*time.Second, 1, 3000, 0)
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
	checkRestored(t, dir)
}

// TestE2ECoreDumps: the server daemon runs with core dumps off (its soft
// core limit is 0), while the shell it starts has the user's own limit.
func TestE2ECoreDumps(t *testing.T) {
	t.Parallel()
	argv := append([]string{"bash", "-c", `ulimit -c 4096 && exec "$0" "$@"`, goshBin, "server", "new", "-i", "127.0.0.1", "-p", "0", "--"}, shellArgv...)
	server := e2etest.StartServer(t, localeEnv, argv...)
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", server.PID))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(limits), "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "Max core file size") && (len(f) < 5 || f[4] != "0") {
			t.Errorf("the daemon's core limit: %q, want a soft limit of 0", l)
		}
	}
	dir := t.TempDir()
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, goshClient(server))...)
	tm.WaitForText(10*time.Second, prompt)
	tm.Send("echo core=$(ulimit -c)\r")
	tm.WaitForText(5*time.Second, "core=4096")
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2EAgentForwarding: gosh connect --local -A gives the session's
// shell an SSH_AUTH_SOCK of its own, in a directory only the user can
// enter, whose connections reach the client's real ssh-agent: ssh-add -l
// there lists the key added here.
func TestE2EAgentForwarding(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "agent.sock")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatalf("ssh-agent: %v", err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	key := filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gosh-e2e-agent-key", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	for i := 0; ; i++ {
		add := exec.Command("ssh-add", key)
		add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
		out, err := add.CombinedOutput()
		if err == nil {
			break
		}
		if i == 50 {
			t.Fatalf("ssh-add: %v\n%s", err, out)
		}
		time.Sleep(100 * time.Millisecond) // the agent is starting
	}
	client := goshBin + " connect --local -A -- " + strings.Join(shellArgv, " ")
	env := append(append([]string{}, localeEnv...), "SSH_AUTH_SOCK="+sock)
	tm := e2etest.NewTmux(t, 100, 24, env, clientWrapper(dir, client)...)
	tm.WaitForText(10*time.Second, prompt)
	tm.Send(`case "$SSH_AUTH_SOCK" in */gosh-agent-*/agent.sock) echo fwd-$(stat -c %a "${SSH_AUTH_SOCK%/*}");; esac` + "\r")
	tm.WaitForText(5*time.Second, "fwd-700")
	tm.Send("ssh-add -l\r")
	tm.WaitForText(10*time.Second, "gosh-e2e-agent-key")
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2EPortForwarding: gosh connect -L, -R and -D against gosh server
// through a lossy relay: ten megabytes go through -L and ten through -R
// (the server listens) to an echo server and back intact, at once, with
// the client's address changing half way (the server roams); a SOCKS5
// client connected through -D before the roam is echoed after it.
func TestE2EPortForwarding(t *testing.T) {
	t.Parallel()
	echo := startEchoServer(t)
	lport, dport, rport := freeTCPPort(t), freeTCPPort(t), freeTCPPort(t)
	server := startGoshServer(t)
	relay := e2etest.NewRelay(t, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), server.Port))
	relay.SetLoss(0.02, 0.02)
	dir := t.TempDir()
	client := fmt.Sprintf("MOSH_KEY=%s %s connect -v -L %d:127.0.0.1:%d -D %d -R %d:127.0.0.1:%d --direct 127.0.0.1 %d 2>%s/client.log",
		server.Key, goshBin, lport, echo.Port(), dport, rport, echo.Port(), relay.Addr().Port(), dir)
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(dir + "/client.log")
			t.Logf("the client's log:\n%s", log)
		}
	})
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(dir, client)...)
	tm.WaitForText(10*time.Second, prompt)

	size := 10 << 20
	if raceEnabled {
		size = 1 << 20 // race-built binaries are ten times slower
	}
	data := make([]byte, size)
	fill := rand.New(rand.NewPCG(5, 6))
	for i := range data {
		data[i] = byte(fill.Uint32())
	}
	dial := func(what string, port int) net.Conn {
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err == nil {
				t.Cleanup(func() { c.Close() })
				c.SetDeadline(time.Now().Add(5 * time.Minute))
				return c
			}
			if time.Now().After(end) {
				t.Fatalf("%s: nothing listens on %d: %v", what, port, err)
			}
		}
	}
	// -D: a SOCKS5 client reaches the echo server (and is used again
	// after the roam below).
	s := dial("-D", dport)
	p := echo.Port()
	req := []byte{5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, byte(p >> 8), byte(p)}
	if _, err := s.Write(req); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 12)
	if _, err := io.ReadFull(s, reply); err != nil || !bytes.Equal(reply[:4], []byte{5, 0, 5, 0}) {
		t.Fatalf("-D: SOCKS5 replies % x, %v; want success", reply, err)
	}

	// -L and -R (the server listens on rport, this machine too), both
	// ways at once, with the client roaming half way through -L's.
	start := time.Now()
	halfway := make(chan struct{})
	errs := make(chan error, 2)
	for _, fw := range []struct {
		name string
		port int
	}{{"-L", lport}, {"-R", rport}} {
		c := dial(fw.name, fw.port)
		go func() { c.Write(data) }()
		go func() {
			got := make([]byte, len(data))
			_, err := io.ReadFull(c, got[:len(got)/2])
			if fw.name == "-L" {
				close(halfway)
			}
			if err == nil {
				_, err = io.ReadFull(c, got[len(got)/2:])
			}
			if err == nil && !bytes.Equal(got, data) {
				err = errors.New("the data came back corrupted")
			}
			if err != nil {
				err = fmt.Errorf("%s: %w", fw.name, err)
			}
			errs <- err
		}()
	}
	select {
	case <-halfway:
	case err := <-errs:
		t.Fatal(err)
	}
	if err := relay.Rebind(); err != nil { // the client roams
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	d := time.Since(start)
	t.Logf("-L and -R at once: %d MiB each there and back through 2 %% loss each way and a roam in %v (%.2f MB/s each way, both together)",
		size>>20, d.Round(time.Millisecond), 2*float64(size)/d.Seconds()/1e6)

	// -D: the SOCKS5 connection made before the roam still works.
	msg := []byte("through the SOCKS proxy")
	s.Write(msg)
	back := make([]byte, len(msg))
	if _, err := io.ReadFull(s, back); err != nil || !bytes.Equal(back, msg) {
		t.Fatalf("-D: echoed %q, %v", back, err)
	}
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2ERemoteForwardLoopback: gosh connect -R 0.0.0.0:P:... against a
// gosh server with the default policy listens on 127.0.0.1:P alone (as
// sshd's GatewayPorts no), says so on the notification bar, and forwards
// from there; with GOSH_GATEWAY_PORTS=clientspecified in the server's
// environment it listens where asked.
func TestE2ERemoteForwardLoopback(t *testing.T) {
	t.Parallel()
	echo := startEchoServer(t)
	for _, tc := range []struct {
		name  string
		env   []string
		where []string // the listening socket's local address in /proc/net/tcp or tcp6, one of
		bar   string
	}{
		{"default", nil, []string{"0100007F"}, "the server listens on 127.0.0.1:%d only"},
		// Go listens on [::] for 0.0.0.0 where it can.
		{"clientspecified", []string{"GOSH_GATEWAY_PORTS=clientspecified"}, []string{"00000000", strings.Repeat("0", 32)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := freeTCPPort(t)
			server := startGoshServer(t, tc.env...)
			dir := t.TempDir()
			client := fmt.Sprintf("MOSH_KEY=%s %s connect -R 0.0.0.0:%d:127.0.0.1:%d --direct 127.0.0.1 %d",
				server.Key, goshBin, port, echo.Port(), server.Port)
			tm := e2etest.NewTmux(t, 120, 24, localeEnv, clientWrapper(dir, client)...)
			if tc.bar != "" {
				tm.WaitForText(10*time.Second, fmt.Sprintf(tc.bar, port)) // over the prompt, for 3 s
			}
			tm.WaitForText(10*time.Second, prompt)
			var c net.Conn
			for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				var err error
				if c, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
					break
				}
				if time.Now().After(end) {
					t.Fatalf("nothing listens on 127.0.0.1:%d: %v", port, err)
				}
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			msg := []byte("via -R")
			c.Write(msg)
			back := make([]byte, len(msg))
			if _, err := io.ReadFull(c, back); err != nil || !bytes.Equal(back, msg) {
				t.Fatalf("through -R: %q, %v", back, err)
			}
			if got := listeningOn(t, port); len(got) != 1 || !slices.Contains(tc.where, got[0]) {
				t.Errorf("listening sockets on port %d: %q, want one of %q alone", port, got, tc.where)
			}
			tm.Send("exit\r")
			tm.WaitForText(10*time.Second, "client-exit=0")
		})
	}
}

// listeningOn returns the local addresses, as /proc/net/tcp and tcp6 spell
// them, of the sockets listening on TCP port.
func listeningOn(t *testing.T, port int) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(name)
		if err != nil {
			continue // no IPv6
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // LISTEN
				continue
			}
			addr, p, ok := strings.Cut(f[1], ":")
			if n, err := strconv.ParseUint(p, 16, 16); ok && err == nil && int(n) == port {
				out = append(out, addr)
			}
		}
	}
	return out
}

// startEchoServer serves TCP echo on the loopback address until the test
// ends.
func startEchoServer(t *testing.T) netip.AddrPort {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().(*net.TCPAddr).AddrPort()
}

// handedOut are the ports freeTCPPort returned in this process.
var handedOut struct {
	sync.Mutex
	ports map[int]bool
}

// freeTCPPort returns a loopback TCP port that was free a moment ago, and
// that it never returned before in this process. The kernel may give the
// same free port to consecutive listens: TestE2EPortForwarding's -D and
// -R then shared one (about one run in 2000 has two of its three ports
// equal), the client listened there for -D, the server could not for -R,
// and the test's -R connection reached the SOCKS listener, which reset it.
func freeTCPPort(t *testing.T) int {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	if handedOut.ports == nil {
		handedOut.ports = map[int]bool{}
	}
	var held []net.Listener // ports given out before: kept so the kernel picks another
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if !handedOut.ports[port] {
			ln.Close()
			handedOut.ports[port] = true
			return port
		}
		held = append(held, ln)
	}
}

// TestFreeTCPPort: freeTCPPort never returns a port twice (a thousand
// ports from the kernel's range of some 14 000 for listens would repeat
// some forty times).
func TestFreeTCPPort(t *testing.T) {
	seen := map[int]bool{}
	for range 1000 {
		p := freeTCPPort(t)
		if seen[p] {
			t.Fatalf("port %d returned twice", p)
		}
		seen[p] = true
	}
}

//go:build winetest && linux

// Package winetest runs gosh's tests as Windows programs, under Debian's
// Wine, on the Linux machine CI has (make wine-test, part of make test).
// Each package's tests are cross-compiled with GOOS=windows and run by
// wine64 in a Wine prefix of their own, with a pseudo-terminal as standard
// input so that Wine gives them a real console: CONIN$ and CONOUT$ open,
// console modes can be read and set, and key events written into the
// console input come back out of ReadConsole, as they do on Windows.
//
// Then the Windows gosh binary itself runs under Wine against a gosh server
// on this machine, typed at through its console.
//
// What Wine cannot stand in for is said where it matters: it has no
// OpenSSH agent service (the tests serve the agent protocol on the same
// named pipe themselves), no Windows OpenSSH sshd or mosh-server (the
// client's end-to-end tests against them run on Linux only), and its
// console is Wine's conhost, not Windows Terminal: it paints some correct
// output out of place, so the client's painting is checked on Linux.
package winetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// windowsPackages are the packages whose tests run under Wine: those with
// Windows-specific code (the user's terminal, the SSH layer's paths,
// prompts, agent and ProxyCommand, the command line and its signals) and
// the platform-neutral cores that code rests on), and the benchmarks, whose
// server side runs cmd.exe in a pseudo console there (internal/pty). Left
// out: internal (it runs the go command) and e2etest (tmux, mosh and sshd
// on Linux).
var windowsPackages = []string{
	"./cmd/gosh",
	"./internal/bench",
	"./internal/bench/sshlink",
	"./internal/bootstrap",
	"./internal/connectline",
	"./internal/sspcrypto",
	"./internal/netaddr",
	"./internal/predict",
	"./internal/pty",
	"./internal/session",
	"./internal/ssp",
	"./internal/terminfo",
	"./internal/tty",
	"./internal/vt",
}

// packageTimeout bounds one package's test binary under Wine.
const packageTimeout = 5 * time.Minute

func TestWindows(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	w := newWine(t)
	bin := t.TempDir()
	overlay := writeOverlay(t, bin)
	t.Run("packages", func(t *testing.T) { testPackages(t, w, root, bin, overlay) })
	t.Run("client session", func(t *testing.T) { testClientSession(t, w, root, bin, overlay) })
	if args := os.Getenv("GOSH_WINE_BENCH"); args != "" {
		// A measurement on demand, not a test: docs/bench.md's run of the
		// Windows build under Wine.
		t.Run("bench", func(t *testing.T) { runBench(t, w, root, bin, overlay, strings.Fields(args)) })
	}
}

// runBench runs "gosh.exe bench args..." under Wine, in a console (a tmux
// window), and writes its report to GOSH_WINE_BENCH_OUT (or the log):
//
//	GOSH_WINE_BENCH='paper --runs 1' GOSH_WINE_BENCH_OUT=/tmp/paper.txt \
//	  go test -tags winetest -run 'TestWindows/bench' -timeout 2h ./internal/winetest
func runBench(t *testing.T, w *wine, root, bin, overlay string, args []string) {
	e2etest.RequireCommands(t, "tmux")
	client := filepath.Join(bin, "gosh-bench.exe")
	build := exec.Command("go", "build", "-o", client, "-overlay", overlay, "./cmd/gosh")
	build.Dir = root
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build gosh.exe: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "report")
	argv := append([]string{"sh", "-c", `out=$1; shift; exec "$@" > "$out" 2>&1`, "sh", out, w.loader, client, "bench"}, args...)
	tm := e2etest.NewTmux(t, 100, 30, slices.Clone(w.vars), argv...)
	start := time.Now()
	for {
		if dead, status := tm.PaneDead(); dead {
			report, _ := os.ReadFile(out)
			if dst := os.Getenv("GOSH_WINE_BENCH_OUT"); dst != "" {
				if err := os.WriteFile(dst, report, 0o644); err != nil {
					t.Error(err)
				}
			} else {
				t.Logf("gosh.exe bench %s:\n%s", strings.Join(args, " "), report)
			}
			if status != 0 {
				t.Errorf("gosh.exe bench exited with status %d after %v", status, time.Since(start).Round(time.Second))
			}
			return
		}
		time.Sleep(time.Second)
	}
}

// testPackages runs each package's tests as a Windows program, in
// parallel: each has a console of its own, and they share one wineserver.
func testPackages(t *testing.T, w *wine, root, bin, overlay string) {
	for _, pkg := range windowsPackages {
		name := filepath.Base(pkg)
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each in its own console; one wineserver
			exe := filepath.Join(bin, name+".test.exe")
			build := exec.Command("go", "test", "-c", "-o", exe, "-overlay", overlay, pkg)
			build.Dir = root
			build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go test -c %s for windows/amd64: %v\n%s", pkg, err, out)
			}
			out, err := w.run(t, filepath.Join(root, pkg), exe, "-test.v", "-test.timeout="+(packageTimeout-30*time.Second).String())
			report(t, out, err)
		})
	}
}

// testClientSession runs the Windows gosh client under Wine, in a tmux
// window (Wine's console on a pseudo-terminal), against a gosh server on
// this machine: a command typed through the console reaches the remote
// shell and runs there, and exiting the shell ends the client with status
// 0. What the client paints is not checked here: Wine 8's console renders
// some of its (correct) output out of place, which the real Windows
// console does not; the painting is covered by the Linux end-to-end tests,
// which send the same bytes.
func testClientSession(t *testing.T, w *wine, root, bin, overlay string) {
	e2etest.RequireCommands(t, "tmux", "bash")
	server := filepath.Join(bin, "gosh")
	client := filepath.Join(bin, "gosh.exe")
	for _, b := range []struct {
		out  string
		env  []string
		args []string
	}{
		{server, []string{"CGO_ENABLED=0"}, nil},
		{client, []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0"}, []string{"-overlay", overlay}},
	} {
		build := exec.Command("go", append(append([]string{"build", "-o", b.out}, b.args...), "./cmd/gosh")...)
		build.Dir = root
		build.Env = append(os.Environ(), b.env...)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.out, err, out)
		}
	}
	srv := e2etest.StartServer(t, []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8"},
		server, "server", "new", "-i", "127.0.0.1", "-p", "0", "--",
		"env", "PS1=wine$ ", "HISTFILE=/dev/null", "bash", "--norc", "--noprofile", "-i")
	tm := e2etest.NewTmux(t, 100, 30, append(slices.Clone(w.vars), "MOSH_KEY="+srv.Key),
		w.loader, client, "connect", "--direct", "127.0.0.1", strconv.Itoa(int(srv.Port)))
	// The session is up once the client paints the prompt (keys typed
	// before Wine has made the console are lost). On a loaded machine
	// Wine's console input can lag its first output: a CI run lost every
	// key typed at once (and none in many runs alone), so give it a
	// moment.
	tm.WaitForText(60*time.Second, "wine")
	time.Sleep(2 * time.Second)
	marker := filepath.Join(t.TempDir(), "typed")
	tm.Send("echo hello-$((6*7)) > " + marker + "; stty size >> " + marker)
	tm.SendKey("Enter")
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(marker)
		if string(b) == "hello-42\n30 100\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command typed into the Windows client did not run on the server with the window's size (got %q); screen:\n%s",
				b, e2etest.Dump(tm.Screen()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.Send("exit")
	tm.SendKey("Enter")
	deadline = time.Now().Add(30 * time.Second)
	for {
		if dead, status := tm.PaneDead(); dead {
			if status != 0 {
				t.Errorf("the Windows client exited with status %d; screen:\n%s", status, e2etest.Dump(tm.Screen()))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Windows client did not exit after the shell did; screen:\n%s", e2etest.Dump(tm.Screen()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// report turns a test binary's -test.v output into this test's result:
// the counts are logged, and every failure's lines are repeated.
func report(t *testing.T, out []byte, err error) {
	t.Helper()
	pass := len(regexp.MustCompile(`(?m)^\s*--- PASS: `).FindAll(out, -1))
	skip := regexp.MustCompile(`(?m)^\s*--- SKIP: (\S+) .*\n(?:\s+\S+\.go:\d+: (.*))?`).FindAllSubmatch(out, -1)
	for _, s := range skip {
		t.Logf("skipped under Wine: %s: %s", s[1], s[2])
	}
	t.Logf("%d tests and subtests passed, %d skipped", pass, len(skip))
	if err != nil || !bytes.HasSuffix(bytes.TrimSpace(out), []byte("PASS")) {
		var fails []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "--- FAIL") || strings.Contains(l, "panic:") {
				fails = append(fails, l)
			}
		}
		t.Fatalf("the Windows test binary failed (%v): %s\n--- output ---\n%s", err, strings.Join(fails, "; "), tail(out, 8000))
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// A stdPatch adapts one file of Go's standard library to Wine, for the
// test binaries built here only (through a build overlay): old must occur
// once in the file, and is replaced by new.
type stdPatch struct {
	file, old, new string
}

// stdPatches work around what Wine 8 lacks. Real Windows never takes the
// patched paths.
var stdPatches = []stdPatch{
	// Go (1.24 and later) sets SIO_UDP_NETRESET on every UDP socket; Wine 8
	// does not know that ioctl (WSAEOPNOTSUPP), so no UDP socket could be
	// made at all.
	{"net/fd_windows.go",
		"windows.SIO_UDP_NETRESET, (*byte)(unsafe.Pointer(&flag)), size, nil, 0, &ret, nil, 0)\n\t\tif err != nil {",
		"windows.SIO_UDP_NETRESET, (*byte)(unsafe.Pointer(&flag)), size, nil, 0, &ret, nil, 0)\n\t\tif err != nil && err != syscall.Errno(10045) {"},
	// os.RemoveAll first tries FileDispositionInformationEx, which Wine 8
	// does not implement, and its failure status is not one that makes Go
	// fall back to the older deletion; every t.TempDir cleanup would fail.
	{"internal/syscall/windows/at_windows.go",
		"\tdefault:\n\t\treturn err.(NTStatus).Errno()\n\t}\n}",
		"\tdefault:\n\t\treturn deleteatFallback(h)\n\t}\n}"},
}

// writeOverlay writes the patched standard library files and the go build
// overlay that puts them in place of the originals.
func writeOverlay(t *testing.T, dir string) string {
	t.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	replace := map[string]string{}
	for i, p := range stdPatches {
		orig := filepath.Join(strings.TrimSpace(string(goroot)), "src", filepath.FromSlash(p.file))
		b, err := os.ReadFile(orig)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte(p.old)); n != 1 {
			t.Fatalf("%s: the code the Wine patch replaces occurs %d times, not once: Go changed; update stdPatches", orig, n)
		}
		patched := filepath.Join(dir, fmt.Sprintf("patch%d_%s", i, filepath.Base(orig)))
		if err := os.WriteFile(patched, bytes.Replace(b, []byte(p.old), []byte(p.new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[orig] = patched
	}
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wine is a Wine prefix of the test's own.
type wine struct {
	loader string   // wine64
	vars   []string // WINEPREFIX and friends
	env    []string // the environment with vars
}

// newWine finds Wine and the MinGW compiler (make deps installs both),
// creates a prefix in a temporary directory and installs the
// bcryptprimitives.dll shim there; the prefix's wineserver is stopped when
// the test ends.
func newWine(t *testing.T) *wine {
	t.Helper()
	loader := ""
	for _, c := range []string{"/usr/lib/wine/wine64", "wine64", "wine"} {
		if p, err := exec.LookPath(c); err == nil {
			loader = p
			break
		}
	}
	gcc, err := exec.LookPath("x86_64-w64-mingw32-gcc")
	if loader == "" || err != nil {
		t.Fatal("wine64 and x86_64-w64-mingw32-gcc are needed: run make deps (Debian: apt-get install wine64 gcc-mingw-w64-x86-64)")
	}
	prefix := t.TempDir()
	w := &wine{loader: loader, vars: []string{
		"WINEPREFIX=" + prefix, "WINEDEBUG=-all", "WINEARCH=win64",
		// No Mono or Gecko install prompts; our shim is the native DLL.
		"WINEDLLOVERRIDES=mscoree,mshtml=;bcryptprimitives=n",
		"DISPLAY=", "WAYLAND_DISPLAY="}}
	w.env = append(os.Environ(), w.vars...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	boot := exec.CommandContext(ctx, loader, "wineboot", "--init")
	boot.Env = w.env
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("wineboot: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		server := filepath.Join(filepath.Dir(loader), "wineserver")
		if _, err := os.Stat(server); err != nil {
			server = "wineserver"
		}
		k := exec.Command(server, "-k")
		k.Env = w.env
		k.Run()
		k = exec.Command(server, "-w") // wait for it, so the prefix can be removed
		k.Env = w.env
		k.Run()
	})
	dll := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	cc := exec.Command(gcc, "-shared", "-O2", "-s", "-o", dll,
		"testdata/bcryptprimitives.c", "testdata/bcryptprimitives.def")
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("building the bcryptprimitives.dll shim: %v\n%s", err, out)
	}
	return w
}

// run runs a Windows program under Wine in dir, with a pseudo-terminal as
// its standard input (so that it has a console) and its output collected
// apart from the console's painting.
func (w *wine) run(t *testing.T, dir, exe string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), packageTimeout)
	defer cancel()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	if err := pty.Setsize(master, &pty.Winsize{Cols: 120, Rows: 40}); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, master) // the console's painting; never let it block
	// The output goes to a file, not a pipe: Wine processes the program
	// starts (a wineserver it had to restart, winedevice services) inherit
	// it and outlive the program, and would hold a pipe open past its exit.
	out, err := os.CreateTemp(t.TempDir(), "output")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, w.loader, append([]string{exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = w.env
	cmd.Stdin = slave
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	slave.Close()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %v: %w", packageTimeout, err)
	}
	b, rerr := os.ReadFile(out.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return b, err
}

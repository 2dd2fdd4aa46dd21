//go:build windows

package pty

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// sizeReporterEnv makes this test binary, started in a console by a test,
// print the console's size for every line it reads, and exit at "q".
const sizeReporterEnv = "GOSH_PTY_TEST_SIZES"

func init() {
	if os.Getenv(sizeReporterEnv) != "1" {
		return
	}
	in := bufio.NewScanner(os.Stdin)
	for {
		var info windows.ConsoleScreenBufferInfo
		if err := windows.GetConsoleScreenBufferInfo(windows.Handle(os.Stdout.Fd()), &info); err != nil {
			fmt.Printf("no console: %v\r\n", err)
			os.Exit(2)
		}
		w := info.Window
		fmt.Printf("size %d %d\r\n", w.Bottom-w.Top+1, w.Right-w.Left+1)
		if !in.Scan() || strings.TrimSpace(in.Text()) == "q" {
			os.Exit(3)
		}
	}
}

// underWine reports whether this is Wine rather than Windows.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// testEnv is the environment a console program needs.
func testEnv(extra ...string) []string {
	return append([]string{"SYSTEMROOT=" + os.Getenv("SYSTEMROOT"), "PATH=" + os.Getenv("PATH")}, extra...)
}

// TestConsoleShell: cmd.exe in the console echoes what is typed, runs it,
// and its output reaches Read (not this process's own console).
func TestConsoleShell(t *testing.T) {
	// The prompt is set by a command: Wine puts its registry's PROMPT in
	// every process's environment, over the one given.
	p, err := Start(Spec{Command: []string{"cmd.exe", "/k", "prompt $$$S"}, Env: testEnv(), Dir: os.TempDir(), Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntil(t, p, "$") // the console draws the prompt's space as a cursor move
	if _, err := p.Write([]byte("echo hello from the console\r")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "hello from the console")
}

// TestConsoleSizeAndResize: the program sees the console's size, and
// Resize changes it.
func TestConsoleSizeAndResize(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(Spec{Command: []string{self}, Env: testEnv(sizeReporterEnv + "=1"), Dir: os.TempDir(), Cols: 91, Rows: 17})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntil(t, p, "size 17 91")
	if err := p.Resize(100, 30); err != nil {
		// Wine 8's ResizePseudoConsole is a stub; Windows has it since
		// the pseudo console exists (1809).
		if underWine() && errors.Is(err, syscall.Errno(windows.E_NOTIMPL)) {
			t.Logf("Resize under Wine: %v (Wine does not implement it; the initial size is checked)", err)
			return
		}
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	p.Write([]byte("again\r"))
	readUntil(t, p, "size 30 100")
}

// TestProgramExitIsEOF: when the program exits, the console closes and
// Read returns io.EOF after the program's last output.
func TestProgramExitIsEOF(t *testing.T) {
	p, err := Start(Spec{Command: []string{"cmd.exe", "/c", "echo bye"}, Env: testEnv(), Dir: os.TempDir(), Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := make(chan string, 1)
	go func() {
		out, _ := io.ReadAll(p)
		got <- string(out)
	}()
	select {
	case out := <-got:
		if !strings.Contains(out, "bye") {
			t.Errorf("output %q lacks bye", out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no EOF within 20 s of the program's exit")
	}
}

// TestProgramExitStatus: once the program has exited, ExitStatus gives
// its exit code, which the console helper passes on.
func TestProgramExitStatus(t *testing.T) {
	p, err := Start(Spec{Command: []string{"cmd.exe", "/c", "exit 3"}, Env: testEnv(), Dir: os.TempDir(), Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	go io.Copy(io.Discard, p)
	select {
	case <-p.Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20 s")
	}
	if code, sig := p.ExitStatus(); code != 3 || sig != 0 {
		t.Errorf("ExitStatus = %d, %d; want 3, 0", code, sig)
	}
}

// TestCloseEndsTheProgram: Close ends a program waiting for input, and
// its children, within a bound; Read then returns io.EOF.
func TestCloseEndsTheProgram(t *testing.T) {
	defer func(g time.Duration) { exitGrace = g }(exitGrace)
	exitGrace = 500 * time.Millisecond
	p, err := Start(Spec{Command: []string{"cmd.exe", "/k", "echo ready"}, Env: testEnv(), Dir: os.TempDir(), Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "ready")
	done := make(chan struct{})
	go func() {
		p.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(exitGrace + 10*time.Second):
		t.Fatal("Close did not return")
	}
	if n, err := p.Read(make([]byte, 10)); err != io.EOF {
		t.Errorf("Read after Close = %d, %v; want EOF", n, err)
	}
	select {
	case <-p.exited:
	default:
		t.Error("the helper is still running after Close")
	}
}

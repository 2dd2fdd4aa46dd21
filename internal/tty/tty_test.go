//go:build unix

package tty

import (
	"os"
	"testing"
	"time"

	cpty "github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// openPair returns a pseudo-terminal: the master (the "user" typing) and
// the slave (the terminal the client sees).
func openPair(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, s, err := cpty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

func TestTerminal(t *testing.T) {
	master, slave := openPair(t)
	if err := cpty.Setsize(slave, &cpty.Winsize{Cols: 123, Rows: 45}); err != nil {
		t.Fatal(err)
	}
	before, err := unix.IoctlGetTermios(int(slave.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	tt, err := Open(slave, slave)
	if err != nil {
		t.Fatal(err)
	}
	if c, r := tt.Size(); c != 123 || r != 45 {
		t.Errorf("Size = %d×%d, want 123×45", c, r)
	}
	if err := tt.MakeRaw(); err != nil {
		t.Fatal(err)
	}
	raw, _ := unix.IoctlGetTermios(int(slave.Fd()), ioctlGetTermios)
	if raw.Lflag&unix.ICANON != 0 || raw.Lflag&unix.ECHO != 0 {
		t.Errorf("MakeRaw left ICANON or ECHO on (lflag %#x)", raw.Lflag)
	}

	// Typed bytes arrive at once in raw mode, with no line ending.
	master.Write([]byte("ab\x03"))
	select {
	case b := <-tt.Input():
		if string(b) != "ab\x03" {
			t.Errorf("Input = %q, want %q", b, "ab\x03")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("typed bytes did not arrive")
	}
	if _, err := tt.Write([]byte("painted")); err != nil {
		t.Fatal(err)
	}

	// Close stops the reader without closing the terminal, and restores it.
	start := time.Now()
	if err := tt.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v", d)
	}
	if _, ok := <-tt.Input(); ok {
		t.Error("Input still open after Close")
	}
	after, _ := unix.IoctlGetTermios(int(slave.Fd()), ioctlGetTermios)
	if *after != *before {
		t.Errorf("terminal modes not restored:\nbefore %+v\nafter  %+v", before, after)
	}
	if !term.IsTerminal(int(slave.Fd())) {
		t.Error("Close closed the terminal")
	}
}

// TestCloseIsPrompt: Close stops a reader that is waiting for input at
// once, not at its next poll (100 ms): it is the last step of every
// session before gosh exits.
func TestCloseIsPrompt(t *testing.T) {
	_, slave := openPair(t)
	tt, err := Open(slave, slave)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the reader is inside its poll
	start := time.Now()
	tt.Close()
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("Close took %v", d)
	}
}

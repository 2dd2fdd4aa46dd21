//go:build unix

package pty

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestProgramSizeInputResize(t *testing.T) {
	p, err := Start(Spec{Command: []string{"sh"}, Env: []string{"PS1=$ ", "PATH=/usr/bin:/bin"}, Dir: "/", Cols: 91, Rows: 17})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Write([]byte("stty size; echo size-done\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "17 91")
	if err := p.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	p.Write([]byte("stty size\n"))
	readUntil(t, p, "30 100")
	p.Write([]byte("stty -a | grep -o iutf8 | head -1\n"))
	if s := readUntil(t, p, "$ "); !strings.Contains(s, "iutf8") && hasIUTF8 {
		t.Errorf("the terminal has no iutf8: %q", s)
	}
}

func TestProgramExitIsEOF(t *testing.T) {
	p, err := Start(Spec{Command: []string{"sh", "-c", "echo bye"}, Dir: "/", Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out, err := io.ReadAll(p)
	if err != nil || !strings.Contains(string(out), "bye") {
		t.Errorf("ReadAll = %q, %v; want bye and EOF", out, err)
	}
}

// TestProgramExitStatus: once the program has exited, ExitStatus says
// how: its status, or the signal that killed it; a program hung up by
// Close died of SIGHUP.
func TestProgramExitStatus(t *testing.T) {
	for _, tc := range []struct {
		script    string
		code, sig int
	}{{"exit 0", 0, 0}, {"exit 3", 3, 0}, {"kill -9 $$", 0, 9}, {"echo ready; exec sleep 60", 0, 1}} {
		p, err := Start(Spec{Command: []string{"sh", "-c", tc.script}, Dir: "/", Cols: 80, Rows: 24})
		if err != nil {
			t.Fatal(err)
		}
		if tc.sig == 1 {
			// Running for sure (the others may have exited already).
			readUntil(t, p, "ready")
			if code, sig := p.ExitStatus(); code != -1 || sig != 0 {
				t.Errorf("%q: ExitStatus before the exit = %d, %d; want -1, 0", tc.script, code, sig)
			}
			p.Close()
		}
		select {
		case <-p.Exited():
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: no exit", tc.script)
		}
		if code, sig := p.ExitStatus(); code != tc.code || sig != tc.sig {
			t.Errorf("%q: ExitStatus = %d, %d; want %d, %d", tc.script, code, sig, tc.code, tc.sig)
		}
		p.Close()
	}
}

// TestCloseEndsALingeringProgram: a program that ignores the hang-up is
// killed, and Close returns.
func TestCloseEndsALingeringProgram(t *testing.T) {
	defer func(g time.Duration) { exitGrace = g }(exitGrace)
	exitGrace = 200 * time.Millisecond
	p, err := Start(Spec{Command: []string{"sh", "-c", "trap '' HUP; echo ready; exec sleep 60"}, Dir: "/", Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "ready")
	start := time.Now()
	p.Close()
	if d := time.Since(start); d > exitGrace+3*time.Second {
		t.Errorf("Close took %v", d)
	}
	if n, err := p.Read(make([]byte, 10)); err != io.EOF {
		t.Errorf("Read after Close = %d, %v; want EOF", n, err)
	}
}

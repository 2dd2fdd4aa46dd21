package pty

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// readUntil reads p until its output contains want, or fails after a
// bound.
func readUntil(t *testing.T, p *Program, want string) string {
	t.Helper()
	got := make(chan string, 1)
	var mu sync.Mutex
	var out bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := p.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			s := out.String()
			mu.Unlock()
			if err != nil || strings.Contains(s, want) {
				got <- s
				return
			}
		}
	}()
	select {
	case s := <-got:
		if !strings.Contains(s, want) {
			t.Fatalf("output %q does not contain %q", s, want)
		}
		return s
	case <-time.After(10 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no %q from the program within 10 s; it wrote %q", want, out.String())
		return ""
	}
}

func TestMissingCommand(t *testing.T) {
	if _, err := Start(Spec{Command: []string{"no-such-program-gosh"}, Cols: 80, Rows: 24}); err == nil {
		t.Error("Start of a missing program succeeded")
	}
}

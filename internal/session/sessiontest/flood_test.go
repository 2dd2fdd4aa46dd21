package sessiontest

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestFlood: the shell echoes a command, floods on Enter until a Ctrl-C,
// then writes at most FloodBuffered more bytes of it, "^C" and the prompt.
func TestFlood(t *testing.T) {
	f := NewFlood("$ ")
	defer f.Close()
	buf := make([]byte, 32<<10)
	read := func() []byte {
		n, err := f.Read(buf)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		return bytes.Clone(buf[:n])
	}
	if got := string(read()); got != "$ " {
		t.Fatalf("first output %q, want the prompt", got)
	}
	f.Write([]byte("seq 1 100\r"))
	out := read()
	if string(out) != "seq 1 100\r\n" {
		t.Fatalf("echo %q", out)
	}
	out = read()
	if len(out) != floodRead || !strings.HasPrefix(string(out), "1\r\n2\r\n3\r\n") {
		t.Fatalf("flood read %d bytes starting %q, want %d from 1", len(out), out[:min(len(out), 12)], floodRead)
	}
	f.Write([]byte("\x03"))
	var rest []byte
	for !bytes.HasSuffix(rest, []byte("^C\r\n$ ")) {
		rest = append(rest, read()...)
		if len(rest) > FloodBuffered+100 {
			t.Fatalf("%d bytes after Ctrl-C and no prompt", len(rest))
		}
	}
	if n := len(rest) - len("^C\r\n$ "); n != FloodBuffered {
		t.Errorf("%d bytes of the flood after Ctrl-C, want %d", n, FloodBuffered)
	}
	f.Close()
	if _, err := f.Read(buf); err != io.EOF {
		t.Errorf("Read after Close: %v, want io.EOF", err)
	}
}

package sessiontest

import (
	"io"
	"testing"
)

// replayTranscript is a shell's answer to "ls", Enter, and vi's Escape.
var replayTranscript = &Transcript{
	Name: "test", Cols: 80, Rows: 24,
	Start: []byte("$ "),
	Steps: []Step{
		{Key: "l", Out: []byte("l")},
		{Key: "s", Out: []byte("s")},
		{Key: "\r", Out: []byte("\r\na b\r\n$ ")},
		{Key: "\x1b[A", Out: []byte("ls")},
		{Key: "\x1b", Out: []byte("\b")},
	},
}

// TestReplay writes input to a Replay in pieces and checks what the
// program writes: each step's output as its key arrives, nothing for
// answers to queries or for keys beyond the transcript.
func TestReplay(t *testing.T) {
	tests := []struct {
		name    string
		writes  []string
		want    string
		keys    int
		skipped int
	}{
		{"nothing typed", nil, "$ ", 0, 0},
		{"keys one by one", []string{"l", "s", "\r"}, "$ ls\r\na b\r\n$ ", 3, 0},
		{"keys at once", []string{"ls\r"}, "$ ls\r\na b\r\n$ ", 3, 0},
		{"a key split across writes", []string{"ls\r\x1b[", "A"}, "$ ls\r\na b\r\n$ ls", 4, 0},
		{"answers skipped", []string{"l\x1b[?62;c", "\x1b]11;rgb:0/0/0\x07s"}, "$ ls", 2, 22},
		{"an answer before Escape", []string{"ls\r\x1b[A\x1b[12;1R\x1b"}, "$ ls\r\na b\r\n$ ls\b", 5, 7},
		{"keys beyond the transcript", []string{"ls\r\x1b[A\x1bxyz"}, "$ ls\r\na b\r\n$ ls\b", 5, 3},
		{"a wrong key", []string{"x", "l"}, "$ l", 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReplay(replayTranscript)
			for _, w := range tc.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			var got []byte
			buf := make([]byte, 3) // small reads: output comes in pieces
			for string(got) != tc.want && len(got) < len(tc.want) {
				n, err := r.Read(buf)
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				got = append(got, buf[:n]...)
			}
			if string(got) != tc.want {
				t.Errorf("output %q, want %q", got, tc.want)
			}
			if r.Keys() != tc.keys || r.Skipped() != tc.skipped {
				t.Errorf("Keys() = %d, Skipped() = %d; want %d, %d", r.Keys(), r.Skipped(), tc.keys, tc.skipped)
			}
			r.Close()
			if _, err := r.Read(buf); err != io.EOF {
				t.Errorf("Read after Close: %v, want io.EOF", err)
			}
			if _, err := r.Write([]byte("l")); err == nil {
				t.Error("Write after Close succeeded")
			}
		})
	}
}

// FuzzReplay writes arbitrary input to a Replay: it never panics, never
// takes more keys than the transcript has, and accounts for every byte
// as a key or skipped, but for the start of a key still awaited.
func FuzzReplay(f *testing.F) {
	f.Add([]byte("ls\r\x1b[A\x1b"), 3)
	f.Add([]byte("\x1b[?62;c\x1b]11;rgb:0/0/0\x1b\\l"), 1)
	f.Add([]byte("\x1b\x1b[\x1bP"), 2)
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		r := NewReplay(replayTranscript)
		cut = min(max(cut, 0), len(in))
		r.Write(in[:cut])
		r.Write(in[cut:])
		if r.Keys() > len(replayTranscript.Steps) {
			t.Fatalf("Keys() = %d, beyond the transcript's %d", r.Keys(), len(replayTranscript.Steps))
		}
		matched := 0
		for _, s := range replayTranscript.Steps[:r.Keys()] {
			matched += len(s.Key)
		}
		if held := len(in) - matched - r.Skipped(); held < 0 || held >= 3 {
			t.Fatalf("%d bytes matched as keys and %d skipped of %d", matched, r.Skipped(), len(in))
		}
	})
}

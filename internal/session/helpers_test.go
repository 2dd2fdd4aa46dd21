package session

import (
	"testing"
	"time"
)

func TestKeyTranslator(t *testing.T) {
	tests := []struct {
		name    string
		batches []string
		app     bool
		want    string
	}{
		{"plain text", []string{"ls\r"}, false, "ls\r"},
		{"arrow up to normal mode", []string{"\x1bOA"}, false, "\x1b[A"},
		{"arrows kept in application mode", []string{"\x1bOA\x1bOD"}, true, "\x1bOA\x1bOD"},
		{"all four", []string{"\x1bOA\x1bOB\x1bOC\x1bOD"}, false, "\x1b[A\x1b[B\x1b[C\x1b[D"},
		{"keypad keys untouched", []string{"\x1bOP\x1bOM"}, false, "\x1bOP\x1bOM"},
		{"split after ESC", []string{"\x1b", "OB"}, false, "\x1b[B"},
		{"split after ESC O", []string{"\x1bO", "C"}, false, "\x1b[C"},
		{"ESC O then ESC", []string{"\x1bO\x1bOA"}, false, "\x1bO\x1b[A"},
		{"CSI passes", []string{"\x1b[1;5A"}, false, "\x1b[1;5A"},
		{"double ESC", []string{"\x1b\x1bOA"}, false, "\x1b\x1b[A"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var k keyTranslator
			var got []byte
			for _, b := range tc.batches {
				got = k.Translate(got, []byte(b), tc.app)
			}
			if string(got) != tc.want {
				t.Errorf("Translate(%q) = %q, want %q", tc.batches, got, tc.want)
			}
		})
	}
}

func TestEchoAcker(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	var e echoAcker
	if _, ok := e.Take(t0); ok || !e.NextDeadline().IsZero() {
		t.Fatal("empty echoAcker acknowledged something or wants a wake-up")
	}
	e.Record(3, ms(0))
	e.Record(4, ms(20))
	e.Record(7, ms(30))
	if got := e.NextDeadline(); !got.Equal(ms(50)) {
		t.Errorf("NextDeadline = %v, want +50ms", got.Sub(t0))
	}
	if _, ok := e.Take(ms(49)); ok {
		t.Error("Take at 49 ms acknowledged input younger than 50 ms")
	}
	if n, ok := e.Take(ms(70)); !ok || n != 4 {
		t.Errorf("Take at 70 ms = %d, %v; want 4, true", n, ok)
	}
	if got := e.NextDeadline(); !got.Equal(ms(80)) {
		t.Errorf("NextDeadline = %v, want +80ms", got.Sub(t0))
	}
	if n, ok := e.Take(ms(500)); !ok || n != 7 {
		t.Errorf("Take at 500 ms = %d, %v; want 7, true", n, ok)
	}
	if _, ok := e.Take(ms(900)); ok {
		t.Error("Take acknowledged twice")
	}
}

func TestEchoAckerAnswered(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var e echoAcker
	if _, ok := e.Answered(); ok {
		t.Fatal("empty echoAcker answered")
	}
	e.Record(3, t0)
	e.Record(5, t0.Add(time.Millisecond))
	if n, ok := e.Answered(); !ok || n != 5 {
		t.Errorf("Answered = %d, %v; want 5, true", n, ok)
	}
	if _, ok := e.Take(t0.Add(time.Second)); ok || !e.NextDeadline().IsZero() {
		t.Error("an answered state is still pending")
	}
}

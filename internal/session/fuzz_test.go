package session

import (
	"bytes"
	"testing"
)

// FuzzKeyTranslator: translating in any split gives the same bytes as
// translating at once, and in application mode nothing changes but a held
// trailing ESC O.
func FuzzKeyTranslator(f *testing.F) {
	f.Add([]byte("\x1bOA\x1bOB"), uint8(1), false)
	f.Add([]byte("ls\r\x1b[A\x1bO"), uint8(3), true)
	f.Fuzz(func(t *testing.T, in []byte, split uint8, app bool) {
		var whole, parts keyTranslator
		want := whole.Translate(nil, in, app)
		cut := 0
		if len(in) > 0 {
			cut = int(split) % (len(in) + 1)
		}
		got := parts.Translate(nil, in[:cut], app)
		got = parts.Translate(got, in[cut:], app)
		if !bytes.Equal(got, want) {
			t.Fatalf("Translate split at %d = %q, whole = %q", cut, got, want)
		}
		if app {
			held := 0
			if whole.state == 2 {
				held = 1 // the O after ESC
			}
			if !bytes.Equal(want, in[:len(in)-held]) {
				t.Fatalf("application mode changed %q into %q", in, want)
			}
		}
	})
}

// FuzzEscapeFilter: with the escape key disabled every byte passes; with
// it enabled, no byte is invented: the output is the input minus escape
// commands, plus escape bytes the pass key asked for.
func FuzzEscapeFilter(f *testing.F) {
	f.Add([]byte("ab\x1e.cd"), "")
	f.Add([]byte("a\r~.x"), "~")
	f.Fuzz(func(t *testing.T, in []byte, key string) {
		off := escapeFilter{key: escapeKey{}}
		out, act, rest := off.Filter(nil, in)
		if !bytes.Equal(out, in) || act != escNone || rest != nil {
			t.Fatalf("disabled filter: Filter(%q) = %q, %v, %q", in, out, act, rest)
		}
		on := escapeFilter{key: parseEscapeKey(key, true)}
		total := 0
		for b := in; len(b) > 0; {
			var o []byte
			o, _, b = on.Filter(nil, b)
			total += len(o)
		}
		if total > len(in) {
			t.Fatalf("Filter(%q) produced %d bytes from %d", in, total, len(in))
		}
	})
}

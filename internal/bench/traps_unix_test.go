//go:build unix

package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/vt"
)

// afterKeys returns the index of the keystroke that ends the first run of
// keys typing text from key from on, or -1.
func afterKeys(w *workload.Workload, from int, text string) int {
	for i := from; i < len(w.Keys); i++ {
		var typed strings.Builder
		for j := i; j < len(w.Keys) && typed.Len() < len(text); j++ {
			typed.WriteString(w.Keys[j].Key)
			if typed.String() == text {
				return j
			}
		}
	}
	return -1
}

// cursorLine is the text of the cursor's row, without trailing blanks.
func cursorLine(fb *vt.Framebuffer) string {
	_, y := fb.Cursor()
	return strings.TrimRight(fb.Row(y).Text(), " ")
}

// shows reports whether some row of fb contains text.
func shows(fb *vt.Framebuffer, text string) bool { return strings.Contains(rowsText(fb), text) }

// TestTrapsWorkload records the traps workload's reference (typed into
// bash, one key at a time, no network) and checks that each trap springs:
// what a prediction engine would echo at the cursor is not what the
// screen shows. Its length is the table of traps.
func TestTrapsWorkload(t *testing.T) {
	t.Parallel() // real programs in real time, each in temp dirs of its own
	if testing.Short() {
		t.Skip("types 280 keys into bash, vim and less")
	}
	w, err := workload.Lookup("traps")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tb, why, err := newTypingBench(ctx, w, 0, nil)
	if err != nil || tb == nil {
		t.Fatalf("recording the traps workload: %v %s", err, why)
	}
	defer tb.close()
	at := 0
	for _, c := range []struct {
		trap, keys string
		ok         func(*vt.Framebuffer) bool
	}{
		{"the password is not echoed", "hunter2", func(fb *vt.Framebuffer) bool { return cursorLine(fb) == "Password:" }},
		{"the password was read", "\r", func(fb *vt.Framebuffer) bool { return shows(fb, "signed in (7 characters, not echoed)") }},
		{"the menu's key is not echoed", "bash menu.sh\ra", func(fb *vt.Framebuffer) bool { return cursorLine(fb) == "item:" }},
		{"the menu redraws", "milk\r", func(fb *vt.Framebuffer) bool { return shows(fb, "added milk") && !shows(fb, "item:") }},
		{"another key", "l", func(fb *vt.Framebuffer) bool { return shows(fb, "items: milk") && cursorLine(fb) == ">" }},
		{"a key the menu does not know", "x", func(fb *vt.Framebuffer) bool { return shows(fb, "no such key: x") && cursorLine(fb) == ">" }},
		{"Tab completes a unique name", "cat rep\t", func(fb *vt.Framebuffer) bool { return cursorLine(fb) == "$ cat report-2024.txt" }},
		{"a double Tab lists the names", "wc -c notes-\t\t", func(fb *vt.Framebuffer) bool {
			return shows(fb, "notes-alpha.txt  notes-beta.txt") && cursorLine(fb) == "$ wc -c notes-"
		}},
		{"and the keys after it complete", "b\t\r", func(fb *vt.Framebuffer) bool { return shows(fb, "10 notes-beta.txt") }},
		{"Tab completes a prefix", "ls n\t", func(fb *vt.Framebuffer) bool { return cursorLine(fb) == "$ ls notes-" }},
		{"and the keys after it", "a\t\r", func(fb *vt.Framebuffer) bool { return shows(fb, "| notes-alpha.txt\n") }},
		{"less shows its prompt", "less -X story.txt\r", func(fb *vt.Framebuffer) bool { return cursorLine(fb) == "story.txt" }},
		{"/ replaces less's prompt", "/", func(fb *vt.Framebuffer) bool {
			x, _ := fb.Cursor()
			return cursorLine(fb) == "/" && x == 1
		}},
		{"the search moves the page", "needle\r", func(fb *vt.Framebuffer) bool { return strings.Contains(fb.Row(0).Text(), "needle") }},
		{"vim's i echoes nothing", "vim -u vimrc -i NONE poem.txt\ri", func(fb *vt.Framebuffer) bool {
			return shows(fb, "-- INSERT --") && strings.HasPrefix(fb.Row(0).Text(), "the echo comes back late")
		}},
		{"vim's : goes to the bottom row", "so \x1b:", func(fb *vt.Framebuffer) bool {
			x, y := fb.Cursor()
			return y == fb.Height()-1 && x == 1 && strings.HasPrefix(fb.Row(0).Text(), "so the echo")
		}},
		{":set nu moves every line", "set nu\r", func(fb *vt.Framebuffer) bool { return strings.HasPrefix(fb.Row(0).Text(), "  1 so the echo") }},
		{"vim's A jumps to the end", "A", func(fb *vt.Framebuffer) bool {
			x, y := fb.Cursor()
			return y == 0 && x == len("  1 so the echo comes back late")
		}},
		{"vim's o opens a line", ", at last\x1bo", func(fb *vt.Framebuffer) bool { return strings.TrimRight(fb.Row(1).Text(), " ") == "  2" }},
		{"the nested prompt has a right part", "bash --rcfile prompt.rc\r", func(fb *vt.Framebuffer) bool {
			_, y := fb.Cursor()
			return strings.HasPrefix(fb.Row(y).Text(), "(ins)$ ") && strings.HasSuffix(strings.TrimRight(fb.Row(y).Text(), " "), "[cmd 1]")
		}},
		{"Esc redraws the prompt", "echo one\recho two\x1b", func(fb *vt.Framebuffer) bool { return strings.HasPrefix(cursorLine(fb), "(cmd)$ echo two ") }},
		{"i in vi mode echoes nothing", "0wi", func(fb *vt.Framebuffer) bool {
			x, _ := fb.Cursor()
			return strings.HasPrefix(cursorLine(fb), "(ins)$ echo two") && x == len("(ins)$ echo ")
		}},
		{"the edit ran", "and \x1bA three\r", func(fb *vt.Framebuffer) bool { return shows(fb, "and two three") }},
		{"the output scrolled", "exit\rseq 1 300\r", func(fb *vt.Framebuffer) bool { return shows(fb, "300") && cursorLine(fb) == "$" }},
		{"the command typed ahead ran", "echo typed while it scrolled\r", func(fb *vt.Framebuffer) bool {
			return shows(fb, "typed while it scrolled\n") && cursorLine(fb) == "$"
		}},
	} {
		i := afterKeys(&tb.w, at, c.keys)
		if i < 0 {
			t.Fatalf("%s: the workload has no %q after key %d", c.trap, c.keys, at)
		}
		if fb := tb.refs[i]; !c.ok(fb) {
			t.Errorf("%s: after key %d (%q) the reference shows:\n%s", c.trap, i, c.keys, rowsText(fb))
		}
		at = i + 1
	}
}

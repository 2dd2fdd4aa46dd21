//go:build windows

package bench

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/workload"
)

// TestCmdWorkloadRuns types the whole cmd workload into cmd.exe in a
// pseudo console, as the reference recording does, and checks that every
// command ran (no error message on any screen) and that the in-line edits
// did what the workload means them to.
func TestCmdWorkloadRuns(t *testing.T) {
	t.Parallel() // real programs in real time, each in temp dirs of its own
	w, err := workload.Lookup("cmd")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tb, why, err := newTypingBench(ctx, w, 0, nil)
	if err != nil || tb == nil {
		t.Fatalf("recording the cmd workload: %v %s", err, why)
	}
	defer tb.close()
	bad := []string{"is not recognized", "cannot find", "syntax", "not found", "Invalid", "error"}
	var seen strings.Builder
	for i, fb := range tb.refs {
		text := rowsText(fb)
		for _, b := range bad {
			if strings.Contains(strings.ToLower(text), strings.ToLower(b)) {
				t.Fatalf("after key %d (%q) the screen shows %q:\n%s", i, w.Keys[i].Key, b, text)
			}
		}
		if strings.ContainsAny(w.Keys[i].Key, "\r") {
			seen.WriteString(text)
		}
	}
	if regexp.MustCompile(`(?m)^\| never mind\s*$`).MatchString(seen.String()) {
		t.Error("the line abandoned with Escape ran")
	}
	for _, want := range []string{
		"hello world",             // echo
		"notes.txt",               // dir /b
		"third line, the last",    // type
		"typo fixed",              // backspace
		"zero one two three four", // Home, arrows, End
		"42",                      // set /a
		"$ type todo.txt",         // history, edited
		"read the mosh paper",     // type todo.txt, and the copy's
		"the quick brown red fox", // arrows
	} {
		if !strings.Contains(seen.String(), want) {
			t.Errorf("no screen after an Enter shows %q", want)
		}
	}
	if last := tb.refs[len(tb.refs)-1]; !cleared(last) {
		t.Errorf("the workload does not end on a cleared screen (cls):\n%s", rowsText(last))
	}
}

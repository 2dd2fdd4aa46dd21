package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/workload"
)

// TestReferenceWaitsForTheProgram: an Enter that starts a program which
// says nothing for longer than the settling time before it reads the
// terminal (python3 on a loaded machine; here a shell started after a
// sleep) gets the reference's next keys only once it reads them: each
// shows after the new prompt, not echoed by the kernel on a line of its
// own.
func TestReferenceWaitsForTheProgram(t *testing.T) {
	t.Parallel() // real programs in real time, each in temp dirs of its own
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := &workload.Workload{Name: "slow-start", Ready: "$"}
	for _, k := range "sleep 1; exec bash --norc --noprofile -i\recho hi\r" {
		w.Keys = append(w.Keys, workload.Key{Key: string(k)})
	}
	spec, err := shellSpec(t.TempDir(), workload.ShellSh)
	if err != nil {
		t.Skip(err)
	}
	if err := resetDir(spec.Dir, w); err != nil {
		t.Fatal(err)
	}
	refs, err := recordReference(ctx, spec, w)
	if err != nil {
		t.Fatal(err)
	}
	enter := strings.IndexByte("sleep 1; exec bash --norc --noprofile -i\r", '\r')
	for i := enter + 1; i < len(w.Keys)-1; i++ {
		fb := refs[i]
		_, y := fb.Cursor()
		typed := "echo hi"[:i-enter]
		if got, want := fb.Row(y).Text(), "$ "+typed; strings.TrimRight(got, " ") != strings.TrimRight(want, " ") {
			t.Fatalf("after %q: the cursor's row is %q, want %q; screen:\n%s", typed, got, want, rowsText(fb))
		}
	}
}

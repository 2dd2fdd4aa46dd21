package termview

import (
	"fmt"
	"testing"

	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// TestQueueBounded: the lines a client holds for a terminal that has not
// taken them stay within queueLines and queueBytes whatever the server
// sends, the lines on the terminal's top rows are kept, and a marker
// says how many were dropped; the newest lines are kept.
func TestQueueBounded(t *testing.T) {
	line := func(n uint64, size int) vt.ScrollLine {
		return vt.ScrollLine{Line: n, Text: make([]byte, size), Width: 80}
	}
	for _, tc := range []struct {
		name    string
		size    int // Text bytes of each line
		batches int
		per     int
	}{
		{"many empty lines", 0, 5, 60000},
		{"long lines", 4000, 3, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &View{}
			next := uint64(0)
			for i := range 5 {
				v.queue = append(v.queue, line(next, tc.size))
				next++
				if i < 3 {
					v.onTop++
				}
			}
			top := v.queue[:v.onTop:v.onTop]
			for range tc.batches {
				var add []vt.ScrollLine
				for range tc.per {
					add = append(add, line(next, tc.size))
					next++
				}
				v.histNext = next
				v.queue = append(v.queue, v.boundQueue(add)...)
			}
			bytes := 0
			for _, l := range v.queue {
				bytes += len(l.Text) + statesync.ScrollLineCost
			}
			if len(v.queue) > queueLines || bytes > queueBytes {
				t.Fatalf("%d batches of %d lines of %d bytes: the queue holds %d lines, %d bytes; want at most %d, %d",
					tc.batches, tc.per, tc.size, len(v.queue), bytes, queueLines, queueBytes)
			}
			for i := range top {
				if v.queue[i].Line != top[i].Line {
					t.Fatalf("line %d on the top rows is now %d", top[i].Line, v.queue[i].Line)
				}
			}
			marker := v.queue[v.onTop]
			kept := uint64(len(v.queue) - v.onTop - 1)
			want := fmt.Sprintf("[gosh: %d lines skipped]", next-uint64(v.onTop)-kept)
			if string(marker.Text) != want || marker.Line != uint64(v.onTop) {
				t.Errorf("marker %q at line %d, want %q at %d", marker.Text, marker.Line, want, v.onTop)
			}
			if last := v.queue[len(v.queue)-1].Line; last != next-1 {
				t.Errorf("the newest line queued is %d, want %d", last, next-1)
			}
		})
	}
}

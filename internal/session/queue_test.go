package session

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
			c := &client{}
			next := uint64(0)
			for i := range 5 {
				c.queue = append(c.queue, line(next, tc.size))
				next++
				if i < 3 {
					c.onTop++
				}
			}
			top := c.queue[:c.onTop:c.onTop]
			for range tc.batches {
				var add []vt.ScrollLine
				for range tc.per {
					add = append(add, line(next, tc.size))
					next++
				}
				c.histNext = next
				c.queue = append(c.queue, c.boundQueue(add)...)
			}
			bytes := 0
			for _, l := range c.queue {
				bytes += len(l.Text) + statesync.ScrollLineCost
			}
			if len(c.queue) > queueLines || bytes > queueBytes {
				t.Fatalf("%d batches of %d lines of %d bytes: the queue holds %d lines, %d bytes; want at most %d, %d",
					tc.batches, tc.per, tc.size, len(c.queue), bytes, queueLines, queueBytes)
			}
			for i := range top {
				if c.queue[i].Line != top[i].Line {
					t.Fatalf("line %d on the top rows is now %d", top[i].Line, c.queue[i].Line)
				}
			}
			marker := c.queue[c.onTop]
			kept := uint64(len(c.queue) - c.onTop - 1)
			want := fmt.Sprintf("[gosh: %d lines skipped]", next-uint64(c.onTop)-kept)
			if string(marker.Text) != want || marker.Line != uint64(c.onTop) {
				t.Errorf("marker %q at line %d, want %q at %d", marker.Text, marker.Line, want, c.onTop)
			}
			if last := c.queue[len(c.queue)-1].Line; last != next-1 {
				t.Errorf("the newest line queued is %d, want %d", last, next-1)
			}
		})
	}
}

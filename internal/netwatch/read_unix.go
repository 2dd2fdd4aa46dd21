//go:build unix

package netwatch

import (
	"context"
	"os"
)

// readChanges reports a change for every message read from f until ctx is
// done (then it closes f) or f fails.
func readChanges(ctx context.Context, f *os.File, out chan<- struct{}) {
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	buf := make([]byte, 16<<10)
	for {
		if _, err := f.Read(buf); err != nil {
			if ctx.Err() == nil {
				// ENOBUFS: the kernel dropped messages for us. Something
				// changed; keep listening.
				if isOverrun(err) {
					notify(out)
					continue
				}
				f.Close()
			}
			return
		}
		notify(out)
	}
}

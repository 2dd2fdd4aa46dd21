package session

import (
	"time"

	"github.com/gosh-term/gosh/internal/logf"

	"github.com/gosh-term/gosh/internal/vt"
)

// view is what the client knows of what the user's terminal shows, and
// what it still has to put there: the screen it painted last, the lines
// waiting to go into the terminal's scrollback, the terminal's answers to
// its queries (resize.go) and which of its screens shows (altscreen.go).
// The client loop owns it, as it owns the transport; paint draws the
// overlays on a frame and hands it to the view.
type view struct {
	termSnap
	display *vt.Display
	repaint bool   // the next paint draws every row
	out     []byte // the write a paint builds
	scratch []byte // a paint not written (resize.go)
	cols    int    // the size the client paints and sends
	rows    int

	scrollSync bool       // the server sends scrollback lines (scrollback.go)
	scrollPos  uint64     // the server state's scrollback lines taken
	histNext   uint64     // the number of the next history line expected
	pushedPos  uint64     // the last pushedTo
	fenced     paintFence // the terminal's answers (resize.go)
	primary    termSnap   // the terminal's primary screen while its alternate one shows (altscreen.go)
	dragUntil  time.Time  // paints park the cursor until then: the window is being resized (resize.go)
	parked     bool       // this paint parks it
	sizeCols   int        // the window size the terminal said last (Size)
	sizeRows   int

	scrollPushed func(next uint64) // ClientConfig.ScrollPushed
	logf         logf.Func
}

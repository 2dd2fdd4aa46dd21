//go:build !unix

package bench

import (
	"fmt"
	"os"
)

// tapSupported: on Windows the tap would need a pseudo console inside the
// server's own; typing runs there go without it, and the transports whose
// server side runs in this process record the program's output instead
// (serverTrace).
const tapSupported = false

// TapMain says that the tap runs on Unix only, and returns 2.
func TapMain([]string) int {
	fmt.Fprintln(os.Stderr, "gosh bench tap: runs on Unix only")
	return 2
}

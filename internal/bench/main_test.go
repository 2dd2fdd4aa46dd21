package bench

import (
	"os"
	"testing"
)

// TestMain runs the tap when a typing run starts this test binary as the
// server side's program (TapArgs), as gosh runs it for gosh bench.
func TestMain(m *testing.M) {
	if len(os.Args) > len(TapArgs) && os.Args[1] == TapArgs[0] && os.Args[2] == TapArgs[1] {
		os.Exit(TapMain(os.Args[1+len(TapArgs):]))
	}
	os.Exit(m.Run())
}

package bench

import (
	"os"
	"testing"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// TestMain runs the tap when a typing run starts this test binary as the
// server side's program (TapArgs), as gosh runs it for gosh bench.
// Otherwise it runs the tests, eight parallel ones at once unless
// -test.parallel says otherwise: they type into real programs in real
// time (bash, vim, ssh, sshd, gosh over emulated links) and mostly wait,
// a quarter of a CPU each under the race detector for a minute or more.
func TestMain(m *testing.M) {
	if len(os.Args) > len(TapArgs) && os.Args[1] == TapArgs[0] && os.Args[2] == TapArgs[1] {
		os.Exit(TapMain(os.Args[1+len(TapArgs):]))
	}
	e2etest.DefaultParallel(8)
	os.Exit(m.Run())
}

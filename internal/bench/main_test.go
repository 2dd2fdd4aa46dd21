package bench

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// testParallel is how many of this package's parallel tests run at once
// when -test.parallel is not given. They type into real programs in real
// time (bash, vim, ssh, sshd, gosh over emulated links) and mostly wait:
// a quarter of a CPU each under the race detector, a minute or more of
// wall time. Go's default (GOMAXPROCS) would run two at once on a
// two-core machine and leave the package three times as long as its
// longest test.
const testParallel = 8

// TestMain runs the tap when a typing run starts this test binary as the
// server side's program (TapArgs), as gosh runs it for gosh bench.
// Otherwise it runs the tests, testParallel of them at once unless
// -test.parallel says otherwise.
func TestMain(m *testing.M) {
	if len(os.Args) > len(TapArgs) && os.Args[1] == TapArgs[0] && os.Args[2] == TapArgs[1] {
		os.Exit(TapMain(os.Args[1+len(TapArgs):]))
	}
	flag.Parse()
	setParallel := false
	flag.Visit(func(f *flag.Flag) { setParallel = setParallel || f.Name == "test.parallel" })
	if !setParallel {
		if err := flag.Set("test.parallel", strconv.Itoa(testParallel)); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

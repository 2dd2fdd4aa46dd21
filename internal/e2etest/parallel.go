package e2etest

import (
	"flag"
	"strconv"
)

// DefaultParallel sets how many parallel tests of the calling test binary
// run at once (-test.parallel) to n, unless the command line set it. Call
// it from TestMain before m.Run. Go's default is GOMAXPROCS, two on a
// two-core machine, which suits tests that compute; tests that drive real
// programs in real time (sshd, bash, tmux) mostly wait, and two at a time
// leave a package as long as its slowest tests laid end to end.
func DefaultParallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
			panic("e2etest.DefaultParallel: " + err.Error() + " (call it from TestMain)")
		}
	}
}

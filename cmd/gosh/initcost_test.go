//go:build linux

package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// initAllocLimit bounds what one of gosh's own packages may allocate in
// its initialization. Every gosh process runs every linked package's
// init, the client and the session daemon included, and keeps what they
// build: a table or a compiled regular expression that only one command
// needs is built on first use instead (sync.OnceValue). The workload
// names' regexp (52 KB) and the ssh_config keyword and algorithm tables
// (40 KB) once did.
const initAllocLimit = 8 << 10

// initLine is one line of GODEBUG=inittrace=1: package, bytes, allocs.
var initLine = regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestInitAllocations: none of gosh's packages allocates more than
// initAllocLimit in its init (the real binary, GODEBUG=inittrace=1).
func TestInitAllocations(t *testing.T) {
	cmd := exec.Command(goshBin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gosh version: %v\n%s", err, out)
	}
	mine := 0
	for _, m := range initLine.FindAllStringSubmatch(string(out), -1) {
		pkg := m[1]
		if pkg != "main" && !strings.HasPrefix(pkg, "github.com/gosh-term/gosh/") {
			continue
		}
		mine++
		n, _ := strconv.Atoi(m[2])
		if n > initAllocLimit {
			t.Errorf("init of %s allocates %d bytes (%s allocations), want at most %d: build it on first use", pkg, n, m[3], initAllocLimit)
		}
	}
	if mine == 0 {
		t.Fatalf("no init line of gosh's packages in GODEBUG=inittrace=1 output:\n%s", out)
	}
}

package e2etest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ChildPID finds the child of parent whose command name is name (from
// /proc), waiting up to 5 s for it to appear.
func ChildPID(t testing.TB, parent int, name string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, m := range matches {
			b, err := os.ReadFile(m)
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...
			s := string(b)
			open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
			if open < 0 || close < open {
				continue
			}
			comm := s[open+1 : close]
			f := strings.Fields(s[close+1:])
			if len(f) < 2 || comm != name {
				continue
			}
			if ppid, _ := strconv.Atoi(f[1]); ppid == parent {
				pid, _ := strconv.Atoi(strings.TrimSpace(s[:open]))
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s process under pid %d", name, parent)
	return 0
}

//go:build linux

package bootstrap

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// TestShortCommand is issue 27's short remote command through a real
// sshd: gosh connect box -- echo hi shows hi and exits 0 at once, and the
// command's exit status is gosh's (3 for sh -c 'exit 3'), as with ssh;
// against a stock mosh-server (--server=mosh-server) it exits 0, as
// mosh-client does. The time from start to exit is logged; with
// GOSH_SHORT_RUNS=N each case runs N times and the median is logged (the
// figure in the closing note).
func TestShortCommand(t *testing.T) {
	f, _, env, _ := sessionBox(t)
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("GOSH_SHORT_RUNS")); err == nil && n > 0 {
		runs = n
	}
	took := regexp.MustCompile(`client-exit=(\d+) ms=(\d+)`)
	for _, tc := range []struct {
		name, args, show string
		status           int
	}{
		{"gosh server", "box -- echo hi", "hi", 0},
		{"gosh server, exit 3", "box -- sh -c 'echo three; exit 3'", "three", 3},
		{"mosh-server", "--server=mosh-server box -- echo hi", "", 0},
	} {
		var times []int
		for range runs {
			dir := t.TempDir()
			script := fmt.Sprintf(`start=$(date +%%s%%N); %s connect %s 2>%s/err; rc=$?; end=$(date +%%s%%N); echo "client-exit=$rc ms=$(((end-start)/1000000))"; sleep 600`,
				f.gosh, tc.args, dir)
			tm := e2etest.NewTmux(t, 80, 24, env, "sh", "-c", script)
			screen := tm.WaitForText(30*time.Second, "client-exit=")
			m := took.FindStringSubmatch(strings.Join(screen, "\n"))
			errOut, _ := os.ReadFile(filepath.Join(dir, "err"))
			if m == nil || m[1] != strconv.Itoa(tc.status) || (tc.show != "" && !slices.Contains(screen, tc.show)) {
				t.Fatalf("%s: want %q shown and status %d; stderr %q\n%s", tc.name, tc.show, tc.status, errOut, e2etest.Dump(screen))
			}
			ms, _ := strconv.Atoi(m[2])
			times = append(times, ms)
		}
		slices.Sort(times)
		t.Logf("%s: gosh connect %s: %d ms to exit (median of %d; all %v)", tc.name, tc.args, times[len(times)/2], runs, times)
	}
}

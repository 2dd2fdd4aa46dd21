package daemon

import (
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestProgramGetsDefaultSignals: the program the daemon starts after
// serverSignals has SIGHUP and SIGPIPE at their defaults, even when the
// daemon itself was started with them ignored (nohup gosh server ...):
// a shell with SIGPIPE ignored prints "Broken pipe" under `yes | head`,
// and one with SIGHUP ignored outlives its hung-up terminal.
func TestProgramGetsDefaultSignals(t *testing.T) {
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE) // as nohup leaves them
	defer signal.Reset(syscall.SIGHUP, syscall.SIGPIPE)
	_, stop := serverSignals()
	defer stop()
	out, err := exec.Command("grep", "^SigIgn:", "/proc/self/status").Output()
	if err != nil {
		t.Fatal(err)
	}
	mask, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(string(out), "SigIgn:")), 16, 64)
	if err != nil {
		t.Fatalf("parsing %q: %v", out, err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGPIPE} {
		if mask&(1<<(sig-1)) != 0 {
			t.Errorf("the program starts with %v ignored (SigIgn %016x)", sig, mask)
		}
	}
}

//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestE2EBenchTypingBinary runs "gosh bench typing" from the real binary:
// its gosh rows run that binary as a user does (gosh server new, and gosh
// connect --direct in a pseudo-terminal), the server's shell runs under
// the binary's own tap, and over EV-DO gosh's predictions are judged
// (a figure in the wrong column) while gosh-nopredict's are n/a, the
// check finding nothing wrong on it.
func TestE2EBenchTypingBinary(t *testing.T) {
	t.Parallel() // the binary in real time, in temp dirs of its own; asserts no timing
	if testing.Short() {
		t.Skip("types for about a minute")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goshBin, "bench", "typing", "--quick", "--link", "evdo", "--with", "gosh,gosh-nopredict")
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, localeEnv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gosh bench typing: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	report := string(out)
	t.Logf("%s", report)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^gosh +40 .* \d+\.\d% +0 +\d+$`),
		regexp.MustCompile(`(?m)^gosh-nopredict +40 .* n/a +0 +\d+$`),
		regexp.MustCompile(`gosh: gosh server new and gosh connect --direct \(gosh .*\), as a user runs them`),
		regexp.MustCompile(`transports that do not predict .*: gosh-nopredict 0\.0%`),
	} {
		if !want.MatchString(report) {
			t.Errorf("the report does not match %s", want)
		}
	}
	if strings.Contains(report, "warning") {
		t.Errorf("a final screen differed from the reference's")
	}
}

//go:build !unix && !windows

package bench

import (
	"context"
	"errors"

	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/vt"
)

// errNoPTY: the typing benchmarks run the shell of every transport's
// server side in a pseudo-terminal (internal/pty), which this system does
// not have.
var errNoPTY = errors.New("bench: typing benchmarks need a pseudo-terminal for the server side's shell; run them on Linux, macOS, a BSD or Windows")

func recordReference(context.Context, remoteSpec, *workload.Workload) ([]*vt.Framebuffer, error) {
	return nil, errNoPTY
}

func (*typingBench) typeOver(context.Context, starter, linkem.Profile, uint64) (TypingRun, string, error) {
	return TypingRun{}, "", errNoPTY
}

func startSSH(context.Context, remoteSpec, linkem.Profile, uint64) (live, error) {
	return nil, errNoPTY
}
func startGosh(context.Context, remoteSpec, linkem.Profile, uint64, bool, ssp.Pacing) (live, error) {
	return nil, errNoPTY
}

//go:build !unix

package bench

import (
	"context"
	"errors"
	"io"

	"github.com/gosh-term/gosh/internal/linkem"
)

// Forward needs a server-side pty, which this platform does not run.
func Forward(context.Context, linkem.Profile, int, uint64, io.Writer) ([]ForwardResult, error) {
	return nil, errors.New("bench: forward needs a Unix host")
}

// forwardRounds: see forward_unix.go.
const forwardRounds = 20

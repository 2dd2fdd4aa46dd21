//go:build !unix && !windows

package bench

import (
	"context"
	"errors"
	"io"

	"github.com/gosh-term/gosh/internal/linkem"
)

// Forward needs a server-side pty, which this platform does not run.
func Forward(context.Context, linkem.Profile, int, uint64, io.Writer) ([]ForwardResult, error) {
	return nil, errors.New("bench: forward needs a pseudo-terminal (Unix or Windows)")
}

// forwardRounds: see forward_pty.go.
const forwardRounds = 20

// ForwardTyping needs a server-side pty too.
func ForwardTyping(context.Context, linkem.Profile, int, uint64, io.Writer) ([]ForwardResult, error) {
	return nil, errors.New("bench: forward needs a pseudo-terminal (Unix or Windows)")
}

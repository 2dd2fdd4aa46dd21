//go:build !unix

package bench

import (
	"context"
	"errors"

	"github.com/gosh-term/gosh/internal/linkem"
)

// startMosh: stock Mosh's server and client run on Unix only.
func startMosh(context.Context, remoteSpec, linkem.Profile, uint64, string) (live, error) {
	return nil, errors.New("stock mosh-server and mosh-client run on Unix only")
}

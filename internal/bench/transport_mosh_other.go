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

// opensshTools: the system's OpenSSH is benchmarked on Unix only.
func opensshTools() (string, string, error) {
	return "", "", errors.New("the system's OpenSSH is benchmarked on Unix only")
}

// startOpenSSH: see opensshTools.
func startOpenSSH(context.Context, remoteSpec, linkem.Profile, uint64) (live, error) {
	_, _, err := opensshTools()
	return nil, err
}

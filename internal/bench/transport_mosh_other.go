//go:build !unix

package bench

import (
	"context"
	"errors"

	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/ssp"
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

// startGoshBinary: the gosh binary's transport (gosh server new, gosh
// connect --direct in a pty) runs on Unix only; elsewhere the gosh rows
// run the session loops in this process.
func startGoshBinary(context.Context, remoteSpec, linkem.Profile, uint64, string, bool, ssp.Pacing) (live, error) {
	return nil, errors.New("the gosh binary's transport runs on Unix only")
}

// goshBinarySupported: see startGoshBinary.
const goshBinarySupported = false

//go:build !linux && !windows && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package netwatch

import (
	"context"
	"errors"
)

// watchOS has no source on this system.
func watchOS(context.Context, chan<- struct{}) error {
	return errors.New("no network change notifications on this system")
}

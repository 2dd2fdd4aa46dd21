//go:build !unix

package session

import (
	"context"
	"errors"
	"io"
	"os"
)

// StartOptions is what "gosh server new" was asked to do; the flags are
// mosh-server's.
type StartOptions struct {
	BindSSH bool
	BindIP  string
	Ports   string
	Colors  int
	Locale  []string
	Verbose int
	Command []string
}

// DaemonArgs are the arguments that make the gosh binary run [RunDaemon].
var DaemonArgs = []string{"server", "daemon"}

var errNoServer = errors.New("session: gosh server runs on Linux, macOS and the BSDs, not on this system")

// Start reports that the server is not available on this platform.
func Start(ctx context.Context, o StartOptions, stdin *os.File, stdout, stderr io.Writer) error {
	return errNoServer
}

// RunDaemon reports that the server is not available on this platform.
func RunDaemon(ctx context.Context) error { return errNoServer }

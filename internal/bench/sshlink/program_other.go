//go:build !unix && !windows

package sshlink

import (
	"errors"
	"fmt"
)

// ptyErr says why the server cannot run here: internal/pty runs on Unix
// and Windows only.
var ptyErr = fmt.Errorf("sshlink: the SSH server needs a pseudo-terminal (Unix or Windows): %w", errors.ErrUnsupported)

// startProgram always fails: there is no pseudo-terminal to run it in.
func startProgram(programSpec) (program, error) { return nil, ptyErr }

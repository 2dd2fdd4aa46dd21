//go:build !unix

package sshlink

import (
	"errors"
	"fmt"
)

// ptyErr says why the server cannot run here: internal/pty is Unix-only.
var ptyErr = fmt.Errorf("sshlink: the SSH server needs a Unix pseudo-terminal: %w", errors.ErrUnsupported)

// startProgram always fails: there is no pseudo-terminal to run it in.
func startProgram(programSpec) (program, error) { return nil, ptyErr }

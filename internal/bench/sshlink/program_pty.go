//go:build unix || windows

package sshlink

import "github.com/gosh-term/gosh/internal/pty"

// ptyErr is nil where programs can run in a pseudo-terminal.
var ptyErr error

// startProgram runs spec in a new pseudo-terminal.
func startProgram(spec programSpec) (program, error) {
	return pty.Start(pty.Spec{Command: spec.argv, Env: spec.env, Dir: spec.dir, Cols: spec.cols, Rows: spec.rows})
}

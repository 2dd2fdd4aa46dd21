package sshlink

import "io"

// program is a program running in a pseudo-terminal: Read returns its
// output (io.EOF once it is gone), Write types into it, Close hangs it up
// and waits for it to exit. internal/pty's Program is one.
type program interface {
	io.ReadWriteCloser
	Resize(cols, rows int) error
}

// programSpec is what a session runs.
type programSpec struct {
	argv       []string
	env        []string
	dir        string
	cols, rows int
}

package pty

import "time"

// exitGrace is how long Close waits for the program to exit after hanging
// up its terminal (closing its pseudo console, on Windows) before ending
// it (a variable for tests).
var exitGrace = 2 * time.Second

// Spec describes the program to run.
type Spec struct {
	// Command replaces the default program when non-empty: the user's
	// login shell on Unix, %COMSPEC% (else cmd.exe) on Windows.
	Command []string
	// Env is the program's complete environment.
	Env []string
	// Dir is its working directory.
	Dir string
	// Cols and Rows are the terminal's initial size.
	Cols, Rows int
}

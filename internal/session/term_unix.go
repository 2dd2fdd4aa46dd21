//go:build unix

package session

import "os"

// consoleState is empty on Unix: raw mode is all the terminal needs.
type consoleState struct{}

func enableVT(in, out *os.File) consoleState     { return consoleState{} }
func restoreVT(in, out *os.File, _ consoleState) {}

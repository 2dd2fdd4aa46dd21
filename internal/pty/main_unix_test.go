//go:build unix

package pty

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain catches SIGHUP for the tests' run: the tests expect a program
// hung up by Close to end by SIGHUP, which a program never does when it
// inherits SIGHUP ignored (go test started under nohup). gosh's server
// does the same before it starts the user's program.
func TestMain(m *testing.M) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	os.Exit(m.Run())
}

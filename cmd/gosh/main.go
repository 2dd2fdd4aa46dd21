// Command gosh is the mobile shell: a remote terminal that survives roaming,
// sleep and lossy links, wire-compatible with Mosh 1.4.
//
// Usage:
//
//	gosh connect [options] [user@]host [-- COMMAND...]
//	gosh connect --resume [ID|host]
//	gosh connect --attach ID [options] [user@]host
//	gosh sessions [user@]host [--kill ID]
//	gosh server new [-s] [-v] [-i ADDR] [-p PORT[:PORT2]] [-c COLORS] [-l NAME=VALUE]... [--scrollback LINES] [-- COMMAND...]
//	gosh server list | attach ID | kill ID   (on the host; gosh sessions runs them over SSH)
//	gosh server relay --port PORT [--host ADDR]   (run over SSH by connect when UDP is blocked)
//	gosh bench [options]
//	gosh version
//
// Run "gosh help COMMAND" for the options of each command.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/gosh-term/gosh/internal/coredump"
)

func main() {
	// No core dump may hold a session key (the programs a server starts
	// get the user's limit back).
	_ = coredump.Disable()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, asInvoked(os.Args[0], os.Args[1:]), os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

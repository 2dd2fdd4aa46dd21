//go:build unix

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/gosh-term/gosh/internal/session"
)

// sessionContext is the context of a client's session loop and its
// network watch: ctx, which SIGINT and SIGTERM cancel, as they quit.
func sessionContext(ctx context.Context) context.Context { return ctx }

// clientSignals forwards the client's signals to its session loop: SIGWINCH
// (resize), SIGTERM, SIGINT and SIGPIPE (quit), SIGHUP (hangup: the
// terminal is gone) and SIGCONT (continue). stop undoes it.
func clientSignals(*os.File) (<-chan session.Signal, func()) {
	in := make(chan os.Signal, 8)
	signal.Notify(in, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGCONT)
	return forwardSignals(in, func(s os.Signal) session.Signal {
		switch s {
		case syscall.SIGWINCH:
			return session.SignalResize
		case syscall.SIGCONT:
			return session.SignalContinue
		case syscall.SIGHUP:
			return session.SignalHangup
		}
		return session.SignalQuit
	}, func() { signal.Stop(in) })
}

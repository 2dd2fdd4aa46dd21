//go:build windows

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/gosh-term/gosh/internal/session"
)

// sizePoll is how often the console's size is checked: Windows has no
// SIGWINCH.
const sizePoll = 250 * time.Millisecond

// sessionContext is the context of a client's session loop and its
// network watch: one the process's signals do not cancel. The loop hears
// of them from clientSignals alone, since the SIGTERM that cancels ctx is
// the console closing, which must detach, not quit (and a closed network
// watch would stop the signals' forwarding, withNetworkChanges).
func sessionContext(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// clientSignals forwards Ctrl-Break/interrupt (quit), the console's
// closing (hangup: Go delivers CTRL_CLOSE_EVENT, and a logoff or
// shutdown, as SIGTERM, and the process has a few seconds left) and
// changes of the console's size (resize) to the session loop. stop undoes
// it.
func clientSignals(out *os.File) (<-chan session.Signal, func()) {
	in := make(chan os.Signal, 8)
	signal.Notify(in, os.Interrupt, syscall.SIGTERM)
	sigs, stopForward := forwardSignals(in, func(s os.Signal) session.Signal {
		if s == syscall.SIGTERM {
			return session.SignalHangup
		}
		return session.SignalQuit
	}, func() { signal.Stop(in) })
	merged := make(chan session.Signal, 8)
	done := make(chan struct{})
	go func() {
		fd := int(out.Fd())
		w, h, _ := term.GetSize(fd)
		t := time.NewTicker(sizePoll)
		defer t.Stop()
		for {
			var s session.Signal
			select {
			case <-done:
				return
			case s = <-sigs:
			case <-t.C:
				nw, nh, err := term.GetSize(fd)
				if err != nil || (nw == w && nh == h) {
					continue
				}
				w, h, s = nw, nh, session.SignalResize
			}
			select {
			case merged <- s:
			default:
			}
		}
	}()
	return merged, func() { stopForward(); close(done) }
}

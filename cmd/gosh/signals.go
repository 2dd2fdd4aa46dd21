package main

import (
	"os"

	"github.com/gosh-term/gosh/internal/session"
)

// forwardSignals translates the signals arriving on in into session
// signals on the returned channel, dropping one when the loop has not yet
// taken the previous one of the same burst. stop calls release and ends
// the forwarding goroutine.
func forwardSignals(in <-chan os.Signal, translate func(os.Signal) session.Signal, release func()) (<-chan session.Signal, func()) {
	out := make(chan session.Signal, 8)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-in:
				select {
				case out <- translate(s):
				default:
				}
			case <-done:
				return
			}
		}
	}()
	return out, func() {
		release()
		close(done)
	}
}

// withNetworkChanges adds SignalNetworkChange, for every change of the
// local network that changes reports (internal/netwatch), to a client's
// signals. The forwarding ends when changes is closed.
func withNetworkChanges(sigs <-chan session.Signal, changes <-chan struct{}) <-chan session.Signal {
	out := make(chan session.Signal, 8)
	go func() {
		for {
			select {
			case s := <-sigs:
				select {
				case out <- s:
				default: // the loop has not taken the previous ones
				}
			case _, ok := <-changes:
				if !ok {
					return
				}
				select {
				case out <- session.SignalNetworkChange:
				default: // one is already waiting
				}
			}
		}
	}()
	return out
}

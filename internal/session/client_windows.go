//go:build windows

package session

import (
	"os"
	"os/signal"
	"time"

	"golang.org/x/term"
)

// clientSignals are the events the client loop handles. Windows has no
// SIGWINCH, so a feeder polls the console size.
type clientSignals struct {
	resize, quit, cont chan os.Signal
	done               chan struct{}
}

func newClientSignals() *clientSignals {
	s := &clientSignals{
		resize: make(chan os.Signal, 1),
		quit:   make(chan os.Signal, 1),
		cont:   make(chan os.Signal),
		done:   make(chan struct{}),
	}
	signal.Notify(s.quit, os.Interrupt)
	go s.pollSize()
	return s
}

func (s *clientSignals) pollSize() {
	fd := int(os.Stdout.Fd())
	w, h, _ := term.GetSize(fd)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			if nw, nh, err := term.GetSize(fd); err == nil && (nw != w || nh != h) {
				w, h = nw, nh
				select {
				case s.resize <- os.Interrupt:
				default:
				}
			}
		}
	}
}

func (s *clientSignals) stop() {
	signal.Stop(s.quit)
	close(s.done)
}

// stopAndWait does nothing: Windows consoles have no job control.
func (s *clientSignals) stopAndWait() {}

// readStdin is the terminal feeder: it forwards typed bytes to the loop.
// On Windows a console read cannot be interrupted, so the session does not
// wait for this goroutine (it is marked done at once); it ends with the
// process.
func (c *client) readStdin() {
	c.stdinWG.Done()
	defer close(c.stdin)
	for {
		buf := make([]byte, stdinReadSize)
		n, err := c.cfg.Stdin.Read(buf)
		if n > 0 {
			select {
			case c.stdin <- buf[:n]:
			case <-c.done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

//go:build unix

package session

import (
	"errors"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// clientSignals are the signals the client loop handles.
type clientSignals struct {
	resize, quit, cont chan os.Signal
}

func newClientSignals() *clientSignals {
	s := &clientSignals{
		resize: make(chan os.Signal, 1),
		quit:   make(chan os.Signal, 1),
		cont:   make(chan os.Signal, 1),
	}
	signal.Notify(s.resize, syscall.SIGWINCH)
	signal.Notify(s.quit, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	signal.Notify(s.cont, syscall.SIGCONT)
	return s
}

func (s *clientSignals) stop() {
	signal.Stop(s.resize)
	signal.Stop(s.quit)
	signal.Stop(s.cont)
}

// stopAndWait stops the client's process group, as a shell's job control
// would on Ctrl-Z, and returns once it is continued. The stop can take
// effect after kill(2) returns, so it waits for the SIGCONT.
func (s *clientSignals) stopAndWait() {
	for len(s.cont) > 0 {
		<-s.cont
	}
	if unix.Kill(0, unix.SIGSTOP) == nil {
		<-s.cont
	}
}

// readStdin is the terminal feeder: it forwards typed bytes to the loop.
// It polls so that it notices the end of the session without closing the
// user's terminal (a blocked read(2) on a tty cannot be interrupted).
func (c *client) readStdin() {
	defer c.stdinWG.Done()
	defer close(c.stdin)
	fd := int(c.cfg.Stdin.Fd())
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		select {
		case <-c.done:
			return
		default:
		}
		n, err := unix.Poll(fds, 100)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if n <= 0 {
			continue
		}
		buf := make([]byte, stdinReadSize)
		m, err := unix.Read(fd, buf)
		if m > 0 {
			select {
			case c.stdin <- buf[:m]:
			case <-c.done:
				return
			}
		}
		if (err != nil && !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN)) || (m == 0 && err == nil) {
			return
		}
	}
}

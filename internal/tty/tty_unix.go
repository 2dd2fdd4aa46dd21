//go:build unix

package tty

import (
	"errors"
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

// pollInterval is how often the reader checks that it should stop, when
// it has no wake pipe.
const pollInterval = 100 // ms

// readerWake is a pipe whose read end the reader polls beside the
// terminal: Close writes to it, so the reader stops at once (a session's
// last step before gosh exits) rather than at its next poll. Without one
// (fds -1) the reader notices Close within pollInterval.
type readerWake struct{ r, w int }

func newReaderWake() readerWake {
	var p [2]int
	if unix.Pipe(p[:]) != nil {
		return readerWake{-1, -1}
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		_ = unix.SetNonblock(fd, true)
	}
	return readerWake{p[0], p[1]}
}

func (w readerWake) wake() {
	if w.w >= 0 {
		_, _ = unix.Write(w.w, []byte{0})
	}
}

// close releases the pipe once the reader is gone.
func (w readerWake) close() {
	if w.r >= 0 {
		unix.Close(w.r)
		unix.Close(w.w)
	}
}

// consoleState is empty on Unix: raw mode is all the terminal needs.
type consoleState struct{}

func enableVT(in, out *os.File) consoleState     { return consoleState{} }
func restoreVT(in, out *os.File, _ consoleState) {}

// read is the reader goroutine: it forwards typed bytes until Close. It
// polls so that it notices Close without closing the user's terminal.
func (t *Terminal) read() {
	defer t.reader.Done()
	defer close(t.input)
	fd := int(t.in.Fd())
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if t.wake.r >= 0 {
		fds = append(fds, unix.PollFd{Fd: int32(t.wake.r), Events: unix.POLLIN})
	}
	for {
		select {
		case <-t.done:
			return
		default:
		}
		n, err := unix.Poll(fds, pollInterval)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if n <= 0 || fds[0].Revents == 0 {
			continue // the wake pipe, or nothing: the loop's top checks done
		}
		buf := make([]byte, readSize)
		m, err := unix.Read(fd, buf)
		if m > 0 {
			select {
			case t.input <- buf[:m]:
			case <-t.done:
				return
			}
		}
		if (err != nil && !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN)) || (m == 0 && err == nil) {
			return
		}
	}
}

// Suspend stops the client's process group, as a shell's job control
// would on Ctrl-Z, and returns once it is continued. The stop can take
// effect after kill(2) returns, so it waits for the SIGCONT.
func (t *Terminal) Suspend() {
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, unix.SIGCONT)
	defer signal.Stop(cont)
	if unix.Kill(0, unix.SIGSTOP) == nil {
		<-cont
	}
}

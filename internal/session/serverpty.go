package session

// The server's goroutines around the program's pseudo-terminal: reading
// its output, writing the user's input, and awaiting its exit; the loop
// (server.go) alone acts on what they report.

import (
	"errors"
	"io"
	"time"
)

// readPTY is the pty feeder: it forwards the program's output to the loop.
func (s *server) readPTY() {
	defer s.wg.Done()
	defer close(s.ptyOut)
	// Two buffers, used in turn: the channel is unbuffered and the loop
	// is done with one chunk (Feed keeps no reference to it) before it
	// takes the next, so the buffer a chunk was read into is free again
	// once the chunk after it has been handed over. A flood is read some
	// 3 KiB at a time (the tty's line discipline holds 4 KiB); a fresh
	// 32 KiB buffer per read cost more in zeroing and collection than
	// the read itself.
	var bufs [2][ptyReadSize]byte
	budget := newOutputBudget(outputRate, outputBurst)
	pause := time.NewTimer(0)
	defer pause.Stop()
	for i := 0; ; i ^= 1 {
		buf := bufs[i][:]
		n, err := s.pty.Read(buf)
		if n > 0 {
			select {
			case s.ptyOut <- buf[:n]:
			case <-s.done:
				return
			}
			if wait := budget.spend(time.Now(), n); wait > 0 {
				s.ptyPaused.Store(time.Now().Add(wait).UnixNano()) // a flood: never a quiet pty (answer.go)
				pause.Reset(wait)
				select {
				case <-pause.C:
				case <-s.done:
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.logf.Printf("reading the terminal: %v", err)
			}
			s.awaitExit()
			return
		}
	}
}

// awaitExit waits, up to exitWait, for the program to have exited, so
// that the loop learns its exit status with the end of its output.
func (s *server) awaitExit() {
	er, ok := s.pty.(ExitReporter)
	if !ok {
		return
	}
	wait := time.NewTimer(exitWait)
	defer wait.Stop()
	select {
	case <-er.Exited():
	case <-wait.C:
	case <-s.done:
	}
}

// writePTY writes queued input to the program; a slow reader blocks only
// this goroutine, never the loop.
func (s *server) writePTY() {
	defer s.wg.Done()
	for {
		select {
		case b := <-s.writeReq:
			_, err := s.pty.Write(b)
			select {
			case s.writeDone <- err:
			case <-s.done:
				return
			}
		case <-s.done:
			return
		}
	}
}

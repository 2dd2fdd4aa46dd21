//go:build windows

package tty

import (
	"os"

	"golang.org/x/sys/windows"
)

// consoleState holds the console modes to restore on Windows.
type consoleState struct {
	inMode, outMode uint32
	ok              bool
}

// enableVT makes the Windows console speak VT sequences: output is
// interpreted as escape sequences and keys arrive as xterm-style input.
func enableVT(in, out *os.File) consoleState {
	var st consoleState
	hin, hout := windows.Handle(in.Fd()), windows.Handle(out.Fd())
	if windows.GetConsoleMode(hin, &st.inMode) != nil || windows.GetConsoleMode(hout, &st.outMode) != nil {
		return st
	}
	st.ok = true
	_ = windows.SetConsoleMode(hin, st.inMode|windows.ENABLE_VIRTUAL_TERMINAL_INPUT)
	_ = windows.SetConsoleMode(hout, st.outMode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING|windows.DISABLE_NEWLINE_AUTO_RETURN)
	return st
}

func restoreVT(in, out *os.File, st consoleState) {
	if !st.ok {
		return
	}
	_ = windows.SetConsoleMode(windows.Handle(in.Fd()), st.inMode)
	_ = windows.SetConsoleMode(windows.Handle(out.Fd()), st.outMode)
}

// readerWake is nothing on Windows: a console read cannot be interrupted.
type readerWake struct{}

func newReaderWake() readerWake { return readerWake{} }
func (readerWake) wake()        {}
func (readerWake) close()       {}

// read is the reader goroutine: it forwards typed bytes. A console read
// cannot be interrupted, so Close does not wait for it (it is marked done
// at once); it ends with the process.
func (t *Terminal) read() {
	t.reader.Done()
	defer close(t.input)
	for {
		buf := make([]byte, readSize)
		n, err := t.in.Read(buf)
		if n > 0 {
			select {
			case t.input <- buf[:n]:
			case <-t.done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Suspend does nothing: Windows consoles have no job control.
func (t *Terminal) Suspend() {}

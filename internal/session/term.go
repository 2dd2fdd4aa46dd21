package session

import (
	"errors"
	"os"

	"golang.org/x/term"
)

// userTerminal is the user's terminal on the client: stdin in raw mode and
// stdout for painting. Restore puts it back as it was; it is idempotent and
// is called on every exit path.
type userTerminal struct {
	in, out *os.File
	saved   *term.State
	extra   consoleState // platform-specific modes (Windows console VT flags)
}

var errNotATerminal = errors.New("session: standard input is not a terminal")

// openTerminal puts the terminal on in into raw mode.
func openTerminal(in, out *os.File) (*userTerminal, error) {
	if !term.IsTerminal(int(in.Fd())) {
		return nil, errNotATerminal
	}
	t := &userTerminal{in: in, out: out}
	if err := t.makeRaw(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *userTerminal) makeRaw() error {
	st, err := term.MakeRaw(int(t.in.Fd()))
	if err != nil {
		return err
	}
	if t.saved == nil {
		t.saved = st
	}
	t.extra = enableVT(t.in, t.out)
	return nil
}

// Restore returns the terminal to the mode it had before openTerminal.
func (t *userTerminal) Restore() {
	if t == nil || t.saved == nil {
		return
	}
	restoreVT(t.in, t.out, t.extra) // first: it saw the raw input mode
	_ = term.Restore(int(t.in.Fd()), t.saved)
}

// Size reports the window size, falling back to 80x24.
func (t *userTerminal) Size() (cols, rows int) {
	cols, rows, err := term.GetSize(int(t.out.Fd()))
	if err != nil || cols <= 0 || rows <= 0 {
		cols, rows, err = term.GetSize(int(t.in.Fd()))
	}
	if err != nil || cols <= 0 || rows <= 0 {
		return 80, 24
	}
	return cols, rows
}

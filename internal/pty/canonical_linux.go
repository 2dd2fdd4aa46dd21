package pty

import "golang.org/x/sys/unix"

// Canonical reports whether the terminal is in canonical (line) mode, in
// which the kernel edits and echoes a line before the program reads it:
// so it is while a program that does not read the terminal key by key
// runs, or starts. A line editor (a shell's, python's readline, vim,
// less) turns it off while it waits for a key. On Linux the master side
// reports the program's side's modes.
func (p *Program) Canonical() (bool, error) {
	sc, err := p.master.SyscallConn()
	if err != nil {
		return false, err
	}
	var t *unix.Termios
	var ierr error
	if err := sc.Control(func(fd uintptr) { t, ierr = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); err != nil {
		return false, err
	}
	if ierr != nil {
		return false, ierr
	}
	return t.Lflag&unix.ICANON != 0, nil
}

//go:build unix

package session

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// shellSpec describes the program the server runs in its pseudo-terminal.
type shellSpec struct {
	// Command replaces the login shell when non-empty.
	Command []string
	// Env is the child's complete environment.
	Env []string
	// Dir is the working directory (the user's home).
	Dir string
	// Cols and Rows are the initial window size.
	Cols, Rows int
}

// startShell runs spec in a new pseudo-terminal and returns its master side.
// The child is a session leader with the pty as its controlling terminal.
// The pty has IUTF8 set so the kernel's line editing erases whole UTF-8
// characters.
func startShell(spec shellSpec) (*exec.Cmd, *os.File, error) {
	argv0, argv, err := shellArgv(spec.Command)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(argv0)
	cmd.Args = argv
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(spec.Cols), Rows: uint16(spec.Rows)})
	if err != nil {
		return nil, nil, fmt.Errorf("session: starting %s: %w", argv0, err)
	}
	setIUTF8(ptmx)
	polled, err := pollable(ptmx)
	if err != nil {
		ptmx.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, nil, fmt.Errorf("session: %w", err)
	}
	return cmd, polled, nil
}

// pollable returns a non-blocking duplicate of the pty master, which the Go
// runtime polls, so that closing it interrupts a pending Read or Write
// (a blocking file's Close waits for them, and a program that never exits
// would then hang the server). f is closed. The result must not be used
// through Fd, which would make it blocking again.
func pollable(f *os.File) (*os.File, error) {
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

// shellArgv resolves the program to run: the given command, or the user's
// login shell invoked as a login shell ("-bash").
func shellArgv(command []string) (path string, argv []string, err error) {
	if len(command) > 0 {
		path, err := exec.LookPath(command[0])
		if err != nil {
			return "", nil, fmt.Errorf("session: %w", err)
		}
		return path, command, nil
	}
	shell := loginShell()
	return shell, []string{"-" + filepath.Base(shell)}, nil
}

// loginShell is $SHELL, else the passwd entry's shell, else /bin/sh.
func loginShell() string {
	if s := os.Getenv("SHELL"); s != "" {
		return s
	}
	if s := passwdShell(os.Getuid()); s != "" {
		return s
	}
	return "/bin/sh"
}

// passwdShell reads the shell of uid from /etc/passwd.
func passwdShell(uid int) string {
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 7 && f[2] == fmt.Sprint(uid) {
			return f[6]
		}
	}
	return ""
}

// resizePTY sets the window size of the pty, which signals SIGWINCH to its
// foreground process group.
func resizePTY(ptmx *os.File, cols, rows int) error {
	return control(ptmx, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	})
}

// control runs fn on f's descriptor without making it blocking.
func control(f *os.File, fn func(fd int) error) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// isPTYClosed reports whether err from reading the pty master means the
// child side is gone (Linux returns EIO once every slave fd is closed).
func isPTYClosed(err error) bool {
	return errors.Is(err, unix.EIO) || errors.Is(err, os.ErrClosed)
}

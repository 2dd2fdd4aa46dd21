//go:build unix

package pty

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	cpty "github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Program is a program running in a pseudo-terminal. Read, Write and
// Resize may be called from different goroutines; Close ends everything.
type Program struct {
	cmd       *exec.Cmd
	master    *os.File // non-blocking: the runtime polls it, so Close interrupts Read and Write
	exited    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Start runs spec in a new pseudo-terminal. The terminal has IUTF8 set
// where the system has it, so the kernel's line editing erases whole UTF-8
// characters.
func Start(spec Spec) (*Program, error) {
	path, argv, err := argv(spec.Command)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path)
	cmd.Args = argv
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	f, err := cpty.StartWithSize(cmd, &cpty.Winsize{Cols: uint16(spec.Cols), Rows: uint16(spec.Rows)})
	if err != nil {
		return nil, fmt.Errorf("pty: starting %s: %w", path, err)
	}
	setIUTF8(f)
	master, err := pollable(f)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("pty: %w", err)
	}
	p := &Program{cmd: cmd, master: master, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Pid returns the program's process id.
func (p *Program) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the program has exited (and been reaped).
func (p *Program) Exited() <-chan struct{} { return p.exited }

// ExitStatus is how the program ended, once Exited is closed: its exit
// status, or, signal above 0, the signal that killed it. Before that it
// returns -1, 0.
func (p *Program) ExitStatus() (code, signal int) {
	select {
	case <-p.exited:
	default:
		return -1, 0
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 0, int(ws.Signal())
	}
	return p.cmd.ProcessState.ExitCode(), 0
}

// Read returns the program's output; io.EOF once the program's side of the
// terminal is gone (Linux reports EIO then) or after Close.
func (p *Program) Read(b []byte) (int, error) {
	n, err := p.master.Read(b)
	if err != nil && (errors.Is(err, unix.EIO) || errors.Is(err, os.ErrClosed)) {
		err = io.EOF
	}
	return n, err
}

// Write sends input to the program; it blocks while the terminal's input
// queue is full.
func (p *Program) Write(b []byte) (int, error) { return p.master.Write(b) }

// Resize sets the window size, which signals SIGWINCH to the terminal's
// foreground process group.
func (p *Program) Resize(cols, rows int) error {
	sc, err := p.master.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	err = sc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	})
	if err != nil {
		return err
	}
	return ierr
}

// Close hangs up the terminal (the program gets SIGHUP, pending Reads and
// Writes return) and waits for the program to exit, killing it after
// exitGrace. It is idempotent.
func (p *Program) Close() error {
	p.closeOnce.Do(func() {
		p.closeErr = p.master.Close()
		select {
		case <-p.exited:
		case <-time.After(exitGrace):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p.closeErr
}

// pollable returns a non-blocking duplicate of the pty master, which the Go
// runtime polls, so that closing it interrupts a pending Read or Write (a
// blocking file's Close waits for them, and a program that never exits
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

// argv resolves the program to run: the given command, or the user's login
// shell invoked as a login shell ("-bash").
func argv(command []string) (path string, args []string, err error) {
	if len(command) > 0 {
		path, err := exec.LookPath(command[0])
		if err != nil {
			return "", nil, fmt.Errorf("pty: %w", err)
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
		if len(f) >= 7 && f[2] == strconv.Itoa(uid) {
			return f[6]
		}
	}
	return ""
}

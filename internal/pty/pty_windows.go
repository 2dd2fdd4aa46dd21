//go:build windows

package pty

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Program is a program running in a pseudo console (ConPTY). Read, Write
// and Resize may be called from different goroutines; Close ends
// everything.
//
// The process started in the console is this executable again, as a
// helper (see helper_windows.go) that opens the console's own input and
// output and runs the program with them as its standard handles. A program
// started straight into a pseudo console takes its standard handles from
// the parent when the parent's are files or pipes (and under Wine, always),
// so its output would bypass the console.
type Program struct {
	console windows.Handle // the pseudo console
	job     windows.Handle // the helper and everything it starts
	process windows.Handle // the helper
	pid     int
	in      *os.File // the console's input: what Write types
	out     *os.File // the console's output: what Read returns

	exited      chan struct{}
	exitCode    int // the helper's, which is the program's; set before exited closes
	consoleOnce sync.Once
	consoleDone chan struct{}
	closeOnce   sync.Once
	closeErr    error
	resizeMu    sync.Mutex
	consoleGone bool // under resizeMu
}

// Start runs spec in a new pseudo console.
func Start(spec Spec) (*Program, error) {
	path, args, err := argv(spec.Command)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("pty: finding this executable for the console helper: %w", err)
	}
	var inR, inW, outR, outW windows.Handle
	if err := windows.CreatePipe(&inR, &inW, nil, 0); err != nil {
		return nil, fmt.Errorf("pty: %w", err)
	}
	if err := windows.CreatePipe(&outR, &outW, nil, 0); err != nil {
		windows.CloseHandle(inR)
		windows.CloseHandle(inW)
		return nil, fmt.Errorf("pty: %w", err)
	}
	var console windows.Handle
	err = windows.CreatePseudoConsole(coord(spec.Cols, spec.Rows), inR, outW, 0, &console)
	// The console holds its own references to its ends of the pipes.
	windows.CloseHandle(inR)
	windows.CloseHandle(outW)
	in, out := os.NewFile(uintptr(inW), "conpty-input"), os.NewFile(uintptr(outR), "conpty-output")
	if err != nil {
		in.Close()
		out.Close()
		return nil, fmt.Errorf("pty: CreatePseudoConsole: %w", err)
	}
	p := &Program{console: console, in: in, out: out, exited: make(chan struct{}), consoleDone: make(chan struct{})}
	if err := p.start(self, path, args, spec); err != nil {
		windows.ClosePseudoConsole(console)
		in.Close()
		out.Close()
		return nil, err
	}
	go func() {
		_, _ = windows.WaitForSingleObject(p.process, windows.INFINITE)
		var code uint32
		if windows.GetExitCodeProcess(p.process, &code) == nil {
			p.exitCode = int(code)
		}
		close(p.exited)
		// The console outlives its programs; closing it once they are
		// gone ends its output, so Read returns io.EOF as a hung-up
		// terminal's does on Unix.
		p.closeConsole()
	}()
	return p, nil
}

// start creates the helper process in p's console and job. The process is
// created suspended so that it is in the job before it can start
// anything. It is one function, a little over 60 lines, because each
// step's failure must undo exactly the handles made before it.
func (p *Program) start(self, path string, args []string, spec Spec) error {
	attrs, err := windows.NewProcThreadAttributeList(1)
	if err != nil {
		return fmt.Errorf("pty: %w", err)
	}
	defer attrs.Delete()
	// The attribute's value is the console handle itself, as the API
	// documents, not a pointer to it.
	value := *(*unsafe.Pointer)(unsafe.Pointer(&p.console))
	if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, value, unsafe.Sizeof(p.console)); err != nil {
		return fmt.Errorf("pty: %w", err)
	}
	si := &windows.StartupInfoEx{ProcThreadAttributeList: attrs.List()}
	si.Cb = uint32(unsafe.Sizeof(*si))
	// No standard handles of ours: the helper opens the console's.
	si.Flags = windows.STARTF_USESTDHANDLES

	cmdline := windows.ComposeCommandLine(append([]string{self}, append([]string{path}, args[1:]...)...))
	env, err := envBlock(append(withoutHelperVar(spec.Env), helperEnv+"=1"))
	if err != nil {
		return err
	}
	var dir *uint16
	if spec.Dir != "" {
		if dir, err = windows.UTF16PtrFromString(spec.Dir); err != nil {
			return fmt.Errorf("pty: %w", err)
		}
	}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("pty: CreateJobObject: %w", err)
	}
	var pi windows.ProcessInformation
	flags := uint32(windows.EXTENDED_STARTUPINFO_PRESENT | windows.CREATE_UNICODE_ENVIRONMENT | windows.CREATE_SUSPENDED)
	cl, err := windows.UTF16PtrFromString(cmdline)
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("pty: %w", err)
	}
	if err := windows.CreateProcess(nil, cl, nil, nil, false, flags, &env[0], dir, &si.StartupInfo, &pi); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("pty: starting %s: %w", path, err)
	}
	// A job is only a way to end the program's children with it; where
	// the process cannot join one (an enclosing job that forbids it),
	// Close still ends the helper.
	if windows.AssignProcessToJobObject(job, pi.Process) != nil {
		windows.CloseHandle(job)
		job = 0
	}
	if _, err := windows.ResumeThread(pi.Thread); err != nil {
		windows.TerminateProcess(pi.Process, 1)
		windows.CloseHandle(pi.Thread)
		windows.CloseHandle(pi.Process)
		if job != 0 {
			windows.CloseHandle(job)
		}
		return fmt.Errorf("pty: %w", err)
	}
	windows.CloseHandle(pi.Thread)
	p.process, p.pid, p.job = pi.Process, int(pi.ProcessId), job
	return nil
}

// Pid returns the process id of the program's helper, the console's first
// process; the program is its child.
func (p *Program) Pid() int { return p.pid }

// Exited is closed once the program (its helper) has exited.
func (p *Program) Exited() <-chan struct{} { return p.exited }

// ExitStatus is the program's exit code once Exited is closed, which the
// helper passes on (Windows has no signals: signal is always 0); -1
// before.
func (p *Program) ExitStatus() (code, signal int) {
	select {
	case <-p.exited:
		return p.exitCode, 0
	default:
		return -1, 0
	}
}

// Read returns what the console draws; io.EOF once the program is gone and
// the console closed, or after Close.
func (p *Program) Read(b []byte) (int, error) {
	n, err := p.out.Read(b)
	if err != nil && (errors.Is(err, os.ErrClosed) || errors.Is(err, windows.ERROR_BROKEN_PIPE)) {
		err = io.EOF
	}
	return n, err
}

// Write types into the console: text and VT input sequences, which the
// console turns into key events.
func (p *Program) Write(b []byte) (int, error) { return p.in.Write(b) }

// Resize sets the console's size.
func (p *Program) Resize(cols, rows int) error {
	p.resizeMu.Lock()
	defer p.resizeMu.Unlock()
	if p.consoleGone {
		return os.ErrClosed
	}
	return windows.ResizePseudoConsole(p.console, coord(cols, rows))
}

// closeConsole closes the pseudo console once. Its output is read to the
// end meanwhile: the console flushes what it has drawn before it goes,
// and would wait for a reader forever.
func (p *Program) closeConsole() {
	p.consoleOnce.Do(func() {
		go func() {
			p.resizeMu.Lock()
			p.consoleGone = true
			p.resizeMu.Unlock()
			windows.ClosePseudoConsole(p.console)
			close(p.consoleDone)
		}()
	})
}

// Close ends the program: it closes the console (which ends the programs
// attached to it), waits for the helper to exit, ends whatever is left of
// the program's processes after exitGrace, and releases the handles.
// Pending and later Reads return io.EOF. It is idempotent.
func (p *Program) Close() error {
	p.closeOnce.Do(func() {
		p.closeErr = p.in.Close()
		p.closeConsole()
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			_, _ = io.Copy(io.Discard, p.out)
		}()
		select {
		case <-p.exited:
		case <-time.After(exitGrace):
		}
		if p.job != 0 {
			windows.TerminateJobObject(p.job, 1)
		}
		windows.TerminateProcess(p.process, 1)
		<-p.exited
		select {
		case <-p.consoleDone:
		case <-time.After(exitGrace):
			// A console that will not close keeps its pipe's write end
			// open; closing ours still lets the drain end.
		}
		p.out.Close()
		select {
		case <-drained:
		case <-time.After(exitGrace):
			// A Read blocked on a pipe whose writer is still open keeps
			// the handle alive past Close; the drain ends with the console.
		}
		if p.job != 0 {
			windows.CloseHandle(p.job)
		}
		windows.CloseHandle(p.process)
	})
	return p.closeErr
}

// coord is a console size.
func coord(cols, rows int) windows.Coord {
	return windows.Coord{X: int16(min(max(cols, 1), 0x7fff)), Y: int16(min(max(rows, 1), 0x7fff))}
}

// argv resolves the program to run: the given command, or %COMSPEC%.
func argv(command []string) (path string, args []string, err error) {
	if len(command) == 0 {
		shell := os.Getenv("COMSPEC")
		if shell == "" {
			shell = "cmd.exe"
		}
		command = []string{shell}
	}
	path, err = exec.LookPath(command[0])
	if err != nil {
		return "", nil, fmt.Errorf("pty: %w", err)
	}
	return path, command, nil
}

// envBlock is env as CreateProcess takes it: NUL-terminated UTF-16
// strings, then an empty one.
func envBlock(env []string) ([]uint16, error) {
	var b []uint16
	for _, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("pty: environment entry %q holds a NUL", kv)
		}
		b = append(b, windows.StringToUTF16(kv)...)
	}
	return append(b, 0), nil
}

// withoutHelperVar is env without helperEnv, which must reach only the
// helper.
func withoutHelperVar(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(strings.ToUpper(kv), helperEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

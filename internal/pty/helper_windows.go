//go:build windows

package pty

import (
	"fmt"
	"os"
	"os/signal"
	"unsafe"

	"golang.org/x/sys/windows"
)

// helperEnv, set to 1 in a process's environment, makes it the console
// helper of [Start] instead of what the executable is: this package's init
// runs the program named by the command line with the console's own input
// and output as its standard handles, waits for it and exits with its exit
// code. Every executable that imports this package can be the helper.
const helperEnv = "GOSH_PTY_HELPER"

func init() {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	os.Exit(runHelper(os.Args[1:]))
}

// runHelper runs argv (its path first) with the console's input and
// output and returns its exit code; 127 and a line on the console if it
// could not.
func runHelper(argv []string) int {
	inherit := &windows.SecurityAttributes{InheritHandle: 1}
	inherit.Length = uint32(unsafe.Sizeof(*inherit))
	open := func(name string) (windows.Handle, error) {
		return windows.CreateFile(windows.StringToUTF16Ptr(name), windows.GENERIC_READ|windows.GENERIC_WRITE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, inherit, windows.OPEN_EXISTING, 0, 0)
	}
	conin, err := open("CONIN$")
	if err != nil {
		return 127
	}
	conout, err := open("CONOUT$")
	if err != nil {
		return 127
	}
	fail := func(err error) int {
		msg, _ := windows.UTF16FromString(fmt.Sprintf("gosh: %v\r\n", err))
		var n uint32
		_ = windows.WriteConsole(conout, &msg[0], uint32(len(msg)-1), &n, nil)
		return 127
	}
	if len(argv) == 0 {
		return fail(fmt.Errorf("pty helper: no program to run"))
	}
	os.Unsetenv(helperEnv)
	// The helper shares the console with the program, so a Ctrl-C typed
	// there reaches it too. Go's default would end the helper, and with
	// it the console, and so would signal.Ignore (the runtime then leaves
	// the event to the system's handler): a Ctrl-C must be taken, and
	// dropped. The program gets it all the same.
	signal.Notify(make(chan os.Signal, 1), os.Interrupt)
	si := &windows.StartupInfo{Flags: windows.STARTF_USESTDHANDLES, StdInput: conin, StdOutput: conout, StdErr: conout}
	si.Cb = uint32(unsafe.Sizeof(*si))
	app, err := windows.UTF16PtrFromString(argv[0])
	if err != nil {
		return fail(err)
	}
	cl, err := windows.UTF16PtrFromString(windows.ComposeCommandLine(argv))
	if err != nil {
		return fail(err)
	}
	var pi windows.ProcessInformation
	if err := windows.CreateProcess(app, cl, nil, nil, true, windows.CREATE_UNICODE_ENVIRONMENT, nil, nil, si, &pi); err != nil {
		return fail(fmt.Errorf("starting %s: %w", argv[0], err))
	}
	windows.CloseHandle(pi.Thread)
	windows.CloseHandle(conin)
	windows.CloseHandle(conout)
	_, _ = windows.WaitForSingleObject(pi.Process, windows.INFINITE)
	var code uint32
	if err := windows.GetExitCodeProcess(pi.Process, &code); err != nil {
		return 127
	}
	return int(code)
}

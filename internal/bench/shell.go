package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/gosh-term/gosh/internal/bench/workload"
)

// What the runs type into each kind of shell, besides the workload: the
// keys that clear the screen and draw the prompt on its top row, and a
// command that prints lines until it is interrupted.
var (
	clearKeys = map[string]string{workload.ShellSh: "\x0c", workload.ShellCmd: "cls\r"}
	floodKeys = map[string]string{
		workload.ShellSh:  "seq 1 100000000\r",
		workload.ShellCmd: "for /L %i in (1,1,100000000) do @echo %i\r",
	}
)

// shellOf is w's shell, with the default spelled out.
func shellOf(w *workload.Workload) string {
	if w.Shell == "" {
		return workload.ShellSh
	}
	return w.Shell
}

// shellSpec is the shell every run of a workload typed into shell starts,
// with a fixed prompt ("$ ") and environment, in base/run (the same path
// for every run, so that what the shell prints is the same). It fails,
// saying why, if this system does not have that shell.
func shellSpec(base, shell string) (remoteSpec, error) {
	dir := filepath.Join(base, "run")
	switch {
	case shell == workload.ShellCmd && runtime.GOOS == "windows":
		return cmdSpec(dir), nil
	case shell == workload.ShellCmd:
		return remoteSpec{}, fmt.Errorf("it is typed into cmd.exe, which only Windows has")
	case runtime.GOOS == "windows":
		return remoteSpec{}, fmt.Errorf("it is typed into a POSIX shell, which Windows does not have (--workload %s is Windows' own)", "cmd")
	}
	argv := []string{"sh", "-i"}
	if _, err := exec.LookPath("bash"); err == nil {
		argv = []string{"bash", "--norc", "--noprofile", "-i"}
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"PS1=$ ", "PS2=> ", "HISTFILE=/dev/null", "LESSHISTFILE=-", "INPUTRC=/dev/null", "PAGER=less",
		// Vim's defaults, without a swap file or viminfo (left-overs of
		// one run would change the next).
		"VIMINIT=set nocompatible | runtime defaults.vim | set noswapfile viminfo=",
		"PYTHONSTARTUP=", "PYTHON_BASIC_REPL=1",
	}
	return remoteSpec{Argv: argv, Env: env, Dir: dir, Cols: typingCols, Rows: typingRows}, nil
}

// cmdSpec is cmd.exe without AutoRun commands (/d), its prompt set by a
// command: Wine puts its registry's PROMPT into every process's
// environment, over the one given.
func cmdSpec(dir string) remoteSpec {
	comspec := os.Getenv("COMSPEC")
	if comspec == "" {
		comspec = "cmd.exe"
	}
	env := []string{"USERPROFILE=" + dir, "PROMPT=$$$S"}
	for _, k := range []string{"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "PATH", "PATHEXT", "COMSPEC", "TEMP", "TMP"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return remoteSpec{Argv: []string{comspec, "/d", "/k", "prompt $$$S"}, Env: env, Dir: dir, Cols: typingCols, Rows: typingRows}
}

// idleCommand is a program that runs until it is ended and prints nothing
// on its own: the session behind a forwarding benchmark.
func idleCommand() []string {
	if runtime.GOOS == "windows" {
		return []string{"cmd.exe", "/d", "/k", "prompt $S"}
	}
	return []string{"sleep", "86400"}
}

// idleEnv is idleCommand's environment: none on Unix, what Windows
// programs need on Windows.
func idleEnv() []string {
	if runtime.GOOS == "windows" {
		return cmdSpec("").Env
	}
	return nil
}

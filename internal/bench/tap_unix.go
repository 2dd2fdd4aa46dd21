//go:build unix

package bench

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/gosh-term/gosh/internal/pty"
)

// tapSupported: the tap runs the program in a pseudo-terminal of its own.
const tapSupported = true

// TapMain is "gosh bench tap LOG COLS ROWS -- COMMAND...", with args the
// arguments after [TapArgs]: it runs COMMAND in a COLS×ROWS
// pseudo-terminal of its own, with this process's environment and
// directory, passes its own input to it and its output back, unchanged
// (its own terminal in raw mode), and appends each piece of output, with
// the time it was read, to LOG. It returns the exit status to use: 0 once
// the program's terminal closes, 2 for bad arguments, 1 if the program
// could not start.
func TapMain(args []string) int {
	logName, cols, rows, argv, err := parseTapArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	log, err := os.OpenFile(logName, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosh bench tap:", err)
		return 1
	}
	defer log.Close()
	if term.IsTerminal(int(os.Stdin.Fd())) {
		if st, err := term.MakeRaw(int(os.Stdin.Fd())); err == nil {
			defer term.Restore(int(os.Stdin.Fd()), st)
		}
	}
	dir, _ := os.Getwd()
	prog, err := pty.Start(pty.Spec{Command: argv, Env: os.Environ(), Dir: dir, Cols: cols, Rows: rows})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosh bench tap:", err)
		return 1
	}
	defer prog.Close()
	go func() {
		// The server went away when its terminal closes: so does the
		// program.
		_, _ = io.Copy(prog, os.Stdin)
		prog.Close()
	}()
	buf := make([]byte, 32<<10)
	var rec []byte
	for {
		n, err := prog.Read(buf)
		if n > 0 {
			rec = appendTapRecord(rec[:0], time.Now(), buf[:n])
			_, _ = log.Write(rec)
			if _, werr := os.Stdout.Write(buf[:n]); werr != nil {
				return 0
			}
		}
		if err != nil {
			return 0
		}
	}
}

package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gosh-term/gosh/internal/connectline"
	"github.com/gosh-term/gosh/internal/logf"
)

// afterConnectWait bounds how long the client waits, after the CONNECT
// line, for the remote command to exit (the server's parent prints its
// banner and detached pid, then exits).
const afterConnectWait = 5 * time.Second

// remoteRun runs one command over an SSH session and collects its output.
type remoteRun struct {
	client *ssh.Client
	stderr io.Writer // the user's; diagnostics before the CONNECT line go here
	logf   logf.Func
}

// run executes command with stdin (may be nil) and returns its output and
// its exit error (nil, *ssh.ExitError, *ssh.ExitMissingError, or an I/O
// error). It returns soon after a CONNECT line even if the command lingers.
func (r *remoteRun) run(ctx context.Context, command string, stdin io.Reader) (*startOutput, error) {
	out := &startOutput{}
	sess, err := r.client.NewSession()
	if err != nil {
		return out, fmt.Errorf("bootstrap: opening an SSH session: %w", err)
	}
	defer sess.Close()
	sess.Stdin = stdin
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return out, err
	}
	stderrPipe, err := sess.StderrPipe()
	if err != nil {
		return out, err
	}
	r.logf.Printf("bootstrap: remote command: %s", command)
	if err := sess.Start(command); err != nil {
		return out, fmt.Errorf("bootstrap: starting the remote command: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { sess.Close() })
	defer stop()

	var connected atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.relayStderr(stderrPipe, out, &connected)
	}()
	var lingering *time.Timer
	readErr := forEachLine(stdout, func(line string) {
		forUser := out.stdoutLine(line)
		if forUser {
			out.capture(line)
			fmt.Fprintf(r.stderr, "%s\n", trimCR(line))
		}
		if out.connected && lingering == nil {
			connected.Store(true)
			lingering = time.AfterFunc(afterConnectWait, func() { sess.Close() })
		}
	})
	waitErr := sess.Wait()
	if lingering != nil {
		lingering.Stop()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil && !out.connected {
		return out, err
	}
	if waitErr == nil && readErr != nil {
		waitErr = readErr
	}
	return out, waitErr
}

// relayStderr echoes the command's stderr to the user until the CONNECT
// line has been seen, keeps a copy, and notes the detached server's pid.
func (r *remoteRun) relayStderr(stderr io.Reader, out *startOutput, connected *atomic.Bool) {
	forEachLine(stderr, func(line string) {
		line = trimCR(line)
		out.capture(line)
		if d, ok := connectline.ParseDetached(line); ok {
			out.mu.Lock()
			out.detached = d
			out.mu.Unlock()
		}
		if connected.Load() || connectline.IsBanner(line) {
			r.logf.Printf("bootstrap: remote: %s", line)
			return
		}
		fmt.Fprintf(r.stderr, "%s\n", line)
	})
}

func trimCR(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\r' || s[len(s)-1] == '\n') {
		s = s[:len(s)-1]
	}
	return s
}

// serverError builds the error for a start command without CONNECT line.
func serverError(command string, out *startOutput, err error) *ServerError {
	se := &ServerError{Command: command, Stderr: out.captured(), ExitStatus: -1, Err: err}
	var ee *ssh.ExitError
	switch {
	case errors.As(err, &ee):
		se.ExitStatus = ee.ExitStatus()
	case err == nil:
		se.ExitStatus = 0
		se.Err = ErrNoConnectLine
	}
	return se
}

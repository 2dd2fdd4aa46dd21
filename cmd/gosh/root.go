package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gosh-term/gosh/internal/buildinfo"
)

// Exit statuses of the gosh command.
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed
	exitUsage = 2 // bad flags or arguments
)

// usageError marks an error in the command line itself; it exits with
// status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// errNotLanded is returned by subcommands whose implementation is not in
// this build yet.
var errNotLanded = errors.New("not implemented in this build yet")

// run executes gosh with args and returns the process exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(withImplicitConnect(root, args))
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	msg := oneLine(err.Error())
	if !strings.HasPrefix(msg, "gosh ") && !strings.HasPrefix(msg, "gosh:") {
		msg = "gosh: " + msg
	}
	fmt.Fprintln(stderr, msg)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	var ee *exitStatusError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitError
}

// exitStatusError carries a specific exit status out of a command.
type exitStatusError struct {
	err  error
	code int
}

func (e *exitStatusError) Error() string { return e.err.Error() }
func (e *exitStatusError) Unwrap() error { return e.err }

// oneLine folds a multi-line error into one line for the terminal.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// withImplicitConnect lets "gosh [options] [user@]host [command]" mean
// "gosh connect …", as with mosh and ssh: when the first argument is
// neither a subcommand nor one of the root's own flags, connect is put
// in front.
func withImplicitConnect(root *cobra.Command, args []string) []string {
	if len(args) == 0 {
		return args
	}
	first := args[0]
	switch first {
	case "-h", "--help", "--version", "help", "completion", "__complete", "__completeNoDesc":
		return args
	}
	for _, c := range root.Commands() {
		if c.Name() == first || slices.Contains(c.Aliases, first) {
			return args
		}
	}
	return append([]string{"connect"}, args...)
}

// extraCommands are added by files built with extra tags (gendocs).
var extraCommands []func(root *cobra.Command) *cobra.Command

// newRootCmd builds the command tree with real implementations.
func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "gosh",
		Short: "gosh is the mobile shell: a roaming, latency-hiding remote terminal",
		Long: `gosh is the mobile shell (Mosh) rebuilt in Go as one static binary.

A session logs in over SSH, starts "gosh server" on the remote host and then
talks to it over encrypted UDP (Mosh's State Synchronization Protocol), so it
survives roaming, sleep and lossy links, and echoes keystrokes locally. gosh
is wire-compatible with Mosh 1.4: gosh connect works against mosh-server,
and mosh-client works against gosh server.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Version,
		Args:          noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("missing command; run 'gosh --help' for usage")
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newConnectCmd(func(o *ConnectOptions) error { return runConnect(o.ctx, o) }),
		newClientCmd(func(o *ConnectOptions) error { return runConnect(o.ctx, o) }),
		newServerCmd(func(o *ServerOptions) error { return runServer(o.ctx, o) }),
		newSessionsCmd(func(o *SessionsOptions) error { return runSessions(o.ctx, o) }),
		newBenchCmd(func(o *BenchOptions) error { return runBench(o) }),
		newVersionCmd(stdout),
	)
	for _, extra := range extraCommands {
		root.AddCommand(extra(root))
	}
	for _, c := range root.Commands() {
		c.SetFlagErrorFunc(flagError)
	}
	return root
}

// flagError turns pflag's errors into usage errors naming the command.
func flagError(cmd *cobra.Command, err error) error {
	return usagef("%s: %v (see '%s --help')", cmd.CommandPath(), err, cmd.CommandPath())
}

// noArgs rejects positional arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s: unknown command or argument %q (see '%s --help')", cmd.CommandPath(), args[0], cmd.CommandPath())
	}
	return nil
}

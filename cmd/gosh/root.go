package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
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
	err := mistypedCommand(root, args)
	if err == nil {
		root.SetArgs(withImplicitConnect(root, args))
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return exitOK
	}
	var ee *exitStatusError
	if errors.As(err, &ee) && ee.err == nil {
		return ee.code // the status says it all (a remote program's)
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
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitError
}

// exitStatusError carries a specific exit status out of a command; with
// no err, run prints nothing.
type exitStatusError struct {
	err  error
	code int
}

func (e *exitStatusError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
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
	case "-h", "--help", "-V", "--version", "help", "completion", "__complete", "__completeNoDesc":
		return args
	}
	for _, c := range root.Commands() {
		if c.Name() == first || slices.Contains(c.Aliases, first) {
			return args
		}
	}
	return append([]string{"connect"}, args...)
}

// mistypedCommand refuses a first word that looks like a mistyped
// subcommand ("gosh sesions lo"), which would otherwise be dialled as a
// host: one edit (insertion, deletion, substitution or transposition of
// neighbours) away from a subcommand's name, or a prefix of four letters
// or more of one, in any case. Only words of letters are considered: what
// a host name has and a command name lacks keeps it a host (a dot, colon
// or @, and digits: server1 is a host, not a typo of server). gosh
// connect WORD still reaches a host of that name.
func mistypedCommand(root *cobra.Command, args []string) error {
	if len(args) == 0 || args[0] == "" || strings.IndexFunc(args[0], notASCIILetter) >= 0 {
		return nil
	}
	word := strings.ToLower(args[0])
	names := []string{"help", "completion"}
	for _, c := range root.Commands() {
		if c.Name() == args[0] || slices.Contains(c.Aliases, args[0]) {
			return nil
		}
		if !c.Hidden {
			names = append(names, c.Name())
		}
	}
	if slices.Contains(names, args[0]) {
		return nil
	}
	var near []string
	for _, n := range names {
		if !slices.Contains(near, n) && (len(word) >= 3 && editDistance(word, n) <= 1 || len(word) >= 4 && strings.HasPrefix(n, word)) {
			near = append(near, n)
		}
	}
	if len(near) == 0 {
		return nil
	}
	return usagef("unknown command %q; did you mean %s? (for a host of that name: gosh connect %s)",
		args[0], joinOr(near), args[0])
}

func notASCIILetter(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }

// editDistance is the optimal string alignment distance between a and b
// (Damerau-Levenshtein where no substring is edited twice): insertions,
// deletions, substitutions and transpositions of adjacent bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// joinOr joins names as "a", "a or b", "a, b or c".
func joinOr(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// extraCommands are added by files built with extra tags (gendocs).
var extraCommands []func(root *cobra.Command) *cobra.Command

// newRootCmd builds the command tree with real implementations.
func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		// The main form first, as mosh and ssh show theirs (rootHelp);
		// the name is the first word.
		Use:                   "gosh [options] [user@]host[:port] [--] [COMMAND...]",
		DisableFlagsInUseLine: true,
		Short:                 "gosh is the mobile shell: a roaming, latency-hiding remote terminal",
		Long: `gosh is the mobile shell (Mosh) rebuilt in Go as one static binary.

A session logs in over SSH, starts "gosh server" on the remote host and then
talks to it over encrypted UDP (Mosh's State Synchronization Protocol), so it
survives roaming, sleep and lossy links, and echoes keystrokes locally. gosh
is wire-compatible with Mosh 1.4: gosh connect works against mosh-server,
and mosh-client works against gosh server.

gosh [options] HOST is gosh connect [options] HOST: "gosh connect --help"
lists the options, and the other ways to start a session (--local,
--direct, --resume, --attach).`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		Args:              noArgs,
		ValidArgsFunction: completeHost, // gosh HOST is gosh connect HOST
		RunE: func(cmd *cobra.Command, args []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), versionLine())
				return err
			}
			return usagef("missing command; run 'gosh --help' for usage")
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// -V as ssh's: -v is verbose, for gosh HOST as for gosh connect. The
	// flag is the root's own, not cobra's (whose -v it would be).
	root.Flags().BoolP("version", "V", false, "print the version and exit")
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(rootHelp(root.HelpFunc()))
	root.AddCommand(
		newConnectCmd(func(o *ConnectOptions) error { return runConnect(o.ctx, o) }),
		newClientCmd(func(o *ConnectOptions) error { return runConnect(o.ctx, o) }),
		newServerCmd(func(o *ServerOptions) error { return runServer(o.ctx, o) }),
		newSessionsCmd(func(o *SessionsOptions) error { return runSessions(o.ctx, o) }),
		newBenchCmd(func(o *BenchOptions) error { return runBench(o) }),
		newVersionCmd(stdout),
		newEnvironmentTopic(),
	)
	for _, extra := range extraCommands {
		root.AddCommand(extra(root))
	}
	for _, c := range root.Commands() {
		c.SetFlagErrorFunc(flagError)
	}
	return root
}

// rootHelp is the help function of the command tree: gosh --help (and
// gosh help) starts with the forms of the command line, as mosh --help
// and ssh do, then says what gosh is and lists the commands and flags;
// every other command's help is def's.
func rootHelp(def func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		if c.HasParent() {
			def(c, args)
			return
		}
		usage, rest, _ := strings.Cut(c.UsageString(), "\n\n")
		fmt.Fprintf(c.OutOrStdout(), "%s\n\n%s\n\n%s", usage, strings.TrimSpace(c.Long), rest)
	}
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

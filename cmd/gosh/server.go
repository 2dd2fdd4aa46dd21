package main

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/spf13/cobra"
)

// ServerOptions is everything "gosh server new" was asked to do. The flags
// are mosh-server's, so existing Mosh clients and scripts can start gosh.
type ServerOptions struct {
	// BindSSH binds to the local address of $SSH_CONNECTION (-s).
	BindSSH bool
	// BindIP is the numeric local address to bind (-i).
	BindIP string
	// Ports is the UDP port or PORT:PORT2 range to try (-p) in mosh syntax;
	// "" means the default range 60001-60999 and "0" a kernel-chosen port.
	Ports string
	// Colors is the client terminal's colour count (-c); 256 selects
	// TERM=xterm-256color.
	Colors int
	// Locale holds NAME=VALUE settings to try when the server's own locale is
	// not UTF-8 (-l, repeatable).
	Locale []string
	// Verbose is the -v count; verbose servers keep stderr open.
	Verbose int
	// Command replaces the login shell when non-empty.
	Command []string

	Stdin          io.Reader
	Stdout, Stderr io.Writer
	ctx            context.Context
}

func newServerCmd(runF func(*ServerOptions) error) *cobra.Command {
	server := &cobra.Command{
		Use:   "server",
		Short: "Run the server side of a session (started by gosh connect or mosh)",
		Long: `Run the server side of a session. "gosh server new" is a drop-in for
"mosh-server new": it binds a UDP port, prints "MOSH CONNECT <port> <key>",
detaches, and runs the login shell (or COMMAND) in a pseudo-terminal.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("%s: missing subcommand 'new' (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
		},
	}
	server.AddCommand(newServerNewCmd(runF), newServerDaemonCmd())
	return server
}

// newServerDaemonCmd is the hidden command the session daemon runs as:
// "gosh server new" re-executes the binary with it (Go cannot fork).
func newServerDaemonCmd() *cobra.Command {
	return &cobra.Command{
		Use:    session.DaemonArgs[1],
		Short:  "Run a session daemon (started by gosh server new)",
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return session.RunDaemon(cmd.Context())
		},
	}
}

func newServerNewCmd(runF func(*ServerOptions) error) *cobra.Command {
	o := &ServerOptions{}
	var colors, ignored string
	cmd := &cobra.Command{
		Use:   "new [-s] [-v] [-i ADDR] [-p PORT[:PORT2]] [-c COLORS] [-l NAME=VALUE]... [-- COMMAND...]",
		Short: "Start a new session and print its MOSH CONNECT line",
		Long: `Start a new session: bind a UDP port (60001-60999 by default), print
"MOSH CONNECT <port> <key>" on stdout, detach from the terminal and the SSH
session, and run the login shell (or COMMAND) in a pseudo-terminal.

Environment: MOSH_SERVER_NETWORK_TMOUT=N exits after N seconds without
hearing from the client; MOSH_SERVER_SIGNAL_TMOUT=N lets SIGUSR1 end a
session idle for N seconds.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := cmd.CommandPath()
			pos, rest := splitAtDash(cmd, args)
			if len(pos) > 0 {
				return usagef("%s: unexpected argument %q; put the command after --", name, pos[0])
			}
			o.Command = rest
			if o.Ports != "" {
				if _, _, err := parsePortRange(o.Ports); err != nil {
					return usagef("%s: %v", name, err)
				}
			}
			if colors != "" {
				n, err := strconv.Atoi(colors)
				if err != nil || n < 0 {
					return usagef("%s: bad number of colors (%s)", name, colors)
				}
				o.Colors = n
			}
			for _, l := range o.Locale {
				if k, _, ok := strings.Cut(l, "="); !ok || k == "" {
					return usagef("%s: bad locale setting %q (want NAME=VALUE)", name, l)
				}
			}
			if o.BindSSH && o.BindIP != "" {
				return usagef("%s: -s and -i cannot be combined", name)
			}
			o.Stdin, o.Stdout, o.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.ctx = cmd.Context()
			return runF(o)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.BoolVarP(&o.BindSSH, "bind-ssh", "s", false, "bind to the local address of the SSH connection ($SSH_CONNECTION)")
	f.StringVarP(&o.BindIP, "ip", "i", "", "numeric local address to bind")
	f.StringVarP(&o.Ports, "port", "p", "", "UDP port or inclusive range PORT[:PORT2] (0 lets the kernel choose)")
	f.StringVarP(&colors, "colors", "c", "", "colours of the client terminal (256 selects TERM=xterm-256color)")
	f.StringArrayVarP(&o.Locale, "locale", "l", nil, "NAME=VALUE locale setting to use if the server's own locale is not UTF-8 (repeatable)")
	f.CountVarP(&o.Verbose, "verbose", "v", "log more and keep stderr open (repeatable)")
	f.StringVarP(&ignored, "at", "@", "", "ignored (accepted for mosh-server compatibility)")
	_ = f.MarkHidden("at")
	return cmd
}

func runServer(ctx context.Context, o *ServerOptions) error {
	stdin, _ := o.Stdin.(*os.File)
	return session.Start(ctx, session.StartOptions{
		BindSSH: o.BindSSH,
		BindIP:  o.BindIP,
		Ports:   o.Ports,
		Colors:  o.Colors,
		Locale:  o.Locale,
		Verbose: o.Verbose,
		Command: o.Command,
	}, stdin, o.Stdout, o.Stderr)
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/connectline"
	"github.com/gosh-term/gosh/internal/daemon"
)

// This file is "reattach from anywhere": gosh server list, attach and
// kill talk to this user's session daemons on this host over their
// control sockets (package daemon); gosh sessions runs list or kill on a
// remote host over SSH, and gosh connect --attach runs attach there.

// noSession is the error for a session id that names no session here.
func noSession(id string) error {
	return fmt.Errorf("gosh: no session %s on this host (gosh sessions lists them)", printable(id))
}

// checkSessionID refuses an id that cannot be a session's, before
// anything reaches a remote.
func checkSessionID(cmd *cobra.Command, id string) error {
	if !daemon.ValidSessionID(id) {
		return usagef("%s: bad session id %q (8 hex digits, as gosh sessions lists them)", cmd.CommandPath(), id)
	}
	return nil
}

// newServerListCmd is "gosh server list".
func newServerListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List your gosh sessions on this host",
		Long: `List this user's gosh sessions on this host, one line each: the session's
id, when it started, when and from where its client was last heard from,
its terminal size, whether a client is attached, the server's pid and the
command (or a line saying there are none). --json prints them as a JSON
array. "gosh sessions HOST" runs this over SSH.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			list, err := daemon.ListSessions(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return writeSessionsJSON(cmd.OutOrStdout(), list)
			}
			return writeSessions(cmd.OutOrStdout(), list, time.Now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the sessions as a JSON array")
	return cmd
}

// newServerAttachCmd is "gosh server attach ID".
func newServerAttachCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "attach ID",
		Short: "Take a session over: print a MOSH CONNECT line with a new key",
		Long: `Take the session ID over for a new client: the session's server makes a
new key and prints "MOSH CONNECT <port> <key>" as gosh server new does,
and from then on talks only to a client holding that key. Its previous
client, if any, shows "session taken over from ADDR" (the address of this
SSH connection) and exits. gosh connect --attach ID runs this over SSH.`,
		Args: exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			s, key, err := daemon.AttachSession(cmd.Context(), id, attachFrom(os.Getenv("SSH_CONNECTION")))
			if errors.Is(err, daemon.ErrNoSession) {
				return noSession(id)
			}
			if err != nil {
				return err
			}
			var line []byte
			if f, ok := cmd.InOrStdin().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				line = append(line, "\r\n\n"...) // as gosh server new
			}
			if _, err := cmd.OutOrStdout().Write(connectline.Append(line, s.Port, key)); err != nil {
				return err
			}
			_, err = cmd.ErrOrStderr().Write(connectline.AppendDetached(nil, connectline.Detached{PID: s.PID, Session: s.ID}))
			return err
		},
	}
}

// newServerKillCmd is "gosh server kill ID".
func newServerKillCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "kill ID",
		Short: "End one of your gosh sessions on this host",
		Long:  `End the session ID, as if its program had exited: its client, if any, exits.`,
		Args:  exactlyOneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			_, err := daemon.KillSession(cmd.Context(), id)
			if errors.Is(err, daemon.ErrNoSession) {
				return noSession(id)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "session %s ended\n", id)
			return nil
		},
	}
}

// exactlyOneID takes one argument, a session id (a malformed one names
// no session: the command says so).
func exactlyOneID(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("%s: want one session id (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
	}
	return nil
}

// attachFrom is who takes a session over, for its previous client: the
// client address of $SSH_CONNECTION, else "local".
func attachFrom(sshConnection string) string {
	f := strings.Fields(sshConnection)
	if len(f) == 0 {
		return "local"
	}
	a, err := netip.ParseAddr(f[0])
	if err != nil {
		return "unknown"
	}
	return a.Unmap().String()
}

// noSessionsHere is what gosh server list prints when there are none.
const noSessionsHere = "no gosh sessions on this host"

// writeSessions prints the sessions as an aligned table, or a line saying
// there are none.
func writeSessions(w io.Writer, list []daemon.Session, now time.Time) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, noSessionsHere)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tLAST CONTACT\tFROM\tSIZE\tSTATE\tPID\tCOMMAND")
	for _, s := range list {
		started, last, from, size, state, pid := "?", "?", "?", "?", "no answer", "?"
		if s.PID > 0 {
			pid = fmt.Sprint(s.PID)
		}
		if !s.Started.IsZero() {
			started = s.Started.Local().Format("2006-01-02 15:04")
		}
		if s.Err == "" {
			last, from = "never", "-"
			if !s.LastContact.IsZero() {
				last = ago(now.Sub(s.LastContact))
			}
			if s.Client.IsValid() {
				from = s.Client.Addr().Unmap().String()
			}
			size = fmt.Sprintf("%dx%d", s.Cols, s.Rows)
			state = "detached"
			if s.Attached {
				state = "attached"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, started, last, from, size, state, pid, printable(s.Command))
	}
	return tw.Flush()
}

// writeSessionsJSON prints the sessions as a JSON array.
func writeSessionsJSON(w io.Writer, list []daemon.Session) error {
	if list == nil {
		list = []daemon.Session{}
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ago is a duration in the past, roughly: "12s ago", "5m ago", "3h ago",
// "2d ago".
func ago(d time.Duration) string {
	switch d = max(d, 0); {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// printable replaces control characters, which could drive the terminal,
// with '?'.
func printable(s string) string { return printableKeeping(s, "") }

// printableKeeping is printable, keeping the control characters of keep.
func printableKeeping(s, keep string) string {
	return strings.Map(func(r rune) rune {
		if (r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0) && !strings.ContainsRune(keep, r) {
			return '?'
		}
		return r
	}, s)
}

// SessionsOptions is everything "gosh sessions" was asked to do.
type SessionsOptions struct {
	// Destination is [user@]host[:port].
	Destination string
	// Kill is the session to end; empty lists them.
	Kill string
	// JSON lists as JSON.
	JSON bool
	// SSH, Server, SSHConfig and ConnectTimeout are gosh connect's.
	SSH            string
	Server         string
	SSHConfig      string
	ConnectTimeout time.Duration
	Verbose        int
	SSHLogin

	Stdout, Stderr io.Writer
	ctx            context.Context
}

// newSessionsCmd is "gosh sessions [user@]host".
func newSessionsCmd(runF func(*SessionsOptions) error) *cobra.Command {
	o := &SessionsOptions{}
	cmd := &cobra.Command{
		Use:   "sessions [options] [user@]host[:port] [--kill ID]",
		Short: "List (or end) your gosh sessions on a host, over SSH",
		Long: `Log in to the host over SSH as gosh connect does and list your gosh
sessions there (gosh server list): id, start, last contact and from where,
size, whether a client is attached, pid and command, or a line saying
there are none. gosh connect --attach ID host takes one over from this
machine; --kill ID ends one. The id is the session's everywhere: the
resume offer and gosh connect --resume ID use it too.`,
		Example: `  gosh sessions alice@example.net
  gosh connect --attach 3f2a9c1e alice@example.net
  gosh sessions alice@example.net --kill 3f2a9c1e`,
		ValidArgsFunction: completeHost,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := cmd.CommandPath()
			switch {
			case len(args) == 0:
				return usagef("%s: missing host (see '%s --help')", name, name)
			case len(args) > 1:
				return usagef("%s: unexpected argument %q (see '%s --help')", name, args[1], name)
			case o.Kill != "" && o.JSON:
				return usagef("%s: --kill and --json cannot be combined", name)
			case strings.Contains(o.Server, "mosh-server"):
				return usagef("%s: sessions are a gosh server's, not %s's", name, o.Server)
			case o.ConnectTimeout < 0:
				return usagef("%s: negative --connect-timeout", name)
			}
			if o.Kill != "" {
				if err := checkSessionID(cmd, o.Kill); err != nil {
					return err
				}
			}
			if err := o.SSHLogin.check(name, args[0]); err != nil {
				return err
			}
			o.Destination = args[0]
			o.Stdout, o.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.ctx = cmd.Context()
			return runF(o)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.Kill, "kill", "", "end the session `ID` instead of listing")
	f.BoolVar(&o.JSON, "json", false, "list as a JSON array")
	f.StringVar(&o.SSH, "ssh", "", "log in with this system ssh command (e.g. \"ssh -p 2222\") instead of the embedded client")
	f.StringVar(&o.Server, "server", bootstrap.DefaultServerCommand, "remote command of the gosh server (list or kill is appended)")
	f.StringVarP(&o.SSHConfig, "ssh-config", "F", "", "read this ssh_config file instead of ~/.ssh/config and /etc/ssh/ssh_config")
	addSSHLoginFlags(f, &o.SSHLogin)
	f.DurationVar(&o.ConnectTimeout, "connect-timeout", 0, "give up connecting over SSH after this long (default: ssh_config ConnectTimeout)")
	f.CountVarP(&o.Verbose, "verbose", "v", "log more (repeatable)")
	return cmd
}

// runSessions is "gosh sessions": run gosh server list (or kill) on the
// host and print what it printed.
func runSessions(ctx context.Context, o *SessionsOptions) error {
	args := []string{"list"}
	switch {
	case o.Kill != "":
		args = []string{"kill", o.Kill}
	case o.JSON:
		args = append(args, "--json")
	}
	cfg := bootstrap.Config{
		Destination:    o.Destination,
		ServerCommand:  o.Server,
		SSHCommand:     o.SSH,
		ConfigFile:     o.SSHConfig,
		ConnectTimeout: o.ConnectTimeout,
		Stderr:         o.Stderr,
	}
	o.SSHLogin.apply(&cfg)
	if o.Verbose > 0 {
		cfg.Logf = func(format string, args ...any) { fmt.Fprintf(o.Stderr, "gosh: "+format+"\n", args...) }
	}
	if p, err := bootstrap.NewTerminalPrompter(); err == nil {
		defer p.Close()
		cfg.Prompt = p
	}
	out, err := bootstrap.RunCommand(ctx, cfg, args)
	if errors.Is(err, bootstrap.ErrNoRemoteGosh) {
		return fmt.Errorf("gosh: %s has no gosh, so no gosh sessions (gosh connect %s installs one)", o.Destination, o.Destination)
	}
	if err != nil {
		return err
	}
	text := printableKeeping(string(out), "\n\t")
	if t := strings.TrimSpace(text); o.Kill == "" && !o.JSON && (t == "" || t == noSessionsHere) {
		// Name the host (an earlier remote gosh prints nothing at all).
		text = "no gosh sessions on " + printable(o.Destination) + "\n"
	}
	_, err = io.WriteString(o.Stdout, text)
	return err
}

package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/connectline"
	"github.com/gosh-term/gosh/internal/daemon"
	"github.com/gosh-term/gosh/internal/session"
)

// ServerOptions is everything "gosh server new" was asked to do. The flags
// are mosh-server's, so existing Mosh clients and scripts can start gosh;
// they fill the daemon's options directly.
type ServerOptions struct {
	daemon.Options

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
detaches, and runs the login shell (or COMMAND) in a pseudo-terminal.
"gosh server relay" carries the session's datagrams over SSH instead when
UDP is blocked.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("%s: missing subcommand 'new' (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
		},
	}
	server.AddCommand(newServerNewCmd(runF), newServerInstallCmd(), newServerDaemonCmd(),
		newServerRelayCmd(func(o *RelayOptions) error { return runRelay(o.ctx, o) }))
	server.AddCommand(newServerListCmd(), newServerAttachCmd(), newServerKillCmd())
	return server
}

// newServerDaemonCmd is the hidden command the session daemon runs as:
// "gosh server new" re-executes the binary with it (Go cannot fork).
func newServerDaemonCmd() *cobra.Command {
	return &cobra.Command{
		Use:    daemon.Args[1],
		Short:  "Run a session daemon (started by gosh server new)",
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return daemon.Run(cmd.Context())
		},
	}
}

// newServerNewCmd is "gosh server new". It is long because it declares,
// in the one place cobra wants them, mosh-server's flags and gosh's own
// (pacing, agent, forwarding policy, scrollback), and checks what pflag
// cannot.
func newServerNewCmd(runF func(*ServerOptions) error) *cobra.Command {
	o := &ServerOptions{}
	var colors, ignored string
	cmd := &cobra.Command{
		Use:   "new [-s] [-v] [-i ADDR] [-p PORT[:PORT2]] [-c COLORS] [-l NAME=VALUE]... [-- COMMAND...]",
		Short: "Start a new session and print its MOSH CONNECT line",
		Long: `Start a new session: bind a UDP port (60001-60999 by default), print
"MOSH CONNECT <port> <key>" on stdout, detach from the terminal and the SSH
session, and run the login shell (or COMMAND) in a pseudo-terminal.

Forwarding (gosh connect -L, -D, -R, -A) follows sshd's rules and
defaults: --allow-tcp-forwarding (yes, local: -L/-D only, remote: -R only,
no), --gateway-ports (no: -R listens on the loopback address whatever the
client asks; clientspecified; yes) and --allow-agent-forwarding (yes, no).
GOSH_ALLOW_TCP_FORWARDING, GOSH_GATEWAY_PORTS and GOSH_ALLOW_AGENT_FORWARDING
set the same in the environment; where both are set, the stricter applies.

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
			if o.BindSSH && o.BindIP.IsValid() {
				return usagef("%s: -s and -i cannot be combined", name)
			}
			fwd, err := forwardPolicyEnv(o.Forwarding, os.Getenv, cmd.Flags().Changed)
			if err != nil {
				return usagef("%s: %v", name, err)
			}
			o.Forwarding = fwd
			o.Stdin, o.Stdout, o.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.ctx = cmd.Context()
			return runF(o)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.BoolVarP(&o.BindSSH, "bind-ssh", "s", false, "bind to the local address of the SSH connection ($SSH_CONNECTION)")
	f.VarP((*addrValue)(&o.BindIP), "ip", "i", "numeric local address to bind")
	f.VarP(&o.Ports, "port", "p", "UDP port or inclusive range PORT[:PORT2] (0 lets the kernel choose; default 60001:60999)")
	f.StringVarP(&colors, "colors", "c", "", "colours of the client terminal: 256 or more selects TERM=xterm-256color, and 16777216 (24-bit colour) adds COLORTERM=truecolor")
	f.StringArrayVarP(&o.Locale, "locale", "l", nil, "NAME=VALUE locale setting to use if the server's own locale is not UTF-8 (repeatable)")
	f.CountVarP(&o.Verbose, "verbose", "v", "log more and keep stderr open (repeatable)")
	f.Var(&o.Pacing, "pacing", "when screen updates are sent: gosh (at once on an idle path, by the path's queue otherwise) or mosh (Mosh's exact timing)")
	f.BoolVar(&o.ForwardAgent, "forward-agent", false, "give the program an SSH_AUTH_SOCK that a gosh client forwards to its agent (gosh connect -A passes this)")
	f.Var(&o.Forwarding.TCP, "allow-tcp-forwarding", "which TCP forwarding to take part in: yes, local (gosh connect -L and -D only), remote (-R only) or no")
	f.Var(&o.Forwarding.Gateway, "gateway-ports", "where -R listens: no (the loopback address, whatever the client asks), clientspecified or yes (every interface)")
	f.Var(&o.Forwarding.Agent, "allow-agent-forwarding", "whether --forward-agent gives the program an agent socket: yes or no")
	f.Var(&o.Scrollback, "scrollback", "lines that scrolled off the screen to keep for a gosh client's scrollback (0: none)")
	f.StringVarP(&ignored, "at", "@", "", "ignored (accepted for mosh-server compatibility)")
	_ = f.MarkHidden("at")
	return cmd
}

// runServer is "gosh server new": start the daemon, then print the CONNECT
// line on stdout and the detach banner on stderr, exactly as mosh-server
// does, and return (detaching from whatever ran us).
func runServer(ctx context.Context, o *ServerOptions) error {
	if o.ForwardAgent && o.Forwarding.Agent != session.AgentYes {
		fmt.Fprintln(o.Stderr, "gosh server: agent forwarding is off on this server (allow-agent-forwarding no); not forwarding the agent")
	}
	stdin, _ := o.Stdin.(*os.File)
	st, err := daemon.Start(ctx, o.Options, stdin, o.Stderr)
	if err != nil {
		return err
	}
	var line []byte
	if stdin != nil && term.IsTerminal(int(stdin.Fd())) {
		line = append(line, "\r\n\n"...) // keep typed-ahead echo off the CONNECT line, as mosh-server does
	}
	if _, err := o.Stdout.Write(connectline.Append(line, st.Port, st.Key)); err != nil {
		return err
	}
	_, err = o.Stderr.Write(connectline.AppendDetached(nil, connectline.Detached{PID: st.PID, Session: st.Session}))
	return err
}

// The environment variables of the forwarding policy and their flags, as
// sshd's options.
var forwardPolicyVars = []struct {
	env, flag string
	set       func(p *session.ForwardPolicy, v string) error
}{
	{"GOSH_ALLOW_TCP_FORWARDING", "allow-tcp-forwarding", func(p *session.ForwardPolicy, v string) error { return p.TCP.Set(v) }},
	{"GOSH_GATEWAY_PORTS", "gateway-ports", func(p *session.ForwardPolicy, v string) error { return p.Gateway.Set(v) }},
	{"GOSH_ALLOW_AGENT_FORWARDING", "allow-agent-forwarding", func(p *session.ForwardPolicy, v string) error { return p.Agent.Set(v) }},
}

// forwardPolicyEnv applies the environment's forwarding policy to flags,
// the policy of the command line: a variable set (not empty) replaces
// the default of a flag not given, and where both are given the stricter
// applies (changed reports whether a flag was given).
func forwardPolicyEnv(flags session.ForwardPolicy, getenv func(string) string, changed func(flag string) bool) (session.ForwardPolicy, error) {
	p := flags
	for _, v := range forwardPolicyVars {
		s := getenv(v.env)
		if s == "" {
			continue
		}
		q := p
		if err := v.set(&q, s); err != nil {
			return flags, fmt.Errorf("%s: %v", v.env, err)
		}
		if changed(v.flag) {
			q = p.Stricter(q)
		}
		p = q
	}
	return p, nil
}

// addrValue is a numeric IP address flag (pflag.Value).
type addrValue netip.Addr

func (a *addrValue) String() string {
	if !(*netip.Addr)(a).IsValid() {
		return ""
	}
	return (*netip.Addr)(a).String()
}

func (a *addrValue) Set(s string) error {
	v, err := netip.ParseAddr(s)
	if err != nil {
		return fmt.Errorf("bad local address %q (want a numeric IPv4 or IPv6 address)", s)
	}
	*a = addrValue(v)
	return nil
}

func (a *addrValue) Type() string { return "addr" }

// installKeys, when set, are the public keys gosh server install trusts
// instead of the release key built in (the tests sign with a key of their
// own); nothing outside the tests sets it.
var installKeys string

// newServerInstallCmd is "gosh server install": fill the binary cache with
// server builds for other platforms, verified against the release's
// signed checksums, for self-upload without a download at connect time.
func newServerInstallCmd() *cobra.Command {
	var goos, goarch, from, cache string
	cmd := &cobra.Command{
		Use:   "install [--os OS --arch ARCH] [--from DIR]",
		Short: "Put gosh server builds for other platforms in the binary cache",
		Long: `Put gosh builds for other platforms into the binary cache, from which
gosh connect uploads to a remote that has no gosh. Each comes from this
version's release (or DIR, holding the release's archives, checksums.txt
and checksums.txt.sig), checked against the release's checksums, whose
signature by gosh's release key is checked first. Downloads use the
system's curl and take https only; GOSH_RELEASE_ALLOW_HTTP=1 allows plain
http (the signature is checked all the same). Without --os and --arch,
every Unix platform of the release is installed.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			platforms := bootstrap.ServerPlatforms
			switch {
			case goos != "" && goarch != "":
				platforms = [][2]string{{goos, goarch}}
			case goos != "" || goarch != "":
				return usagef("%s: --os and --arch go together", cmd.CommandPath())
			}
			src := bootstrap.ReleaseSource{URL: bootstrap.ReleaseURL(), Dir: from, Keys: installKeys}
			if cache == "" {
				cache = bootstrap.DefaultBinaryCache()
			}
			for _, p := range platforms {
				path, err := bootstrap.FetchRelease(cmd.Context(), src, p[0], p[1], cache)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "installed %s\n", path)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&goos, "os", "", "the platform's operating system (linux, darwin, freebsd, openbsd)")
	f.StringVar(&goarch, "arch", "", "the platform's architecture (amd64, arm64, arm, riscv64)")
	f.StringVar(&from, "from", "", "a directory holding the release's archives, checksums.txt and checksums.txt.sig, instead of downloading")
	f.StringVar(&cache, "binary-cache", "", "the binary cache to fill (default: gosh connect's)")
	return cmd
}

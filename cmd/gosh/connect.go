package main

import (
	"context"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/daemon"
	"github.com/gosh-term/gosh/internal/ssp"

	"github.com/spf13/cobra"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/sshconfig"
)

// ConnectOptions is everything "gosh connect" was asked to do.
type ConnectOptions struct {
	// Destination is [user@]host[:port] for the SSH bootstrap.
	Destination string
	// Command replaces the remote login shell when non-empty.
	Command []string

	// Local starts "gosh server new" on this machine without SSH.
	Local bool
	// Direct skips the bootstrap: the client talks UDP to DirectHost:DirectPort
	// with the key from the MOSH_KEY environment variable.
	Direct     bool
	DirectHost string
	DirectPort uint16

	// SSH, when set, is a system ssh command used instead of the embedded client.
	SSH string
	// SSHLogin is ssh's -p, -i, -J and -o (--ssh-port, --identity,
	// --jump, --ssh-option).
	SSHLogin
	// destPort is the SSH port Destination names, or 0.
	destPort int
	// Server is the remote command that starts the server; "new" and its
	// options are appended.
	Server string
	// Ports is the server's UDP port or range; the zero PortRange lets it
	// choose.
	Ports netaddr.PortRange
	// BindServer is "ssh", "any" or an IP address (mosh's --bind-server).
	BindServer string
	// Family restricts or orders the server's addresses (--family, -4,
	// -6); AnyFamily follows ssh_config's AddressFamily, else the
	// resolver's order.
	Family netaddr.Family
	// RemoteIP is how the server's UDP address is found
	// (--experimental-remote-ip).
	RemoteIP bootstrap.RemoteIP
	// NoSSHPTY runs the --ssh command without a pseudo-terminal.
	NoSSHPTY bool

	// Predict is the speculative echo mode.
	Predict predict.Mode
	// PredictOverwrite makes predictions overwrite instead of insert.
	PredictOverwrite bool
	// NoInit skips the terminal's alternate screen (like MOSH_NO_TERM_INIT).
	NoInit bool
	// Verbose is the -v count.
	Verbose int

	// Upload is the self-upload policy.
	Upload bootstrap.UploadMode
	// RemoteBinary is a gosh binary to upload whatever the remote platform.
	RemoteBinary string
	// BinaryCache holds gosh-<os>-<arch> binaries for other platforms.
	BinaryCache string
	// SSHConfig is the ssh_config file to read instead of the defaults (-F).
	SSHConfig string
	// ConnectTimeout bounds the SSH connection; zero uses ssh_config's.
	ConnectTimeout time.Duration
	// Pacing is when keystrokes (and, from a gosh server, screen updates)
	// are sent.
	Pacing ssp.Pacing
	// Transport says whether the session may be carried over SSH when
	// UDP is blocked (--transport).
	Transport session.TransportMode
	// ForwardAgent forwards the SSH agent to the server (-A).
	ForwardAgent bool
	// Forwards are the -L and -D options.
	Forwards []forwardSpec
	// Attach is the id of a running session to take over instead of
	// starting one (--attach; gosh sessions lists them).
	Attach string
	// Resume resumes a session this machine's client left (--resume):
	// ResumeID's, or the newest detached one for Destination, or the
	// newest of all. New skips the offer to resume one (--new).
	Resume   bool
	ResumeID string
	New      bool

	Stdin          io.Reader
	Stdout, Stderr io.Writer
	ctx            context.Context
}

// newConnectCmd is "gosh connect". It is long because it is the command's
// help and one line per flag, which read best in one place.
func newConnectCmd(runF func(*ConnectOptions) error) *cobra.Command {
	o := &ConnectOptions{}
	var alwaysPredict, neverPredict, ipv4, ipv6 bool
	var localFwd, remoteFwd, dynamicFwd []string
	cmd := &cobra.Command{
		Use:   "connect [options] [user@]host[:port] [--] [COMMAND...]",
		Short: "Connect to a remote host (bootstrap over SSH, then UDP)",
		Long: `Connect to a remote host like mosh does: log in over SSH, start the server
there, read its UDP port and session key, and continue over encrypted UDP.

    gosh connect [options] [user@]host[:port] [--] [COMMAND...]
    gosh [options] [user@]host[:port] [--] [COMMAND...]
    gosh connect --local [options] [--] [COMMAND...]
    gosh connect --direct HOST PORT
    gosh connect --resume [ID|host]

The second form is the first without the word connect; --direct takes the
key from the MOSH_KEY environment variable.

The host may also be [user@][IPv6]:port or ssh://[user@]host[:port];
its port is the SSH port. -p is the server's UDP port, as in mosh: the
SSH port is --ssh-port, HOST:PORT or ssh://HOST:PORT. --ssh-port,
--identity, --jump and --ssh-option are ssh's -p, -i, -J and -o, for the
built-in SSH client or passed on to the --ssh command; like ssh's, they
apply to the host and not to its jump hosts. ssh_config settings the
built-in client does not honour are named on stderr: those about
checking hosts always, the others with -v. It honours the algorithm
settings (Ciphers, KexAlgorithms, MACs, HostKeyAlgorithms,
PubkeyAcceptedAlgorithms, CASignatureAlgorithms, RequiredRSASize), so a
system crypto policy (Fedora, RHEL) applies to it as to ssh.

Closing the terminal (a window or tab, tmux kill-window, a dropped SSH
connection to this machine) detaches from a gosh server's session, as with
tmux, and a client that dies (a closed laptop lid, a killed process) leaves
it too: the session stays on the server, and its key in a file only you
can read ($XDG_STATE_HOME/gosh/sessions); the next gosh connect to that
host offers to resume it (--new does not ask), and --resume resumes one at
once: the same shell, the whole screen, and the scrollback from where it
stopped. The shell's exit, Ctrl-^ . and gosh sessions --kill end it. (A
stock mosh-server's session ends when the terminal closes, as with mosh.)

A remote without gosh gets one uploaded; for a remote of another platform
it is that platform's build from this version's release, downloaded over
https by curl (from GOSH_RELEASE_URL when set, a mirror;
GOSH_RELEASE_ALLOW_HTTP=1 allows plain http) and trusted only once the
release's signed checksums vouch for it.

Options come before the host, as with mosh; everything after the host is
COMMAND, which runs instead of the login shell (e.g. tmux attach). With a
gosh server, gosh connect exits with COMMAND's (or the shell's) exit
status, as ssh does, or 128+N if a signal N killed it. A session needs a
terminal on standard input, as mosh does: to run a command from a script
or with input from a file, use ssh HOST COMMAND.
Inside a session, Ctrl-^ . quits, Ctrl-^ Ctrl-Z suspends and Ctrl-^ ^ sends
a literal Ctrl-^ (MOSH_ESCAPE_KEY changes the escape key).`,
		Example: `  gosh connect alice@example.net
  gosh connect --server=mosh-server example.net -- tmux attach
  gosh connect --local
  MOSH_KEY=... gosh connect --direct 127.0.0.1 60001`,
		ValidArgsFunction: completeHost,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.complete(cmd, args, alwaysPredict, neverPredict, ipv4, ipv6); err != nil {
				return err
			}
			if err := o.forwards(cmd.CommandPath(), localFwd, remoteFwd, dynamicFwd); err != nil {
				return err
			}
			o.Stdin, o.Stdout, o.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.ctx = cmd.Context()
			return runF(o)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.BoolVar(&o.Local, "local", false, "start the server on this machine and connect over loopback UDP, without SSH")
	f.BoolVar(&o.Direct, "direct", false, "skip the bootstrap: connect to HOST PORT with the key in MOSH_KEY")
	f.StringVar(&o.SSH, "ssh", "", "bootstrap with this system ssh command (e.g. \"ssh -p 2222\") instead of the embedded client")
	addSSHLoginFlags(f, &o.SSHLogin)
	f.StringVar(&o.Server, "server", "gosh server", "remote command that starts the server (e.g. mosh-server)")
	f.VarP(&o.Ports, "port", "p", "the server's UDP port or range PORT[:PORT2], as mosh -p (the SSH port is --ssh-port; default: the server's, 60001:60999)")
	f.StringVar(&o.BindServer, "bind-server", "ssh", "server address to bind: ssh (the address SSH reached), any, or an IP")
	f.Var(&o.Family, "family", "addresses to use: inet, inet6, auto, all, prefer-inet or prefer-inet6 (default: ssh_config's AddressFamily, else all)")
	f.Lookup("family").DefValue = "" // the text says it: not "any" as well
	f.BoolVarP(&ipv4, "ipv4", "4", false, "same as --family=inet")
	f.BoolVarP(&ipv6, "ipv6", "6", false, "same as --family=inet6")
	f.Var(&o.RemoteIP, "experimental-remote-ip", "how to find the server's UDP address: proxy (the address SSH reached), local (resolve here) or remote (the server's SSH_CONNECTION)")
	f.BoolVar(&o.NoSSHPTY, "no-ssh-pty", false, "run the --ssh command without a pseudo-terminal")
	f.Var(&o.Predict, "predict", "local echo: adaptive, always, never or experimental (default $MOSH_PREDICTION_DISPLAY, else adaptive)")
	f.Lookup("predict").DefValue = "" // the text says it
	f.BoolVarP(&alwaysPredict, "always-predict", "a", false, "same as --predict=always")
	f.BoolVarP(&neverPredict, "never-predict", "n", false, "same as --predict=never")
	f.BoolVarP(&o.PredictOverwrite, "predict-overwrite", "o", false, "predicted characters overwrite instead of inserting")
	f.BoolVar(&o.NoInit, "no-init", false, "do not switch the terminal to its alternate screen")
	f.Var(&o.Pacing, "pacing", "when keystrokes and a gosh server's screen updates are sent: gosh (at once on an idle path, by the path's queue otherwise) or mosh (Mosh's exact timing)")
	f.BoolVarP(&o.ForwardAgent, "forward-agent", "A", false, "forward the SSH agent ($SSH_AUTH_SOCK) to the session's programs, as ssh -A (needs a gosh server; ssh_config's ForwardAgent also asks for it)")
	f.StringArrayVarP(&localFwd, "local-forward", "L", nil, "forward [bind_address:]port on this machine to host:hostport as seen from the server, as ssh -L (needs a gosh server)")
	f.StringArrayVarP(&remoteFwd, "remote-forward", "R", nil, "have the server listen on [bind_address:]port (its loopback address by default) and forward to host:hostport as seen from here, as ssh -R (needs a gosh server)")
	f.StringArrayVarP(&dynamicFwd, "dynamic-forward", "D", nil, "a SOCKS5 proxy on [bind_address:]port whose connections leave from the server, as ssh -D (needs a gosh server)")
	f.BoolVar(&o.Resume, "resume", false, "resume a session this machine's client left: the one named by the ID argument, the newest for the host argument, or the newest of all")
	f.BoolVar(&o.New, "new", false, "start a new session without offering to resume a detached one")
	f.StringVar(&o.Attach, "attach", "", "take over the running session `ID` on the host (see gosh sessions) instead of starting one; its previous client exits")
	f.Var(&o.Transport, "transport", "how datagrams reach the server: auto (UDP; over the SSH connection while nothing comes back over UDP), udp (never over SSH) or tcp (always over SSH); SSH needs gosh on the remote and the built-in client (not --ssh)")
	f.Var(&o.Upload, "upload", "copy gosh to the remote when it has none: auto, never or always")
	f.StringVar(&o.RemoteBinary, "remote-binary", "", "gosh binary to upload to the remote (for another OS or architecture)")
	f.StringVar(&o.BinaryCache, "binary-cache", "", "directory of gosh-<os>-<arch> binaries for other platforms (default $GOSH_BINARY_CACHE, else gosh/VERSION in the user cache directory: ~/.cache on Linux, ~/Library/Caches on macOS, %LocalAppData% on Windows; see gosh server install)")
	f.StringVarP(&o.SSHConfig, "ssh-config", "F", "", "read this ssh_config file instead of ~/.ssh/config and /etc/ssh/ssh_config")
	f.DurationVar(&o.ConnectTimeout, "connect-timeout", 0, "give up connecting over SSH after this long (default: ssh_config ConnectTimeout)")
	f.CountVarP(&o.Verbose, "verbose", "v", "log more (repeatable)")
	f.SetInterspersed(false) // as mosh: options before the host, the command after it
	return cmd
}

// complete checks the command line and fills in derived fields.
func (o *ConnectOptions) complete(cmd *cobra.Command, args []string, always, never, ipv4, ipv6 bool) error {
	name := cmd.CommandPath()
	pos := args // with options only before the host, everything else is positional
	switch {
	case o.Resume:
		if err := o.resumeArgs(name, pos); err != nil {
			return err
		}
	case o.Local && o.Direct:
		return usagef("%s: --local and --direct cannot be combined", name)
	case o.Local:
		o.Command = dropDash(pos)
	case o.Direct:
		if len(pos) != 2 {
			return usagef("%s: --direct needs exactly HOST PORT and no command", name)
		}
		port, err := netaddr.ParsePort(pos[1])
		if err != nil {
			return usagef("%s: bad UDP port %q", name, pos[1])
		}
		o.DirectHost, o.DirectPort = pos[0], port
	default:
		if len(pos) == 0 {
			return usagef("%s: missing host (see '%s --help')", name, name)
		}
		o.Destination, o.Command = pos[0], dropDash(pos[1:])
	}
	if err := o.checkSSH(name); err != nil {
		return err
	}
	if err := o.predictMode(cmd, always, never); err != nil {
		return err
	}
	if ipv4 && ipv6 {
		return usagef("%s: -4 and -6 cannot be combined", name)
	}
	if ipv4 {
		o.Family = netaddr.IPv4
	}
	if ipv6 {
		o.Family = netaddr.IPv6
	}
	if _, ok := os.LookupEnv("MOSH_NO_TERM_INIT"); ok {
		o.NoInit = true
	}
	if o.ConnectTimeout < 0 {
		return usagef("%s: negative --connect-timeout", name)
	}
	if err := o.checkAttach(cmd); err != nil {
		return err
	}
	if o.Transport == session.TransportTCP && (o.Local || o.Direct || o.SSH != "") {
		return usagef("%s: --transport=tcp needs the built-in SSH client: not with --local, --direct or --ssh", name)
	}
	return nil
}

// checkSSH checks the destination and ssh's options, and notes the SSH
// port the destination names.
func (o *ConnectOptions) checkSSH(name string) error {
	if o.Destination != "" {
		d, err := sshconfig.ParseDestination(o.Destination)
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		o.destPort = d.Port
	}
	if o.SSHLogin.set() && (o.Local || o.Direct) {
		return usagef("%s: --ssh-port, --identity, --jump and --ssh-option log in over SSH: not with --local or --direct", name)
	}
	return o.SSHLogin.check(name, o.Destination)
}

// predictMode sets the prediction mode from -a, -n, --predict and the
// environment, as mosh does.
func (o *ConnectOptions) predictMode(cmd *cobra.Command, always, never bool) error {
	name := cmd.CommandPath()
	switch {
	case always && never:
		return usagef("%s: -a and -n cannot be combined", name)
	case always:
		o.Predict = predict.Always
	case never:
		o.Predict = predict.Never
	case !cmd.Flags().Changed("predict"):
		// As mosh: set, even to the empty string, it must name a mode.
		if env, ok := os.LookupEnv("MOSH_PREDICTION_DISPLAY"); ok {
			if err := o.Predict.Set(env); err != nil {
				return usagef("%s: %v (MOSH_PREDICTION_DISPLAY in the environment)", name, err)
			}
		}
	}
	if os.Getenv("MOSH_PREDICTION_OVERWRITE") == "yes" {
		o.PredictOverwrite = true
	}
	return nil
}

// resumeArgs takes the arguments of --resume: none, a session ID or a
// host.
func (o *ConnectOptions) resumeArgs(name string, pos []string) error {
	switch {
	case o.Local || o.Direct || o.New || o.Attach != "":
		return usagef("%s: --resume cannot be combined with --local, --direct, --new or --attach", name)
	case len(pos) > 1:
		return usagef("%s: --resume takes one session ID or host, and no command", name)
	case len(pos) == 1 && daemon.ValidSessionID(pos[0]):
		o.ResumeID = pos[0]
	case len(pos) == 1:
		o.Destination = pos[0]
	}
	return nil
}

// checkAttach checks --attach: a session id, over SSH, of a gosh server,
// and no command (the session runs its own).
func (o *ConnectOptions) checkAttach(cmd *cobra.Command) error {
	name := cmd.CommandPath()
	switch {
	case o.Attach == "":
		return nil
	case o.Local || o.Direct:
		return usagef("%s: --attach takes a session over on a host: not with --local or --direct", name)
	case len(o.Command) > 0:
		return usagef("%s: --attach takes a running session over: no command", name)
	case strings.Contains(o.Server, "mosh-server"):
		return usagef("%s: --attach needs a gosh server on the remote, not %s", name, o.Server)
	}
	return checkSessionID(cmd, o.Attach)
}

// forwards parses the -L and -D options.
func (o *ConnectOptions) forwards(name string, local, remote, dynamic []string) error {
	for _, r := range remote {
		sp, err := parseRemoteForward(r)
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		o.Forwards = append(o.Forwards, sp)
	}
	for _, l := range local {
		sp, err := parseLocalForward(l)
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		o.Forwards = append(o.Forwards, sp)
	}
	for _, d := range dynamic {
		sp, err := parseDynamicForward(d)
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		o.Forwards = append(o.Forwards, sp)
	}
	if len(o.Forwards) > 0 && !o.Local && !o.Direct && o.Server != bootstrap.DefaultServerCommand {
		return usagef("%s: -L, -R and -D need a gosh server on the remote, not %s", name, o.Server)
	}
	return nil
}

// dropDash drops a "--" that starts the command (host -- command).
func dropDash(args []string) []string {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return nil
	}
	return args
}

// splitAtDash separates positional arguments from the command after "--".
func splitAtDash(cmd *cobra.Command, args []string) (pos, rest []string) {
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		return args[:at], args[at:]
	}
	return args, nil
}

package bootstrap

import (
	"io"
	"net/netip"
	"os"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// DefaultServerCommand is the remote command that starts a gosh server;
// "new" and the options are appended.
const DefaultServerCommand = "gosh server"

// Config says where to connect and how to start the server.
type Config struct {
	// Destination is [user@]host[:port], ssh://[user@]host[:port], or an
	// ssh_config Host alias.
	Destination string
	// ServerCommand starts the server remotely ("new" and the options of
	// [ServerArgs] are appended); empty means [DefaultServerCommand]. Only
	// the default command takes part in self-upload.
	ServerCommand string
	// ServerArgs are the options given to "server new".
	ServerArgs ServerArgs
	// SSHCommand, when non-empty, is a system ssh command line (e.g.
	// "ssh -p 2222") used instead of the embedded client, the way mosh runs
	// it: SSHCommand -n -tt [-4|-6] host -- 'server new …'. Self-upload is
	// not available then.
	SSHCommand string
	// Family restricts or orders addresses; unless it is AnyFamily it
	// overrides AddressFamily from ssh_config.
	Family netaddr.Family
	// RemoteIP is how the server's UDP address is found.
	RemoteIP RemoteIP
	// NoSSHPTY runs a system ssh (SSHCommand) without -tt.
	NoSSHPTY bool
	// Home is the local user's home directory (for ~/.ssh); empty means
	// os.UserHomeDir.
	Home string
	// ConfigFile is the ssh_config to read, like ssh -F: when set, only this
	// file is read ("none" reads none). Empty means ~/.ssh/config followed
	// by /etc/ssh/ssh_config.
	ConfigFile string
	// SSHPort, when non-zero, is the SSH port (ssh -p): it overrides
	// ssh_config's Port, and a Destination that names another port is an
	// error.
	SSHPort int
	// Identities are private key files tried before ssh_config's
	// IdentityFile ones (ssh -i), with the same expansions.
	Identities []string
	// Jump, when set, is the destination's ProxyJump (ssh -J): it takes
	// the place of ssh_config's ProxyJump and ProxyCommand.
	Jump string
	// SSHOptions are ssh_config lines, "Keyword=value" or "Keyword value"
	// (ssh -o), obtained before the files' (so they win, as the first
	// value obtained does) and after Jump and Identities. Like ssh's,
	// Jump, Identities and SSHOptions apply to the destination and not to
	// its jump hosts. sshconfig.ParseOption checks one.
	SSHOptions []string
	// Prompt asks passwords, passphrases, keyboard-interactive questions and
	// host key confirmations. Nil means nothing can be asked: unknown hosts
	// are refused and only non-interactive authentication is tried.
	Prompt Prompter
	// Stderr receives the remote's diagnostics and warnings (like ssh's
	// stderr). Nil discards them.
	Stderr io.Writer
	// Upload is the self-upload policy.
	Upload UploadMode
	// LocalBinary is the gosh binary uploaded to a remote of the same
	// platform as this one; empty means os.Executable.
	LocalBinary string
	// RemoteBinary, when set, is the binary uploaded whatever the remote
	// platform (the caller vouches that it fits).
	RemoteBinary string
	// BinaryCache is a directory holding gosh-<goos>-<goarch> binaries of
	// this version for other platforms; empty means [DefaultBinaryCache].
	// Binaries downloaded from the release are kept there.
	BinaryCache string
	// Release is where release archives are downloaded from when the
	// cache has no binary for the remote's platform; the zero value means
	// [ReleaseURL].
	Release ReleaseSource
	// ConnectTimeout bounds the TCP connection and the SSH handshake up to
	// the first prompt; zero means ssh_config's ConnectTimeout, or none.
	ConnectTimeout time.Duration
	// ForwardAgent forwards the agent of $SSH_AUTH_SOCK (gosh connect -A),
	// whatever ssh_config's ForwardAgent says; without it, ForwardAgent
	// decides. Only a gosh server can forward it: the server is then
	// started with --forward-agent, and Result.AgentSocket names the
	// agent.
	ForwardAgent bool
	// KeepRelay keeps the SSH connection open after the server started,
	// for the UDP-blocked fallback: Result.Relay opens relays over it,
	// then over new connections. Only the embedded client does this
	// (not SSHCommand).
	KeepRelay bool
	// Logf receives debug logs; nil discards them.
	Logf logf.Func
}

// ServerArgs are the options of "gosh server new" / "mosh-server new"
// (docs/protocol.md section 1.1).
type ServerArgs struct {
	// Colors is the client terminal's colour count (-c); zero omits -c.
	Colors int
	// Locale holds NAME=VALUE pairs forwarded with -l (see [LocaleFromEnv]).
	Locale []string
	// Ports is the UDP port or range (-p); the zero PortRange passes no -p
	// and lets the server choose.
	Ports netaddr.PortRange
	// Bind is "ssh" or "" (-s: the address the SSH connection reached),
	// "any" (no option) or a numeric IP (-i IP).
	Bind string
	// Verbose adds -v this many times.
	Verbose int
	// ForwardAgent passes --forward-agent (a gosh server only).
	ForwardAgent bool
	// Command runs instead of the login shell (after "--").
	Command []string
	// Pacing, unless gosh's (the zero value, a gosh server's default), is
	// passed as --pacing: only a gosh server takes it.
	Pacing ssp.Pacing
	// Attach, when set, takes the running session of this id over
	// instead of starting one: the remote command is "gosh server attach
	// ID" (a gosh server only), which prints the same MOSH CONNECT line,
	// and the other options are not passed.
	Attach string
}

// Result is what the session client needs: where to send UDP and the key.
type Result struct {
	// Addr is the server's address: the address the SSH connection reached
	// (for a direct connection), else the host name resolved locally.
	Addr netip.Addr
	// Port is the server's UDP port from the MOSH CONNECT line.
	Port uint16
	// Key is the session key from the MOSH CONNECT line.
	Key sspcrypto.Key
	// ServerPID is the detached server's pid when the server reported it
	// ("[mosh-server detached, pid = N]"), else 0.
	ServerPID int
	// Session is the session's ID on the host, from a gosh server's
	// detach notice: the ID gosh sessions lists, and the one to save for
	// resuming. It is "" from mosh-server or an earlier gosh.
	Session string
	// Uploaded is the remote path of a gosh binary uploaded by this run, or "".
	Uploaded string
	// RemoteGosh is the remote gosh the start script ran ("gosh" from PATH
	// or an uploaded path); "" for a custom ServerCommand.
	RemoteGosh string
	// Relay opens relays to the server's port over SSH (Config.KeepRelay);
	// nil without. The caller closes it.
	Relay *Relayer
	// AgentSocket is the agent the session forwards (Config.ForwardAgent
	// or ssh_config's ForwardAgent, with a gosh server), or "".
	AgentSocket string
	// Forwards are ssh_config's port forwardings for the host (with the
	// embedded client; a caller adds its own -L, -R and -D).
	Forwards Forwards
}

// Prompter asks the user a question on the terminal.
type Prompter interface {
	// Ask shows question and returns the answer without its line ending.
	// echo is false for secrets (passwords, passphrases).
	Ask(question string, echo bool) (string, error)
}

// localeVariables are forwarded with -l when set, as mosh's wrapper does.
var localeVariables = []string{"LANG", "LANGUAGE", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE",
	"LC_MONETARY", "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
	"LC_MEASUREMENT", "LC_IDENTIFICATION", "LC_ALL"}

// LocaleFromEnv returns NAME=VALUE for every locale variable set in the
// environment, in mosh's order, for [ServerArgs.Locale].
func LocaleFromEnv() []string {
	var l []string
	for _, name := range localeVariables {
		if v, ok := os.LookupEnv(name); ok {
			l = append(l, name+"="+v)
		}
	}
	return l
}

func (c *Config) stderr() io.Writer {
	if c.Stderr == nil {
		return io.Discard
	}
	return c.Stderr
}

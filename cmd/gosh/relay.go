package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gosh-term/gosh/internal/daemon"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/relay"
)

// RelayOptions is everything "gosh server relay" was asked to do.
type RelayOptions struct {
	// Host is the server's address (--host); the zero Addr means the
	// default, [relayHost] of $SSH_CONNECTION.
	Host netip.Addr
	// Port is the server's UDP port (--port); 0 means not given.
	Port uint16
	// Verbose reports lost datagrams on stderr (-v).
	Verbose bool

	Stdin          io.Reader
	Stdout, Stderr io.Writer
	ctx            context.Context
}

// newServerRelayCmd is "gosh server relay": the server end of the relay
// that carries a session's datagrams over SSH when UDP is blocked.
func newServerRelayCmd(runF func(*RelayOptions) error) *cobra.Command {
	o := &RelayOptions{}
	cmd := &cobra.Command{
		Use:   "relay --port PORT [--host ADDR]",
		Short: "Relay a session's datagrams over SSH when UDP is blocked (started by gosh connect)",
		Long: `Relay a session's datagrams between standard input and output and the
session's UDP port on this host. gosh connect starts it over SSH when UDP
between the client and the server is blocked, and carries the session's
encrypted datagrams on the SSH channel instead; it is not meant to be run
by hand.

Each datagram travels on the channel as a 2-byte big-endian length and the
datagram, after a first frame each way that carries the relay's version
(a client of another version is refused, with a line on stderr). The relay forwards only to an address of this host: ADDR defaults
to the local address of the SSH connection ($SSH_CONNECTION), which is
where "gosh server new -s" listens, or 127.0.0.1 without one. A link-local
ADDR needs its zone (fe80::1%eth0), and must be that interface's. PORT
must be one of this user's sessions: a gosh session on this host (gosh
sessions lists them) or, on Linux, a port only this user's UDP sockets
hold (a stock mosh-server's). It exits with status 0 when its standard
input ends.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Port == 0 {
				return usagef("%s: missing --port (see '%s --help')", cmd.CommandPath(), cmd.CommandPath())
			}
			o.Stdin, o.Stdout, o.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			o.ctx = cmd.Context()
			if err := runF(o); err != nil {
				return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.Var((*portValue)(&o.Port), "port", "the session's UDP port on this host (required)")
	f.Var((*addrValue)(&o.Host), "host", "numeric address of the session's UDP port (default: the local address of $SSH_CONNECTION, else 127.0.0.1)")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "report lost datagrams on stderr")
	return cmd
}

// runRelay is "gosh server relay": relay between stdin and stdout and the
// session's port until stdin ends.
func runRelay(ctx context.Context, o *RelayOptions) error {
	host := o.Host
	if !host.IsValid() {
		host = relayHost(os.Getenv("SSH_CONNECTION"))
	}
	s := &relay.Server{Allow: relayAllow(daemon.ListSessions, relay.AllowOwned)}
	if o.Verbose {
		s.Logf = func(format string, args ...any) { fmt.Fprintf(o.Stderr, format+"\n", args...) }
	}
	return s.Serve(ctx, o.Stdin, o.Stdout, netip.AddrPortFrom(host, o.Port))
}

// relaySessionsTimeout bounds the relay's wait for the session daemons'
// answers: one that is stuck must not hold up the relay to another.
const relaySessionsTimeout = 2 * time.Second

// relayAllow is the relay's port policy: the port of one of this user's
// sessions, either a gosh session on this host (its daemon says so on its
// control socket: sessions, daemon.ListSessions) or, where the system
// tells, a port whose datagrams reach a UDP socket of this user's and no
// other user's (owned, relay.AllowOwned: a stock mosh-server's, on
// Linux). Every other port of this host (DNS, SNMP, memcached, another
// user's session) is refused.
//
// The daemons are asked rather than a record of ports read, because a
// daemon that answers is alive and holds its port now, where a record
// outlives a daemon that crashed, and its port may then be anybody's.
func relayAllow(sessions func(context.Context) ([]daemon.Session, error), owned func(netip.AddrPort) error) func(context.Context, netip.AddrPort) error {
	return func(ctx context.Context, target netip.AddrPort) error {
		ctx, cancel := context.WithTimeout(ctx, relaySessionsTimeout)
		defer cancel()
		list, err := sessions(ctx)
		for _, s := range list {
			if s.Port == target.Port() {
				return nil
			}
		}
		if owned(target) == nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("relay: port %d is not one of your sessions' (%v)", target.Port(), err)
		}
		return fmt.Errorf("relay: port %d is not the port of one of your sessions on this host (gosh sessions lists them)", target.Port())
	}
}

// relayHost is the relay's default target address: the server's address
// in sshConnection, $SSH_CONNECTION ("client-ip client-port server-ip
// server-port"), where "gosh server new -s" binds; else 127.0.0.1, which
// reaches a server bound to any address, as one is when SSH_CONNECTION is
// missing or unreadable.
func relayHost(sshConnection string) netip.Addr {
	if f := strings.Fields(sshConnection); len(f) == 4 {
		if a, err := netip.ParseAddr(f[2]); err == nil {
			return a.Unmap()
		}
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}

// portValue is a UDP port flag, 1 to 65535 (pflag.Value).
type portValue uint16

func (p *portValue) String() string {
	if *p == 0 {
		return ""
	}
	return fmt.Sprint(uint16(*p))
}

func (p *portValue) Set(s string) error {
	n, err := netaddr.ParsePort(s)
	if err != nil {
		return err
	}
	*p = portValue(n)
	return nil
}

func (p *portValue) Type() string { return "port" }

package session

import (
	"errors"
	"io"
	"net/netip"
	"strings"

	"github.com/gosh-term/gosh/internal/enum"
	"github.com/gosh-term/gosh/internal/netaddr"
)

// ForwardPolicy is what forwarding a server allows its client, as sshd's
// AllowTcpForwarding, GatewayPorts and AllowAgentForwarding do. Its zero
// value is sshd's defaults: TCP forwarding both ways, the listeners of -R
// on the loopback address only, and the agent.
type ForwardPolicy struct {
	// TCP is which TCP forwarding the server takes part in.
	TCP TCPForwarding
	// Gateway is where the server listens for -R.
	Gateway GatewayPorts
	// Agent is whether the server gives the program an agent socket
	// (-A); the daemon applies it.
	Agent AgentForwarding
}

// Stricter returns the policy that allows only what both p and q allow
// (a flag and an environment variable: the administrator's environment
// cannot be loosened from the command line).
func (p ForwardPolicy) Stricter(q ForwardPolicy) ForwardPolicy {
	local, remote := p.TCP.allowsLocal() && q.TCP.allowsLocal(), p.TCP.allowsRemote() && q.TCP.allowsRemote()
	out := ForwardPolicy{Gateway: min(p.Gateway, q.Gateway), Agent: max(p.Agent, q.Agent)}
	switch {
	case local && remote:
		out.TCP = TCPYes
	case local:
		out.TCP = TCPLocal
	case remote:
		out.TCP = TCPRemote
	default:
		out.TCP = TCPNo
	}
	return out
}

// TCPForwarding is which TCP forwarding a server takes part in: a
// pflag.Value, spelt as sshd's AllowTcpForwarding.
type TCPForwarding int

// The TCP forwarding policies.
const (
	TCPYes    TCPForwarding = iota // -L, -D and -R (the default)
	TCPLocal                       // -L and -D only: the server dials, never listens
	TCPRemote                      // -R only: the server listens, never dials
	TCPNo                          // none
)

var tcpForwardingNames = enum.Names[TCPForwarding]{
	List: []string{TCPYes: "yes", TCPLocal: "local", TCPRemote: "remote", TCPNo: "no"},
	Fold: true,
	Type: "yes|local|remote|no",
	Bad:  policyBad,
}

func (t TCPForwarding) allowsLocal() bool  { return t == TCPYes || t == TCPLocal }
func (t TCPForwarding) allowsRemote() bool { return t == TCPYes || t == TCPRemote }

func (t TCPForwarding) String() string { return tcpForwardingNames.String(t) }

// Set parses yes, local, remote or no.
func (t *TCPForwarding) Set(s string) error { return tcpForwardingNames.Set(t, s) }

// Type names the flag's value in the help.
func (*TCPForwarding) Type() string { return tcpForwardingNames.Type }

// GatewayPorts is where a server listens for -R: a pflag.Value, spelt as
// sshd's GatewayPorts.
type GatewayPorts int

// The gateway ports policies, from the strictest.
const (
	GatewayNo              GatewayPorts = iota // the loopback address, whatever the client asks (the default)
	GatewayClientSpecified                     // where the client asks; every interface for "*"
	GatewayYes                                 // every interface, whatever the client asks
)

var gatewayPortsNames = enum.Names[GatewayPorts]{
	List: []string{GatewayNo: "no", GatewayClientSpecified: "clientspecified", GatewayYes: "yes"},
	Fold: true,
	Type: "no|clientspecified|yes",
	Bad:  policyBad,
}

func (g GatewayPorts) String() string { return gatewayPortsNames.String(g) }

// Set parses no, clientspecified or yes.
func (g *GatewayPorts) Set(s string) error { return gatewayPortsNames.Set(g, s) }

// Type names the flag's value in the help.
func (*GatewayPorts) Type() string { return gatewayPortsNames.Type }

// AgentForwarding is whether a server forwards the agent: a pflag.Value,
// spelt as sshd's AllowAgentForwarding.
type AgentForwarding int

// The agent forwarding policies.
const (
	AgentYes AgentForwarding = iota // the default
	AgentNo
)

var agentForwardingNames = enum.Names[AgentForwarding]{
	List: []string{AgentYes: "yes", AgentNo: "no"},
	Fold: true,
	Type: "yes|no",
	Bad:  policyBad,
}

func (a AgentForwarding) String() string { return agentForwardingNames.String(a) }

// Set parses yes or no.
func (a *AgentForwarding) Set(s string) error { return agentForwardingNames.Set(a, s) }

// Type names the flag's value in the help.
func (*AgentForwarding) Type() string { return agentForwardingNames.Type }

// policyBad is the error of a policy's Set: sshd's keywords take their
// values in any case, and the error lists them all.
const policyBad = "bad value %[1]q (want %[2]s)"

// errPolicy refuses a channel the server's policy forbids.
type errPolicy string

func (e errPolicy) Error() string { return string(e) }

// dialService says how the server reaches a service the client opens a
// channel for: a TCP destination (-L, -D), if the policy allows.
func (cfg *ServerConfig) dialService(service string) (func() (io.ReadWriteCloser, error), error) {
	addr, ok := strings.CutPrefix(service, "tcp:")
	switch {
	case !ok || cfg.Dial == nil:
		return nil, errNotForwarded
	case !cfg.Forwarding.TCP.allowsLocal():
		return nil, errPolicy("refused by the server (allow-tcp-forwarding " + cfg.Forwarding.TCP.String() + ")")
	}
	return func() (io.ReadWriteCloser, error) { return cfg.Dial(addr) }, nil
}

// listenService says how the server listens for a listening channel the
// client opens (-R): where the policy lets it, with a notice for the
// user when that is not where the client asked.
func (cfg *ServerConfig) listenService(hostPort string) (func() (Listener, error), string, error) {
	switch {
	case cfg.Listen == nil:
		return nil, "", errNotForwarded
	case !cfg.Forwarding.TCP.allowsRemote():
		return nil, "", errPolicy("refused by the server (allow-tcp-forwarding " + cfg.Forwarding.TCP.String() + ")")
	}
	addr, err := cfg.Forwarding.Gateway.bind(hostPort)
	if err != nil {
		return nil, "", err
	}
	var notice string
	if addr != hostPort {
		notice = "the server listens on " + addr + " only" // gateway-ports no
		if cfg.Forwarding.Gateway == GatewayYes {
			notice = "the server listens on every interface" // gateway-ports yes
		}
	}
	return func() (Listener, error) { return cfg.Listen(addr) }, notice, nil
}

// bind is where to listen for a -R that asks for hostPort.
func (g GatewayPorts) bind(hostPort string) (string, error) {
	host, port, err := netaddr.SplitHostPort(hostPort)
	if err != nil {
		return "", errors.New("bad listening address")
	}
	switch g {
	case GatewayYes:
		return netaddr.JoinHostPort("", port), nil
	case GatewayClientSpecified:
		return hostPort, nil
	}
	if host == "localhost" {
		return hostPort, nil
	}
	a, err := netip.ParseAddr(host)
	switch {
	case err == nil && a.IsLoopback():
		return hostPort, nil
	case err == nil && a.Is6() && !a.Is4In6():
		return netaddr.JoinHostPort("::1", port), nil
	}
	return netaddr.JoinHostPort("127.0.0.1", port), nil
}

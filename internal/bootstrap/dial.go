package bootstrap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/sshconfig"
)

// maxJumpDepth bounds ProxyJump chains (and loops through ssh_config).
const maxJumpDepth = 8

// sshConn is an authenticated SSH connection to the destination.
type sshConn struct {
	client *ssh.Client
	params *sshconfig.Host
	// reached is the IP address of a direct TCP connection to the
	// destination; invalid when it was reached through a proxy.
	reached netip.Addr
	closers []io.Closer // jump hosts and proxy commands, closed last
	// stopKeepalive ends the keepalives (ServerAliveInterval); nil when
	// none are sent.
	stopKeepalive func()
}

// Close closes the connection and everything it went through.
func (c *sshConn) Close() error {
	err := c.client.Close()
	if c.stopKeepalive != nil {
		c.stopKeepalive()
	}
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i].Close()
	}
	return err
}

// dialer opens SSH connections the way OpenSSH would for the same config.
type dialer struct {
	res     *resolver
	prompt  Prompter
	stderr  io.Writer
	timeout time.Duration // Config.ConnectTimeout
	logf    logf.Func
}

// connect reaches dest. jumpOverride, when non-empty, replaces the host's
// own ProxyJump/ProxyCommand (used for the later hops of a ProxyJump list).
func (d *dialer) connect(ctx context.Context, dest sshconfig.Destination, depth int, jumpOverride string) (*sshConn, error) {
	if depth > maxJumpDepth {
		return nil, fmt.Errorf("bootstrap: ProxyJump chain deeper than %d hosts (a loop in ssh_config?)", maxJumpDepth)
	}
	resolve := d.res.resolve
	if depth > 0 {
		resolve = d.res.resolveHop
	}
	p, err := resolve(dest)
	if err != nil {
		return nil, err
	}
	d.res.notes.note(p, dest.Host, func(s string) { fmt.Fprintf(d.stderr, "%s\r\n", s) }, d.logf)
	if jumpOverride != "" {
		p.ProxyJump, p.ProxyCommand = jumpOverride, ""
	}
	timeout := d.timeout
	if timeout == 0 {
		timeout = p.ConnectTimeout
	}
	nc, reached, closers, err := d.transport(ctx, p, depth, timeout)
	if err != nil {
		return nil, err
	}
	rc := &readClock{Conn: nc}
	client, err := d.handshake(ctx, rc, p, timeout)
	if err != nil {
		nc.Close()
		closeAll(closers)
		return nil, err
	}
	c := &sshConn{client: client, params: p, reached: reached, closers: closers}
	if a := p.Algorithms; a.AliveInterval > 0 {
		// The log, not stderr: by the time it fires, a session may be
		// drawing on the terminal (the relay's connection), and it sees
		// the connection close.
		c.stopKeepalive = keepAlive(client, rc, a.AliveInterval, a.AliveCountMax, func() {
			d.logf.Printf("bootstrap: timeout, SSH server %s not responding (ServerAliveInterval %v, ServerAliveCountMax %d); closing the connection",
				dest.Host, a.AliveInterval, a.AliveCountMax)
		})
	}
	return c, nil
}

// transport opens the byte stream to p: TCP, a ProxyCommand, or a
// direct-tcpip channel through the ProxyJump hosts.
func (d *dialer) transport(ctx context.Context, p *sshconfig.Host, depth int, timeout time.Duration) (net.Conn, netip.Addr, []io.Closer, error) {
	switch {
	case p.ProxyJump != "" && !strings.EqualFold(p.ProxyJump, "none"):
		hops := strings.Split(p.ProxyJump, ",")
		last, err := sshconfig.ParseDestination(strings.TrimSpace(hops[len(hops)-1]))
		if err != nil {
			return nil, netip.Addr{}, nil, fmt.Errorf("bootstrap: ProxyJump %q: %w", p.ProxyJump, err)
		}
		d.logf.Printf("bootstrap: reaching %s through %s", p.Addr(), p.ProxyJump)
		jump, err := d.connect(ctx, last, depth+1, strings.Join(hops[:len(hops)-1], ","))
		if err != nil {
			return nil, netip.Addr{}, nil, err
		}
		nc, err := jump.client.DialContext(ctx, "tcp", p.Addr())
		if err != nil {
			jump.Close()
			return nil, netip.Addr{}, nil, &DialError{Addr: p.Addr() + " via " + last.String(), Err: err}
		}
		return nc, netip.Addr{}, []io.Closer{jump}, nil
	case p.ProxyCommand != "":
		d.logf.Printf("bootstrap: ProxyCommand %s", p.ProxyCommand)
		nc, err := startProxyCommand(p.ProxyCommand, d.stderr)
		if err != nil {
			return nil, netip.Addr{}, nil, &DialError{Addr: "ProxyCommand " + p.ProxyCommand, Err: err}
		}
		return nc, netip.Addr{}, nil, nil
	}
	d.logf.Printf("bootstrap: connecting to %s", p.Addr())
	nc, err := dialTCP(ctx, p, timeout)
	if err != nil {
		return nil, netip.Addr{}, nil, &DialError{Addr: p.Addr(), Port: p.Port, Err: unwrapOpError(err)}
	}
	var reached netip.Addr
	if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		reached = ta.AddrPort().Addr().Unmap()
	}
	return nc, reached, nil, nil
}

// handshake runs the SSH handshake and authentication on nc. The timeout
// covers the handshake until the first prompt, like OpenSSH's
// ConnectTimeout covers the banner exchange; ctx cancels it at any time.
func (d *dialer) handshake(ctx context.Context, nc net.Conn, p *sshconfig.Host, timeout time.Duration) (*ssh.Client, error) {
	if timeout > 0 {
		nc.SetDeadline(time.Now().Add(timeout))
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	hk := newHostKeyChecker(p, d.prompt, d.stderr)
	liftDeadline := func() { nc.SetDeadline(time.Time{}) }
	auth := &authenticator{p: p, prompt: d.prompt, stderr: d.stderr, logf: d.logf, onPrompt: liftDeadline}
	defer auth.close()
	hkPrompt := hk.prompt
	if hkPrompt != nil {
		hk.prompt = promptFunc(func(q string, echo bool) (string, error) {
			liftDeadline()
			return hkPrompt.Ask(q, echo)
		})
	}
	conf := &ssh.ClientConfig{
		Config: ssh.Config{
			Ciphers:      p.Algorithms.Ciphers,
			KeyExchanges: p.Algorithms.Kex,
			MACs:         p.Algorithms.MACs,
		},
		User:              p.User,
		Auth:              auth.methods(),
		HostKeyCallback:   hk.callback(p.KnownHostsName()),
		HostKeyAlgorithms: hk.hostKeyAlgorithms(p.KnownHostsName(), p.Algorithms.HostKeys, p.Algorithms.HostKeysKnownFirst),
		BannerCallback: func(msg string) error {
			_, err := io.WriteString(d.stderr, strings.ReplaceAll(msg, "\n", "\r\n"))
			return err
		},
	}
	c, chans, reqs, err := ssh.NewClientConn(nc, p.KnownHostsName(), conf)
	if err != nil {
		return nil, d.handshakeError(ctx, err, hk, auth, p, timeout)
	}
	nc.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// handshakeError turns an x/crypto handshake failure into one of the
// package's typed errors.
func (d *dialer) handshakeError(ctx context.Context, err error, hk *hostKeyChecker, auth *authenticator, p *sshconfig.Host, timeout time.Duration) error {
	var ne net.Error
	var ae *ssh.AlgorithmNegotiationError
	switch {
	case hk.err != nil:
		return hk.err
	case ctx.Err() != nil:
		return &DialError{Addr: p.Addr(), Err: ctx.Err()}
	case errors.As(err, &ae):
		return &DialError{Addr: p.Addr(), Err: negotiationError(ae, p)}
	case strings.Contains(err.Error(), "unable to authenticate"):
		return &AuthError{User: p.User, Host: p.HostName, Methods: auth.tried, Locked: auth.locked, Err: err}
	case errors.As(err, &ne) && ne.Timeout():
		return &DialError{Addr: p.Addr(), Err: fmt.Errorf("SSH handshake timed out after %v", timeout)}
	case errors.Is(err, io.EOF):
		return &DialError{Addr: p.Addr(), Err: errors.New("connection closed by the server during the SSH handshake")}
	}
	return &DialError{Addr: p.Addr(), Err: err}
}

// dialTCP connects to p's host and port. For a preferred family
// (prefer-inet, prefer-inet6) it resolves the name itself and tries the
// addresses in that order; otherwise the system's dialer chooses.
func dialTCP(ctx context.Context, p *sshconfig.Host, timeout time.Duration) (net.Conn, error) {
	nd := net.Dialer{Timeout: timeout}
	if p.Family != netaddr.PreferIPv4 && p.Family != netaddr.PreferIPv6 {
		return nd.DialContext(ctx, tcpNetwork(p.Family), p.Addr())
	}
	addrs, err := netaddr.Lookup(ctx, p.HostName, p.Family)
	if err != nil {
		return nil, err
	}
	var first error
	for _, a := range addrs {
		nc, err := nd.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(p.Port)).String())
		if err == nil {
			return nc, nil
		}
		first = cmp.Or(first, err)
	}
	return nil, first
}

func tcpNetwork(family netaddr.Family) string {
	switch family {
	case netaddr.IPv4:
		return "tcp4"
	case netaddr.IPv6:
		return "tcp6"
	}
	return "tcp"
}

// unwrapOpError drops net.OpError's address prefix, which DialError repeats.
func unwrapOpError(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

func closeAll(cs []io.Closer) {
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i].Close()
	}
}

// promptFunc adapts a function to [Prompter].
type promptFunc func(question string, echo bool) (string, error)

func (f promptFunc) Ask(question string, echo bool) (string, error) { return f(question, echo) }

// negotiationError says which setting left the client and the server
// without a common algorithm, what each side offered, and, when the
// server's are ones the client implements but does not offer by default,
// how to allow one.
func negotiationError(ae *ssh.AlgorithmNegotiationError, p *sshconfig.Host) error {
	keyword := ""
	switch {
	case ae.What == "key exchange":
		keyword = "kexalgorithms"
	case ae.What == "host key":
		keyword = "hostkeyalgorithms"
	case strings.HasSuffix(ae.What, " cipher"):
		keyword = "ciphers"
	case strings.HasSuffix(ae.What, " MAC"):
		keyword = "macs"
	}
	shown := func(algos []string) []string {
		var out []string
		for _, a := range algos {
			if !strings.HasPrefix(a, "ext-info-") && !strings.HasPrefix(a, "kex-strict-") {
				out = append(out, a)
			}
		}
		return out
	}
	ours, theirs := shown(ae.SupportedAlgorithms), shown(ae.RequestedAlgorithms)
	offered := fmt.Sprintf("(gosh offered %s; the server offers %s)", strings.Join(ours, ","), strings.Join(theirs, ","))
	if keyword == "" {
		return fmt.Errorf("no common %s %s", ae.What, offered)
	}
	name, known, _ := sshconfig.AlgorithmKeyword(keyword)
	if p.Setting(keyword) != "" {
		return fmt.Errorf("no common %s: the server offers none that ssh config %s allows %s", ae.What, name, offered)
	}
	for _, a := range theirs {
		if slices.Contains(known, a) {
			return fmt.Errorf("no common %s: the server offers none of gosh's defaults %s; to allow %s, set ssh config %s +%s (--ssh-option %s=+%s)",
				ae.What, offered, a, name, a, name, a)
		}
	}
	return fmt.Errorf("no common %s: the server offers none that gosh's built-in SSH client implements %s; --ssh runs the system ssh", ae.What, offered)
}

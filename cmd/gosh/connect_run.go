package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/daemon"
	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/netwatch"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/relay"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/terminfo"
	"github.com/gosh-term/gosh/internal/tty"
	"golang.org/x/term"
)

// runConnect is "gosh connect": find the server (bootstrap over SSH, start
// one locally, or take it from the command line), then run the session on
// the user's terminal.
func runConnect(ctx context.Context, o *ConnectOptions) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(session.MemoryLimit)
	}
	logf := logf.Discard
	if o.Verbose > 0 {
		logf = func(format string, args ...any) { fmt.Fprintf(o.Stderr, "gosh: "+format+"\r\n", args...) }
	}
	stdin, ok1 := o.Stdin.(*os.File)
	stdout, ok2 := o.Stdout.(*os.File)
	if !ok1 || !ok2 {
		return errors.New("connect: standard input and output must be the terminal")
	}
	if !term.IsTerminal(int(stdin.Fd())) {
		return noTerminal(o) // before a login or a server starts for nothing
	}

	var server netip.AddrPort
	var key sspcrypto.Key
	var relayer *bootstrap.Relayer
	var err error
	id := "" // the server's session ID, when it told one
	agent := ""
	if o.ForwardAgent {
		agent = os.Getenv("SSH_AUTH_SOCK")
	}
	saved, err := pickResume(o, stdin)
	if err != nil {
		return err
	}
	switch {
	case saved != nil:
		server, key, err = saved.target()
	case o.Direct:
		server, key, err = directTarget(ctx, o)
	case o.Local:
		server, key, id, err = startLocal(ctx, o, stdin)
	default:
		var fwd bootstrap.Forwards
		server, key, id, relayer, agent, fwd, err = bootstrapRemote(ctx, o, logf)
		o.Forwards = append(o.Forwards, configForwards(o, fwd)...)
	}
	if err != nil {
		return err
	}
	var dialAgent func() (io.ReadWriteCloser, error)
	if agent != "" {
		dialAgent = func() (io.ReadWriteCloser, error) { return bootstrap.DialAgent(agent) }
	}
	var dialRelay func(context.Context, session.Asker) (session.Relay, error)
	if relayer != nil {
		defer relayer.Close()
		dialRelay = func(ctx context.Context, ask session.Asker) (session.Relay, error) {
			prompt := askPrompter{ctx, ask}
			s, err := relayer.Open(ctx, prompt)
			if err != nil {
				return nil, err
			}
			return relay.NewConn(s, server), nil
		}
	}

	forwards := listenForwards(o.Forwards, o.Stderr)
	term, err := tty.Open(stdin, stdout)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer term.Close()
	conn, err := ssp.Dial(server)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	signals, stop := clientSignals(stdout)
	defer stop()
	sessCtx := saved.watchGone(sessionContext(ctx), server)
	watchCtx, stopWatch := context.WithCancel(sessCtx)
	defer stopWatch()
	signals = withNetworkChanges(signals, netwatch.Watch(watchCtx, logf))
	var pred session.Predictor
	if o.Predict != predict.Never { // "never" means no engine at all, as in mosh
		pred = predict.NewEngine(o.Predict, o.PredictOverwrite)
	}
	escape, escapeSet := os.LookupEnv("MOSH_ESCAPE_KEY")
	_, noPrefix := os.LookupEnv("MOSH_TITLE_NOPREFIX")
	if saved == nil {
		saved = saveSession(o, server, key, id, logf)
	}
	cfg := session.ClientConfig{
		Server:         server,
		Key:            key,
		Conn:           conn,
		Terminal:       term,
		Signals:        signals,
		TermInfo:       loadTermInfo(),
		Predict:        pred,
		NoInit:         o.NoInit,
		EscapeKey:      escape,
		EscapeKeySet:   escapeSet,
		TitleNoPrefix:  noPrefix,
		Pacing:         o.Pacing,
		Transport:      o.Transport,
		DialRelay:      dialRelay,
		DialAgent:      dialAgent,
		Forwards:       forwards,
		RemoteForwards: remoteForwards(o.Forwards),
		DialTCP:        dialTCP,
		Epoch:          attachEpoch(o),
		Logf:           logf,
	}
	saved.configure(&cfg)
	err = saved.end(session.RunClient(sessCtx, cfg), o.Stderr)
	var pe *session.ExitError
	if errors.As(err, &pe) {
		// The remote program's status is gosh's, as with ssh.
		return &exitStatusError{code: pe.ExitCode()}
	}
	return err
}

// noTerminal is the error of a gosh connect whose standard input is not
// a terminal (a script, < /dev/null): a session shows the remote terminal
// on the user's and cannot run without one, as mosh-client cannot. ssh
// runs a command without a terminal, so the error says to use it. (gosh
// does not do that itself: SSP carries a screen, not a program's output
// and end of input.)
func noTerminal(o *ConnectOptions) error {
	const msg = "connect: standard input is not a terminal, and a gosh session needs one"
	if o.Local || o.Direct {
		return errors.New(msg)
	}
	host := o.Destination
	if host == "" {
		host = "HOST"
	}
	return fmt.Errorf("%s; to run a command without a terminal, use ssh %s COMMAND", msg, host)
}

// attachEpoch is the client's epoch: 1 for a client taking a session
// over (--attach), which starts from the initial states the server
// restarted from (docs/protocol.md section 12.4), else 0.
func attachEpoch(o *ConnectOptions) uint64 {
	if o.Attach != "" {
		return 1
	}
	return 0
}

// directTarget is --direct HOST PORT with the key in MOSH_KEY, which is
// removed from the environment at once (as mosh-client does).
func directTarget(ctx context.Context, o *ConnectOptions) (netip.AddrPort, sspcrypto.Key, error) {
	text, ok := os.LookupEnv("MOSH_KEY")
	os.Unsetenv("MOSH_KEY")
	if !ok {
		return netip.AddrPort{}, sspcrypto.Key{}, errors.New("connect: MOSH_KEY environment variable not found")
	}
	key, err := sspcrypto.ParseKey(strings.TrimSpace(text))
	if err != nil {
		return netip.AddrPort{}, sspcrypto.Key{}, fmt.Errorf("connect: bad MOSH_KEY: %w", err)
	}
	addr, err := netaddr.Resolve(ctx, o.DirectHost, o.Family)
	if err != nil {
		return netip.AddrPort{}, sspcrypto.Key{}, fmt.Errorf("connect: %w", err)
	}
	return netip.AddrPortFrom(addr, o.DirectPort), key, nil
}

// startLocal is --local: start a session daemon on this machine, bound to
// the loopback address, as mosh --local does. It returns the daemon's
// address, key and session ID.
func startLocal(ctx context.Context, o *ConnectOptions, stdin *os.File) (netip.AddrPort, sspcrypto.Key, string, error) {
	ip := netip.MustParseAddr("127.0.0.1")
	if o.Family == netaddr.IPv6 {
		ip = netip.IPv6Loopback()
	}
	st, err := daemon.Start(ctx, daemon.Options{
		BindIP:  ip,
		Ports:   o.Ports,
		Colors:  terminalColors(), // a gosh server's
		Locale:  bootstrap.LocaleFromEnv(),
		Verbose: o.Verbose,
		Command: o.Command,
		Pacing:  o.Pacing,

		ForwardAgent: o.ForwardAgent && os.Getenv("SSH_AUTH_SOCK") != "",
	}, stdin, o.Stderr)
	if err != nil {
		return netip.AddrPort{}, sspcrypto.Key{}, "", fmt.Errorf("connect: starting the local server: %w", err)
	}
	return netip.AddrPortFrom(ip, st.Port), st.Key, st.Session, nil
}

// bootstrapRemote logs in over SSH and starts the server there (or, with
// --attach, takes its session over); id is the session's ID on the host.
// Unless --transport=udp, the built-in client keeps the SSH connection for
// the relay (the UDP-blocked fallback).
func bootstrapRemote(ctx context.Context, o *ConnectOptions, logf logf.Func) (server netip.AddrPort, key sspcrypto.Key, id string, relay *bootstrap.Relayer, agent string, fwd bootstrap.Forwards, err error) {
	cfg := bootstrap.Config{
		Destination:   o.Destination,
		ServerCommand: o.Server,
		ServerArgs: bootstrap.ServerArgs{
			Colors:  serverColors(o),
			Locale:  bootstrap.LocaleFromEnv(),
			Ports:   o.Ports,
			Bind:    o.BindServer,
			Verbose: max(o.Verbose-1, 0),
			Command: o.Command,
			Pacing:  serverPacing(o),
			Attach:  o.Attach,
		},
		SSHCommand:     o.SSH,
		NoSSHPTY:       o.NoSSHPTY,
		Family:         o.Family,
		RemoteIP:       o.RemoteIP,
		ConfigFile:     o.SSHConfig,
		Stderr:         o.Stderr,
		Upload:         o.Upload,
		RemoteBinary:   o.RemoteBinary,
		BinaryCache:    o.BinaryCache,
		ConnectTimeout: o.ConnectTimeout,
		KeepRelay:      o.Transport != session.TransportUDP && o.SSH == "",
		ForwardAgent:   o.ForwardAgent,
		Logf:           logf,
	}
	o.SSHLogin.apply(&cfg)
	if p, err := bootstrap.NewTerminalPrompter(); err == nil {
		defer p.Close()
		cfg.Prompt = p
	}
	res, err := bootstrap.Run(ctx, cfg)
	if err != nil {
		return netip.AddrPort{}, sspcrypto.Key{}, "", nil, "", bootstrap.Forwards{}, explainRefused(o, err)
	}
	id = res.Session
	if id == "" {
		id = o.Attach // an earlier remote gosh does not say it
	}
	return netip.AddrPortFrom(res.Addr, res.Port), res.Key, id, res.Relay, res.AgentSocket, res.Forwards, nil
}

// explainRefused adds to a refused SSH connection, when -p was given and
// the command line named no SSH port, that -p is the server's UDP port,
// as in mosh, and how to give the SSH port: ssh users type -p for it.
func explainRefused(o *ConnectOptions, err error) error {
	_, refused := bootstrap.RefusedPort(err)
	if !refused || !o.Ports.IsSet() || o.SSHPort != 0 || o.destPort != 0 {
		return err
	}
	how := "--ssh-port PORT, HOST:PORT or ssh://HOST:PORT"
	if lo, hi := o.Ports.Bounds(); lo == hi && lo != 0 {
		how = fmt.Sprintf("--ssh-port %d, HOST:%d or ssh://HOST:%d", lo, lo, lo)
	}
	return fmt.Errorf("%w (-p %s is the server's UDP port, as in mosh; to log in over SSH on another port, use %s)", err, o.Ports, how)
}

// configForwards are ssh_config's LocalForward, RemoteForward and
// DynamicForward for the host: like ssh, a line gosh cannot use is a
// warning, not an error, and so is a server that cannot forward.
func configForwards(o *ConnectOptions, fwd bootstrap.Forwards) []forwardSpec {
	var out []forwardSpec
	add := func(keyword string, specs []string, parse func(string) (forwardSpec, error)) {
		for _, s := range specs {
			sp, err := parse(s)
			if err != nil {
				fmt.Fprintf(o.Stderr, "gosh: ssh config %s: %v; ignored\n", keyword, err)
				continue
			}
			out = append(out, sp)
		}
	}
	add("LocalForward", fwd.Local, parseLocalForward)
	add("RemoteForward", fwd.Remote, parseRemoteForward)
	add("DynamicForward", fwd.Dynamic, parseDynamicForward)
	if len(out) > 0 && o.Server != bootstrap.DefaultServerCommand {
		fmt.Fprintf(o.Stderr, "gosh: ssh config's port forwardings need a gosh server (not %s); not forwarding\n", o.Server)
		return nil
	}
	return out
}

// loadTermInfo describes the user's terminal from $TERM's terminfo entry,
// or an xterm-like fallback: with no TERM, as Windows Terminal and the
// Windows console leave it, an xterm-256color one (both have 256 colours
// and titles).
func loadTermInfo() *terminfo.Terminal {
	name := os.Getenv("TERM")
	t, err := terminfo.Load(name)
	if err != nil {
		if name == "" && (runtime.GOOS == "windows" || os.Getenv("WT_SESSION") != "") {
			name = "xterm-256color"
		}
		t = terminfo.Fallback(name)
	}
	return t
}

// terminalColors is the user's terminal's colour count:
// terminfo.TrueColor for one with 24-bit colour (terminfo.Colors).
func terminalColors() int {
	return terminfo.Colors(os.Getenv, runtime.GOOS, loadTermInfo())
}

// stockColors is colors as a stock mosh-server takes it (-c): it knows
// 256 colours (TERM=xterm-256color) and fewer, so 24-bit colour counts
// as 256. A gosh server takes terminfo.TrueColor and then also sets
// COLORTERM=truecolor.
func stockColors(colors int) int { return min(colors, 256) }

// serverColors is the -c to give the server of o.
func serverColors(o *ConnectOptions) int {
	if o.Server != bootstrap.DefaultServerCommand {
		return stockColors(terminalColors())
	}
	return terminalColors()
}

// serverPacing is the --pacing to pass to the server: a gosh server takes
// the client's, a stock mosh-server (or any other --server) has no such
// option and keeps its own timing (the zero value passes none).
func serverPacing(o *ConnectOptions) ssp.Pacing {
	if o.Server != bootstrap.DefaultServerCommand {
		return ssp.PacingGosh
	}
	return o.Pacing
}

// askPrompter asks the bootstrap's questions (a re-dial's password) on the
// session's notification bar.
type askPrompter struct {
	ctx context.Context
	ask session.Asker
}

func (p askPrompter) Ask(question string, echo bool) (string, error) {
	return p.ask.Ask(p.ctx, question, echo)
}

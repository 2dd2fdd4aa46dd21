//go:build unix

package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/gosh-term/gosh/internal/coredump"
	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// Run is the session daemon that [Start] starts: it reads its
// configuration, binds the UDP port, makes the key, starts the program,
// reports the port and key back, and serves the session until it ends.
func Run(ctx context.Context) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(session.MemoryLimit)
	}
	cfgFile, statFile := os.NewFile(configFD, "config"), os.NewFile(statusFD, "status")
	if cfgFile == nil || statFile == nil {
		return errors.New("daemon: the daemon is started by \"gosh server new\", not by hand")
	}
	var cfg config
	err := readMessage(cfgFile, &cfg)
	cfgFile.Close()
	if err != nil {
		statFile.Close()
		return fmt.Errorf("daemon: reading the configuration: %w", err)
	}
	logf := logf.Discard
	if cfg.Options.Verbose > 0 {
		logf = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "gosh server: "+format+"\n", args...)
		}
	}
	report := func(st status) {
		_ = writeMessage(statFile, st)
		statFile.Close()
	}
	// Before the program starts: it must not inherit a SIGHUP or SIGPIPE
	// ignored by whatever started this daemon (see serverSignals).
	sigs, stop := serverSignals()
	defer stop()
	sc, err := prepare(&cfg, logf)
	if err != nil {
		report(status{Error: err.Error()})
		return err
	}
	facts := Session{PID: os.Getpid(), Command: commandName(&cfg), Port: sc.Conn.LocalAddr().Port(), Started: time.Now()}
	id := ""
	if ctl, err := listenControl(facts, logf); err != nil {
		logf.Printf("%v (gosh sessions will not list this session)", err)
	} else {
		defer ctl.Close()
		sc.Control = ctl.Requests()
		id = ctl.facts.ID
	}
	sc.SessionID = id // a gosh client started with --direct learns it so
	report(status{Port: sc.Conn.LocalAddr().Port(), Key: sc.Key.Base64(), Session: id})
	sc.Signals = sigs
	if stop := cpuProfile(logf); stop != nil {
		defer stop()
	}
	return session.Serve(ctx, sc)
}

// prepare binds the socket, starts the program (with the user's core
// limit, before the key exists) and makes the key.
func prepare(cfg *config, logf logf.Func) (session.ServerConfig, error) {
	conn, err := listen(cfg.Options, logf)
	if err != nil {
		return session.ServerConfig{}, err
	}
	env := cfg.Env
	var agent *agentSocket
	if cfg.Options.ForwardAgent && cfg.Options.Forwarding.Agent != session.AgentYes {
		logf.Printf("agent forwarding is off here (allow-agent-forwarding %v): no SSH_AUTH_SOCK", cfg.Options.Forwarding.Agent)
	} else if cfg.Options.ForwardAgent {
		if agent, err = listenAgent(); err != nil {
			conn.Close()
			return session.ServerConfig{}, err
		}
		env = setEnv(env, "SSH_AUTH_SOCK", agent.path)
	}
	cols, rows := session.ClampSize(cfg.Cols, cfg.Rows)
	var prog *pty.Program
	err = coredump.WithLimit(cfg.CoreLimit, func() (err error) {
		prog, err = pty.Start(pty.Spec{Command: cfg.Options.Command, Env: env, Dir: cfg.Dir, Cols: cols, Rows: rows})
		return err
	})
	if err == nil {
		var key sspcrypto.Key
		if key, err = sspcrypto.NewKey(nil); err == nil {
			sc := session.ServerConfig{
				Conn: conn, Key: key, PTY: prog, Cols: cols, Rows: rows, MOTD: cfg.MOTD,
				NetworkTimeout: cfg.NetworkTimeout, SignalTimeout: cfg.SignalTimeout, Pacing: cfg.Options.Pacing, Logf: logf,
				Scrollback: cfg.Options.Scrollback,
			}
			if agent != nil {
				sc.Agent = agent
			}
			sc.Dial, sc.Listen, sc.Forwarding = dialTCP, listenTCP, cfg.Options.Forwarding
			return sc, nil
		}
		prog.Close()
	}
	if agent != nil {
		agent.Close()
	}
	conn.Close()
	return session.ServerConfig{}, err
}

// listen binds the server's UDP socket. A requested address that cannot be
// bound falls back to any interface, as mosh-server does.
func listen(o Options, logf logf.Func) (*ssp.Conn, error) {
	if o.BindIP.IsValid() {
		conn, err := ssp.Listen(ssp.ListenConfig{Addr: o.BindIP, Ports: o.Ports, Logf: logf})
		if err == nil {
			return conn, nil
		}
		logf.Printf("Error binding to IP %s: %v", o.BindIP, err)
	}
	conn, err := ssp.Listen(ssp.ListenConfig{Addr: netip.Addr{}, Ports: o.Ports, Logf: logf})
	if err != nil {
		return nil, fmt.Errorf("daemon: binding a UDP port: %w", err)
	}
	return conn, nil
}

// serverSignals installs the daemon's signal handling: SIGTERM and SIGINT
// end the session, SIGUSR1 ends an idle one, SIGHUP and SIGPIPE are
// caught and dropped (the daemon has no terminal, and a closed pipe is an
// error return). They are caught, not ignored: an ignored signal stays
// ignored in every program the daemon starts, and a shell started with
// SIGPIPE ignored prints "Broken pipe" errors under `yes | head`, one with
// SIGHUP ignored outlives its hung-up terminal. Catching also undoes an
// ignore inherited from the daemon's own parent (nohup), so it must come
// before the program starts. stop undoes the forwarding.
func serverSignals() (<-chan session.Signal, func()) {
	in := make(chan os.Signal, 4)
	signal.Notify(in, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1, syscall.SIGHUP, syscall.SIGPIPE)
	out := make(chan session.Signal, 4)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-in:
				if s == syscall.SIGHUP || s == syscall.SIGPIPE {
					continue
				}
				v := session.SignalQuit
				if s == syscall.SIGUSR1 {
					v = session.SignalEndIfIdle
				}
				select {
				case out <- v:
				default: // the loop has one pending already
				}
			case <-done:
				return
			}
		}
	}()
	return out, func() { signal.Stop(in); close(done) }
}

// cpuProfile starts a CPU profile of the session when GOSH_SERVER_CPUPROFILE
// names a file (the daemon's pid is appended: each session writes its
// own), for go tool pprof; it returns the function that ends it, or nil.
func cpuProfile(logf logf.Func) (stop func()) {
	name := os.Getenv("GOSH_SERVER_CPUPROFILE")
	if name == "" {
		return nil
	}
	f, err := os.OpenFile(fmt.Sprintf("%s.%d", name, os.Getpid()), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		logf.Printf("GOSH_SERVER_CPUPROFILE: %v", err)
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		logf.Printf("GOSH_SERVER_CPUPROFILE: %v", err)
		f.Close()
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// dialTCP connects to host:port for a channel the client opened (gosh
// connect -L and -D), as sshd does for direct-tcpip: any destination the
// server's host can reach, in the user's name.
func dialTCP(hostPort string) (io.ReadWriteCloser, error) {
	return net.DialTimeout("tcp", hostPort, dialTimeout)
}

// dialTimeout bounds the connection to a forwarded destination.
const dialTimeout = 10 * time.Second

// listenTCP listens on host:port for a listening channel the client opened
// (gosh connect -R), as sshd does for tcpip-forward.
func listenTCP(hostPort string) (session.Listener, error) {
	ln, err := net.Listen("tcp", hostPort)
	if err != nil {
		return nil, err
	}
	return tcpListener{ln}, nil
}

// tcpListener is a net.Listener as a session.Listener.
type tcpListener struct{ net.Listener }

func (l tcpListener) Accept() (io.ReadWriteCloser, error) { return l.Listener.Accept() }

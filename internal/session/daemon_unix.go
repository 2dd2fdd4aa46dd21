//go:build unix

package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/gosh-term/gosh/internal/buildinfo"
	gcrypto "github.com/gosh-term/gosh/internal/crypto"
	"github.com/gosh-term/gosh/internal/ssp"
)

// StartOptions is what "gosh server new" was asked to do; the flags are
// mosh-server's.
type StartOptions struct {
	BindSSH bool     // -s: bind to the local address of $SSH_CONNECTION
	BindIP  string   // -i: numeric local address to bind
	Ports   string   // -p: port or LO:HI range in mosh syntax; "" for 60001–60999
	Colors  int      // -c: the client terminal's colours
	Locale  []string // -l NAME=VALUE: used if the server's locale is not UTF-8
	Verbose int      // -v: log to stderr and keep it open
	Command []string // replaces the login shell when non-empty
}

// daemonConfig travels from "gosh server new" to the daemon it starts,
// over a pipe (never argv or the environment).
type daemonConfig struct {
	Bind           string // numeric address or "" for any
	Ports          string
	Verbose        int
	Server         ServerConfig
	NetworkTimeout time.Duration
	SignalTimeout  time.Duration
}

// daemonStatus travels back: the bound port and the key, or an error.
type daemonStatus struct {
	Port  uint16
	Key   string
	Error string
}

// The daemon's extra file descriptors: its configuration in, its status out.
const (
	daemonConfigFD = 3
	daemonStatusFD = 4
	daemonTimeout  = 20 * time.Second
)

// DaemonArgs are the arguments that make the gosh binary run [RunDaemon]
// (a hidden subcommand); the CLI must route them there.
var DaemonArgs = []string{"server", "daemon"}

// Start is "gosh server new": it starts the session daemon (this binary,
// re-executed, in a new session without a controlling terminal, since Go
// cannot fork), waits until the daemon has bound its UDP port and started
// the program, prints the MOSH CONNECT line on stdout exactly as
// mosh-server does, and the detach notice on stderr.
func Start(ctx context.Context, o StartOptions, stdin *os.File, stdout, stderr io.Writer) error {
	cfg, err := daemonConfigFor(o, stdin, stderr)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("session: finding the gosh binary: %w", err)
	}
	st, pid, err := spawnDaemon(ctx, exe, cfg, stderr)
	if err != nil {
		return err
	}
	if stdin != nil && term.IsTerminal(int(stdin.Fd())) {
		// Keep typed-ahead echo off the CONNECT line, as mosh-server does.
		fmt.Fprint(stdout, "\r\n\n")
	}
	if _, err := fmt.Fprintf(stdout, "MOSH CONNECT %d %s\n", st.Port, st.Key); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "\ngosh server (gosh %s, mosh protocol %d)\n[gosh server detached, pid = %d]\n",
		buildinfo.Version, buildinfo.MoshProtocolVersion, pid)
	return nil
}

// daemonConfigFor works out everything the daemon needs from the options
// and this process's environment.
func daemonConfigFor(o StartOptions, stdin *os.File, stderr io.Writer) (*daemonConfig, error) {
	cfg := &daemonConfig{Ports: o.Ports, Verbose: o.Verbose}
	if o.Ports != "" {
		if _, _, err := ssp.ParsePortRange(o.Ports); err != nil {
			return nil, fmt.Errorf("session: bad UDP port range (%s): %w", o.Ports, err)
		}
	}
	switch {
	case o.BindIP != "":
		a, err := netip.ParseAddr(o.BindIP)
		if err != nil {
			return nil, fmt.Errorf("session: bad local address %q (want a numeric IPv4 or IPv6 address)", o.BindIP)
		}
		cfg.Bind = a.String()
	case o.BindSSH:
		cfg.Bind = sshLocalAddr(os.Getenv("SSH_CONNECTION"), stderr)
	}
	home, _ := os.UserHomeDir()
	env, note := serverEnv(os.Environ(), o.Locale, o.Colors, home)
	if note != "" && o.Verbose > 0 {
		fmt.Fprintln(stderr, "gosh server:", note)
	}
	cols, rows := 80, 24
	if stdin != nil {
		if c, r, err := term.GetSize(int(stdin.Fd())); err == nil && c > 0 && r > 0 {
			cols, rows = c, r
		}
	}
	cfg.Server = ServerConfig{Command: o.Command, Env: env, Dir: home, Cols: cols, Rows: rows}
	if len(o.Command) == 0 {
		cfg.Server.MOTD = motd(home)
	}
	cfg.Server.NetworkTimeout = envSeconds("MOSH_SERVER_NETWORK_TMOUT", stderr)
	cfg.Server.SignalTimeout = envSeconds("MOSH_SERVER_SIGNAL_TMOUT", stderr)
	return cfg, nil
}

// sshLocalAddr is the server-side address of $SSH_CONNECTION ("client-ip
// client-port server-ip server-port"), with an IPv4-mapped prefix removed,
// or "" (any interface) with a warning, as mosh-server -s behaves.
func sshLocalAddr(conn string, stderr io.Writer) string {
	if conn == "" {
		fmt.Fprintln(stderr, "Warning: SSH_CONNECTION not found; binding to any interface.")
		return ""
	}
	f := strings.Fields(conn)
	if len(f) != 4 {
		fmt.Fprintln(stderr, "Warning: Could not parse SSH_CONNECTION; binding to any interface.")
		return ""
	}
	ip := f[2]
	if len(ip) > 7 && strings.EqualFold(ip[:7], "::ffff:") {
		ip = ip[7:]
	}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		fmt.Fprintln(stderr, "Warning: Could not parse SSH_CONNECTION; binding to any interface.")
		return ""
	}
	return a.WithZone("").String()
}

// envSeconds reads a positive whole number of seconds from an environment
// variable, warning about and ignoring anything else.
func envSeconds(name string, stderr io.Writer) time.Duration {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "%s not a valid integer, ignoring\n", name)
		return 0
	case n < 0:
		fmt.Fprintf(stderr, "%s is negative, ignoring\n", name)
		return 0
	case n > int64((100*365*24*time.Hour)/time.Second):
		n = int64((100 * 365 * 24 * time.Hour) / time.Second)
	}
	return time.Duration(n) * time.Second
}

// motd is the message of the day a login shows, unless ~/.hushlogin exists;
// newlines become CR LF as the terminal would output them.
func motd(home string) []byte {
	if home != "" {
		if _, err := os.Stat(filepath.Join(home, ".hushlogin")); err == nil {
			return nil
		}
	}
	var out []byte
	dyn := "/run/motd.dynamic"
	if _, err := os.Stat(dyn); err != nil {
		dyn = "/var/run/motd.dynamic"
	}
	for _, f := range []string{dyn, "/etc/motd"} {
		b, err := os.ReadFile(f)
		if err != nil || len(b) > 64<<10 {
			continue
		}
		out = append(out, b...)
	}
	return []byte(strings.ReplaceAll(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n", "\r\n"))
}

// spawnDaemon starts the daemon and waits for its status.
func spawnDaemon(ctx context.Context, exe string, cfg *daemonConfig, stderr io.Writer) (daemonStatus, int, error) {
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return daemonStatus{}, 0, err
	}
	defer cfgR.Close()
	defer cfgW.Close()
	statR, statW, err := os.Pipe()
	if err != nil {
		return daemonStatus{}, 0, err
	}
	defer statR.Close()
	defer statW.Close()

	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return daemonStatus{}, 0, err
	}
	defer devnull.Close()
	cmd := exec.Command(exe, DaemonArgs...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	if cfg.Verbose > 0 {
		cmd.Stderr = stderr
	}
	cmd.ExtraFiles = []*os.File{cfgR, statW} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = "/"
	closeInheritedOnExec()
	if err := cmd.Start(); err != nil {
		return daemonStatus{}, 0, fmt.Errorf("session: starting the server daemon: %w", err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release() // the daemon outlives us; init reaps it
	cfgR.Close()
	statW.Close()
	if err := json.NewEncoder(cfgW).Encode(cfg); err != nil {
		return daemonStatus{}, 0, fmt.Errorf("session: configuring the server daemon: %w", err)
	}
	cfgW.Close()

	type result struct {
		st  daemonStatus
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var st daemonStatus
		err := json.NewDecoder(bufio.NewReader(statR)).Decode(&st)
		ch <- result{st, err}
	}()
	select {
	case r := <-ch:
		switch {
		case r.err != nil:
			return daemonStatus{}, 0, errors.New("session: the server daemon exited before reporting its port (run with -v to see why)")
		case r.st.Error != "":
			return daemonStatus{}, 0, errors.New(r.st.Error)
		}
		return r.st, pid, nil
	case <-time.After(daemonTimeout):
		_ = syscall.Kill(pid, syscall.SIGTERM)
		return daemonStatus{}, 0, errors.New("session: the server daemon did not report its port in time")
	case <-ctx.Done():
		_ = syscall.Kill(pid, syscall.SIGTERM)
		return daemonStatus{}, 0, ctx.Err()
	}
}

// RunDaemon is the session daemon started by [Start]: it reads its
// configuration, binds the UDP port, makes the key, starts the program,
// reports the port and key back, and serves the session.
func RunDaemon(ctx context.Context) error {
	cfgFile := os.NewFile(daemonConfigFD, "config")
	statFile := os.NewFile(daemonStatusFD, "status")
	if cfgFile == nil || statFile == nil {
		return errors.New("session: the daemon is started by \"gosh server new\", not by hand")
	}
	var cfg daemonConfig
	err := json.NewDecoder(cfgFile).Decode(&cfg)
	cfgFile.Close()
	if err != nil {
		statFile.Close()
		return fmt.Errorf("session: reading the daemon configuration: %w", err)
	}
	logf := func(string, ...any) {}
	if cfg.Verbose > 0 {
		logf = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "gosh server: "+format+"\n", args...)
		}
	}
	cfg.Server.Logf = logf
	report := func(st daemonStatus) {
		_ = json.NewEncoder(statFile).Encode(st)
		statFile.Close()
	}

	conn, err := listen(cfg.Bind, cfg.Ports, logf)
	if err != nil {
		report(daemonStatus{Error: err.Error()})
		return err
	}
	key, err := gcrypto.NewKey(nil)
	if err != nil {
		conn.Close()
		report(daemonStatus{Error: err.Error()})
		return err
	}
	s, err := newServer(cfg.Server, conn, key)
	if err != nil {
		conn.Close()
		report(daemonStatus{Error: err.Error()})
		return err
	}
	report(daemonStatus{Port: conn.LocalAddr().Port(), Key: key.Base64()})
	return s.run(ctx)
}

// listen binds the server's UDP socket. A requested address that cannot be
// bound falls back to any interface, as mosh-server does.
func listen(bind, ports string, logf func(string, ...any)) (*ssp.Conn, error) {
	var addr netip.Addr
	if bind != "" {
		a, err := netip.ParseAddr(bind)
		if err != nil {
			return nil, fmt.Errorf("session: bad local address %q", bind)
		}
		addr = a
		conn, err := ssp.Listen(ssp.ListenConfig{Addr: addr, Ports: ports, Logf: logf})
		if err == nil {
			return conn, nil
		}
		logf("Error binding to IP %s: %v", bind, err)
	}
	conn, err := ssp.Listen(ssp.ListenConfig{Ports: ports, Logf: logf})
	if err != nil {
		return nil, fmt.Errorf("session: binding a UDP port: %w", err)
	}
	return conn, nil
}

//go:build unix

package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/gosh-term/gosh/internal/coredump"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// startTimeout bounds the wait for the daemon's status.
const startTimeout = 20 * time.Second

// Args are the arguments that make the gosh binary run [Run] (a hidden
// subcommand); the command line must route them there.
var Args = []string{"server", "daemon"}

// Start starts a session daemon for o: this binary, re-executed with
// [Args] in a new session without a controlling terminal. It returns once
// the daemon has bound its UDP port and started the program. stdin, if it
// is a terminal, gives the program's initial size; warnings (mosh-server's
// about SSH_CONNECTION and the timeouts) go to stderr, as does a verbose
// daemon's log.
func Start(ctx context.Context, o Options, stdin *os.File, stderr io.Writer) (Started, error) {
	cfg := configFor(o, os.Environ(), stdin, stderr)
	if _, note, err := controlDirNote(); err != nil || note != "" {
		fmt.Fprintln(stderr, "gosh server:", cmp.Or(note, fmt.Sprint(err, " (gosh sessions will not list this session)")))
	}
	exe, err := os.Executable()
	if err != nil {
		return Started{}, fmt.Errorf("daemon: finding the gosh binary: %w", err)
	}
	return spawn(ctx, exe, cfg, stderr)
}

// configFor works out everything the daemon needs from the options and
// this process's environment.
func configFor(o Options, environ []string, stdin *os.File, stderr io.Writer) *config {
	cfg := &config{Options: o, CoreLimit: coredump.Original()}
	if o.BindSSH {
		conn, _ := lookupEnv(environ, "SSH_CONNECTION")
		cfg.Options.BindIP, cfg.Options.BindSSH = sshLocalAddr(conn, stderr), false
	}
	home, _ := os.UserHomeDir()
	env, note := serverEnv(environ, o.Locale, o.Colors, home)
	if note != "" && o.Verbose > 0 {
		fmt.Fprintln(stderr, "gosh server:", note)
	}
	cfg.Env, cfg.Dir = env, home
	cfg.Cols, cfg.Rows = 80, 24
	if stdin != nil {
		if c, r, err := term.GetSize(int(stdin.Fd())); err == nil && c > 0 && r > 0 {
			cfg.Cols, cfg.Rows = c, r
		}
	}
	if len(o.Command) == 0 {
		cfg.MOTD = motd(home)
	}
	v, ok := lookupEnv(environ, "MOSH_SERVER_NETWORK_TMOUT")
	cfg.NetworkTimeout = envSeconds("MOSH_SERVER_NETWORK_TMOUT", v, ok, stderr)
	v, ok = lookupEnv(environ, "MOSH_SERVER_SIGNAL_TMOUT")
	cfg.SignalTimeout = envSeconds("MOSH_SERVER_SIGNAL_TMOUT", v, ok, stderr)
	return cfg
}

// spawn starts the daemon, sends it cfg and waits for its status.
func spawn(ctx context.Context, exe string, cfg *config, stderr io.Writer) (Started, error) {
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return Started{}, err
	}
	defer cfgR.Close()
	defer cfgW.Close()
	statR, statW, err := os.Pipe()
	if err != nil {
		return Started{}, err
	}
	defer statR.Close()
	defer statW.Close()
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return Started{}, err
	}
	defer devnull.Close()

	cmd := exec.Command(exe, Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	if cfg.Options.Verbose > 0 {
		cmd.Stderr = stderr
	}
	cmd.ExtraFiles = []*os.File{cfgR, statW} // configFD and statusFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = "/"
	closeInheritedOnExec()
	if err := cmd.Start(); err != nil {
		return Started{}, fmt.Errorf("daemon: starting the server daemon: %w", err)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release() // the daemon outlives us; init reaps it
	cfgR.Close()
	statW.Close()
	if err := writeMessage(cfgW, cfg); err != nil {
		return Started{}, fmt.Errorf("daemon: configuring the server daemon: %w", err)
	}
	cfgW.Close()

	type result struct {
		st  status
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var st status
		err := readMessage(statR, &st)
		ch <- result{st, err}
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		switch {
		case r.err != nil:
			return Started{}, errors.New("daemon: the server daemon exited before reporting its port (run with -v to see why)")
		case r.st.Error != "":
			return Started{}, errors.New(r.st.Error)
		}
		key, err := sspcrypto.ParseKey(r.st.Key)
		if err != nil || r.st.Port == 0 || r.st.Session != "" && !ValidSessionID(r.st.Session) {
			return Started{}, fmt.Errorf("daemon: the server daemon reported a bad port, key or session ID")
		}
		return Started{Port: r.st.Port, Key: key, PID: pid, Session: r.st.Session}, nil
	case <-timer.C:
		_ = syscall.Kill(pid, syscall.SIGTERM)
		return Started{}, errors.New("daemon: the server daemon did not report its port in time")
	case <-ctx.Done():
		_ = syscall.Kill(pid, syscall.SIGTERM)
		return Started{}, ctx.Err()
	}
}

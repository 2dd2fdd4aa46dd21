package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Run logs in to cfg.Destination, starts the server there, and returns its
// address, UDP port and key. The server has detached when Run returns; the
// SSH connection is closed, unless cfg.KeepRelay keeps it for the
// relay (Result.Relay).
func Run(ctx context.Context, cfg Config) (Result, error) {
	dest, err := cfg.destination()
	if err != nil {
		return Result{}, err
	}
	if cfg.ServerCommand == "" {
		cfg.ServerCommand = DefaultServerCommand
	}
	res, err := newResolver(&cfg)
	if err != nil {
		return Result{}, err
	}
	if cfg.SSHCommand != "" {
		return runSystemSSH(ctx, &cfg, res, dest)
	}
	return runEmbedded(ctx, &cfg, res, dest)
}

// newResolver reads the environment once: home, local user, config files.
func newResolver(cfg *Config) (*resolver, error) {
	home := cfg.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %w", err)
		}
		home = h
	}
	localUser := localUserName()
	cmdline, err := cfg.cmdline()
	if err != nil {
		return nil, err
	}
	r := &resolver{fs: osConfigFS, home: home, localUser: localUser, family: cfg.Family, cmdline: cmdline,
		getenv: os.LookupEnv, logf: cfg.logf, local: localTokens(),
		matchExec: func(command string) bool { return runMatchExec(command, cfg.stderr()) }}
	switch cfg.ConfigFile {
	case "":
		r.configFiles = []string{filepath.Join(home, ".ssh", "config"), systemSSHConfig}
		r.configDirs = []string{filepath.Join(home, ".ssh"), systemSSHConfigDir}
	case "none":
	default:
		r.configFiles = []string{expandTilde(cfg.ConfigFile, home)}
		r.configGiven = true
		r.configDirs = []string{filepath.Join(home, ".ssh")}
	}
	return r, nil
}

// localTokens are the %-tokens about this machine (see resolver.local).
func localTokens() map[byte]string {
	t := map[byte]string{'i': strconv.Itoa(os.Getuid())}
	if runtime.GOOS == "windows" {
		t['i'] = "" // no numeric user id
	}
	if h, err := os.Hostname(); err == nil {
		t['l'] = h
		t['L'], _, _ = strings.Cut(h, ".")
	}
	return t
}

// runMatchExec runs a Match exec command through the user's shell (or, on
// Windows, as a command line of its own), with standard input and output
// closed, and reports whether it exited with status 0.
func runMatchExec(command string, stderr io.Writer) bool {
	cmd := shellCommand(command)
	cmd.Stderr = stderr
	return cmd.Run() == nil
}

// runEmbedded is Run with the built-in SSH client.
func runEmbedded(ctx context.Context, cfg *Config, res *resolver, dest destination) (Result, error) {
	d := &dialer{res: res, prompt: cfg.Prompt, stderr: cfg.stderr(), timeout: cfg.ConnectTimeout, logf: cfg.logf}
	c, err := d.connect(ctx, dest, 0, "")
	if err != nil {
		return Result{}, err
	}
	kept := false
	defer func() {
		if !kept {
			c.Close()
		}
	}()
	agent := c.params.forwardAgent
	if cfg.ForwardAgent {
		agent, _ = os.LookupEnv("SSH_AUTH_SOCK")
		if agent == "" {
			agent = c.params.identityAgent
		}
	}
	if agent != "" && cfg.ServerCommand != DefaultServerCommand {
		fmt.Fprintf(cfg.stderr(), "gosh: agent forwarding needs a gosh server (not %s); the agent is not forwarded\n", cfg.ServerCommand)
		agent = ""
	}
	cfg.ServerArgs.ForwardAgent = agent != ""
	rr := &remoteRun{client: c.client, stderr: cfg.stderr(), logf: cfg.logf}
	// First guess: the remote is of this platform, and may have this
	// binary uploaded already.
	command := startScript(cfg.ServerCommand, cfg.ServerArgs, cfg.Upload, selfSHA256(cfg))
	out, err := rr.run(ctx, command, nil)
	var uploaded string
	if err == nil && out.needs && !out.connected {
		var sum string
		if sum, uploaded, err = ensureUploaded(ctx, rr, cfg, out); err != nil {
			return Result{}, err
		}
		command = startScript(cfg.ServerCommand, cfg.ServerArgs, cfg.Upload, sum)
		out, err = rr.run(ctx, command, nil)
	}
	if out.using != "" {
		cfg.logf("bootstrap: remote server: %s", out.using)
	}
	if !out.connected {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("bootstrap: starting the server: %w", ctx.Err())
		}
		if out.needs {
			err = errors.New("the uploaded gosh does not run on the remote")
		}
		se := serverError(command, out, err)
		se.Server = cfg.ServerCommand
		if cfg.Upload == UploadNever {
			se.NoUpload = "--upload=never"
		}
		return Result{}, se
	}
	addr, err := chooseAddr(ctx, cfg.RemoteIP, c.reached, c.params.hostname, c.params.family, out.serverIP)
	if err != nil {
		return Result{}, err
	}
	r := Result{Addr: addr, Port: out.port, Key: out.key, ServerPID: out.detached.PID, Session: out.detached.Session, Uploaded: uploaded, RemoteGosh: out.using,
		AgentSocket: agent, Forwards: c.params.forwards}
	if cfg.KeepRelay {
		kept = true
		r.Relay = newRelayer(d, dest, c, out.using, out.port, cfg.ServerArgs)
	}
	return r, nil
}

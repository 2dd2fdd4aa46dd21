package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gosh-term/gosh/internal/sshconfig"
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

// runEmbedded is Run with the built-in SSH client.
func runEmbedded(ctx context.Context, cfg *Config, res *resolver, dest sshconfig.Destination) (Result, error) {
	d := &dialer{res: res, prompt: cfg.Prompt, stderr: cfg.stderr(), timeout: cfg.ConnectTimeout, logf: cfg.Logf}
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
	agent := c.params.ForwardAgent
	if cfg.ForwardAgent {
		agent, _ = os.LookupEnv("SSH_AUTH_SOCK")
		if agent == "" {
			agent = c.params.IdentityAgent
		}
	}
	if agent != "" && cfg.ServerCommand != DefaultServerCommand {
		fmt.Fprintf(cfg.stderr(), "gosh: agent forwarding needs a gosh server (not %s); the agent is not forwarded\n", cfg.ServerCommand)
		agent = ""
	}
	cfg.ServerArgs.ForwardAgent = agent != ""
	rr := &remoteRun{client: c.client, stderr: cfg.stderr(), logf: cfg.Logf}
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
		cfg.Logf.Printf("bootstrap: remote server: %s", out.using)
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
	addr, err := chooseAddr(ctx, cfg.RemoteIP, c.reached, c.params.HostName, c.params.Family, out.serverIP)
	if err != nil {
		return Result{}, err
	}
	r := Result{Addr: addr, Port: out.port, Key: out.key, ServerPID: out.detached.PID, Session: out.detached.Session, Uploaded: uploaded, RemoteGosh: out.using,
		AgentSocket: agent, Forwards: c.params.Forwards}
	if cfg.KeepRelay {
		kept = true
		r.Relay = newRelayer(d, dest, c, out.using, out.port, cfg.ServerArgs)
	}
	return r, nil
}

package bootstrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/sshconfig"
)

// runSystemSSH is Run with a system ssh, invoked the way mosh's wrapper
// does: ssh [-F FILE] -n -tt [-4|-6] [-p PORT] [user@]host -- 'start
// command' (without -tt for --no-ssh-pty).
func runSystemSSH(ctx context.Context, cfg *Config, res *resolver, dest sshconfig.Destination) (Result, error) {
	argv, err := splitShellWords(cfg.SSHCommand)
	if err != nil || len(argv) == 0 {
		return Result{}, fmt.Errorf("bootstrap: bad --ssh command %q", cfg.SSHCommand)
	}
	hostArgs := sshHostArgs(cfg.Family, dest)
	command := startScript(cfg.ServerCommand, cfg.ServerArgs, UploadNever, "")
	args := append(append([]string{}, argv[1:]...), systemSSHOptions(cfg)...)
	args = append(args, "-n")
	if !cfg.NoSSHPTY {
		args = append(args, "-tt")
	}
	args = append(args, hostArgs...)
	args = append(args, "--", command)
	cmd := exec.CommandContext(ctx, argv[0], args...)
	sshStderr := &tailBuffer{max: 4096}
	cmd.Stderr = io.MultiWriter(cfg.stderr(), sshStderr)
	cmd.WaitDelay = afterConnectWait
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Result{}, err
	}
	cfg.Logf.Printf("bootstrap: running %s %s", argv[0], strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		return Result{}, &DialError{Addr: dest.String(), Err: err}
	}
	out := &startOutput{}
	var lingering *time.Timer
	forEachLine(stdout, func(line string) {
		if out.stdoutLine(line) {
			out.capture(trimCR(line))
			fmt.Fprintf(cfg.stderr(), "%s\n", trimCR(line))
		}
		if out.connected && lingering == nil {
			// ssh started here: end it by its own pid if it lingers.
			lingering = time.AfterFunc(afterConnectWait, func() { cmd.Process.Kill() })
		}
	})
	waitErr := cmd.Wait()
	if lingering != nil {
		lingering.Stop()
	}
	if !out.connected {
		return Result{}, systemSSHError(ctx, command, cfg.ServerCommand, out, waitErr, string(sshStderr.bytes()))
	}
	hostname := systemSSHHostName(ctx, append(argv, systemSSHOptions(cfg)...), hostArgs, res, dest)
	addr, err := chooseAddr(ctx, cfg.RemoteIP, netip.Addr{}, hostname, familyOf(cfg, res, dest), out.serverIP)
	if err != nil {
		return Result{}, err
	}
	return Result{Addr: addr, Port: out.port, Key: out.key, ServerPID: out.detached.PID, Session: out.detached.Session}, nil
}

// systemSSHOptions are ssh's options for the ssh_config file and the
// command line's settings: -F, -J, -i and -o, as Config names them.
func systemSSHOptions(cfg *Config) []string {
	var a []string
	if cfg.ConfigFile != "" {
		a = append(a, "-F", cfg.ConfigFile)
	}
	if cfg.Jump != "" {
		a = append(a, "-J", cfg.Jump)
	}
	for _, f := range cfg.Identities {
		a = append(a, "-i", f)
	}
	for _, o := range cfg.SSHOptions {
		a = append(a, "-o", o)
	}
	return a
}

// sshHostArgs are the family, port and destination arguments for ssh.
func sshHostArgs(family netaddr.Family, dest sshconfig.Destination) []string {
	var a []string
	switch family {
	case netaddr.IPv4:
		a = append(a, "-4")
	case netaddr.IPv6:
		a = append(a, "-6")
	}
	if dest.Port != 0 {
		a = append(a, "-p", strconv.Itoa(dest.Port))
	}
	host := dest.Host
	if dest.User != "" {
		host = dest.User + "@" + host
	}
	return append(a, host)
}

// systemSSHError maps a failed system ssh run. ssh exits 255 for its own
// errors (it has printed them on stderr already).
func systemSSHError(ctx context.Context, command, server string, out *startOutput, err error, sshStderr string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("bootstrap: starting the server: %w", ctx.Err())
	}
	se := serverError(command, out, err)
	se.Server = server
	se.NoUpload = "--ssh"
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		se.ExitStatus = ee.ExitCode()
		if se.ExitStatus == 255 {
			return &sshFailedError{se: se, output: sshStderr}
		}
	}
	return se
}

// systemSSHHostName asks ssh -G which host name it connects to (so the UDP
// target follows the same ssh_config); if that fails, gosh's own parser
// answers.
func systemSSHHostName(ctx context.Context, argv, hostArgs []string, res *resolver, dest sshconfig.Destination) string {
	args := append(append(append([]string{}, argv[1:]...), "-G"), hostArgs...)
	b, err := exec.CommandContext(ctx, argv[0], args...).Output()
	if err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if name, ok := bytes.CutPrefix(line, []byte("hostname ")); ok {
				return string(bytes.TrimSpace(name))
			}
		}
	}
	if p, err := res.resolve(dest); err == nil {
		return p.HostName
	}
	return dest.Host
}

func familyOf(cfg *Config, res *resolver, dest sshconfig.Destination) netaddr.Family {
	if cfg.Family != netaddr.AnyFamily {
		return cfg.Family
	}
	if p, err := res.resolve(dest); err == nil {
		return p.Family
	}
	return netaddr.AnyFamily
}

// splitShellWords splits a command line into words with POSIX-like quoting
// (single quotes, double quotes, backslashes), without expansions.
func splitShellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '\'' || c == '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, errors.New("unterminated quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// sshFailedError is a system ssh that failed itself (exit status 255); its
// own message is already on the user's terminal.
type sshFailedError struct {
	se     *ServerError
	output string // the end of ssh's stderr
}

func (e *sshFailedError) Error() string {
	return "bootstrap: ssh failed (exit status 255; see its message above)"
}

// Unwrap returns the *ServerError with ssh's output.
func (e *sshFailedError) Unwrap() error { return e.se }

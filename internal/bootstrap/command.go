package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/gosh-term/gosh/internal/buildinfo"
	"github.com/gosh-term/gosh/internal/sshconfig"
)

// maxCommandOutput bounds what [RunCommand] keeps of the remote command's
// stdout and of its stderr.
const maxCommandOutput = 1 << 20

// noGoshLine is what the command script prints when the remote has no gosh.
const noGoshLine = "GOSH NONE"

// ErrNoRemoteGosh is returned by [RunCommand] when the remote has no gosh
// to run the command with: none on PATH and none uploaded.
var ErrNoRemoteGosh = errors.New("bootstrap: the remote has no gosh (none on PATH, none uploaded)")

// CommandError is a remote command of [RunCommand] that failed.
type CommandError struct {
	// Status is its exit status (-1 when it is not known).
	Status int
	// Stderr is what it wrote on stderr.
	Stderr string
}

// Error returns the command's last line on stderr (a gosh's error message),
// without control characters, or its exit status.
func (e *CommandError) Error() string {
	line := strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return -1
		}
		return r
	}, lastLine(e.Stderr))
	if line != "" {
		return line
	}
	return fmt.Sprintf("bootstrap: the remote command failed (exit status %d)", e.Status)
}

// RunCommand logs in to cfg.Destination as [Run] does (the same ssh_config,
// host key checks, authentication, and cfg.SSHCommand if set) and runs
// the server command there with args appended (for the default server
// command, "gosh server ARGS…" with the gosh [Run] would start: on PATH,
// or uploaded earlier; nothing is uploaded). Every argument is quoted for
// the remote shell. It returns the command's stdout; its stderr goes to
// cfg.Stderr when it succeeds, and makes the *[CommandError] when it
// fails. ServerArgs and the upload settings are not used.
func RunCommand(ctx context.Context, cfg Config, args []string) ([]byte, error) {
	if err := checkCommandArgs(args); err != nil {
		return nil, err
	}
	dest, err := cfg.destination()
	if err != nil {
		return nil, err
	}
	if cfg.ServerCommand == "" {
		cfg.ServerCommand = DefaultServerCommand
	}
	res, err := newResolver(&cfg)
	if err != nil {
		return nil, err
	}
	want := ""
	if cfg.SSHCommand == "" {
		want = selfSHA256(&cfg)
	}
	command := commandScript(cfg.ServerCommand, args, want)
	var stdout, stderr capBuffer
	var status int
	if cfg.SSHCommand != "" {
		status, err = runCommandSystemSSH(ctx, &cfg, dest, command, &stdout, &stderr)
	} else {
		status, err = runCommandEmbedded(ctx, &cfg, res, dest, command, &stdout, &stderr)
	}
	if err != nil {
		return nil, err
	}
	out := stdout.bytes()
	if first, _, _ := strings.Cut(string(out), "\n"); strings.TrimSpace(first) == noGoshLine {
		return nil, ErrNoRemoteGosh
	}
	if status != 0 {
		return nil, &CommandError{Status: status, Stderr: string(stderr.bytes())}
	}
	cfg.stderr().Write(stderr.bytes())
	return out, nil
}

// runCommandEmbedded runs command over the built-in client and returns
// its exit status; err is about the connection, not the command.
func runCommandEmbedded(ctx context.Context, cfg *Config, res *resolver, dest sshconfig.Destination, command string, stdout, stderr *capBuffer) (int, error) {
	d := &dialer{res: res, prompt: cfg.Prompt, stderr: cfg.stderr(), timeout: cfg.ConnectTimeout, logf: cfg.Logf}
	c, err := d.connect(ctx, dest, 0, "")
	if err != nil {
		return 0, err
	}
	defer c.Close()
	sess, err := c.client.NewSession()
	if err != nil {
		return 0, fmt.Errorf("bootstrap: opening an SSH session: %w", err)
	}
	defer sess.Close()
	sess.Stdout, sess.Stderr = stdout, stderr
	stop := context.AfterFunc(ctx, func() { sess.Close() })
	defer stop()
	cfg.Logf.Printf("bootstrap: remote command: %s", command)
	err = sess.Run(command)
	if ctx.Err() != nil {
		return 0, fmt.Errorf("bootstrap: running the remote command: %w", ctx.Err())
	}
	var ee *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		return ee.ExitStatus(), nil
	case errors.As(err, &missing):
		return -1, nil
	}
	return 0, fmt.Errorf("bootstrap: running the remote command: %w", err)
}

// runCommandSystemSSH runs command with the system ssh of cfg.SSHCommand
// (without a terminal, so stdout and stderr stay apart).
func runCommandSystemSSH(ctx context.Context, cfg *Config, dest sshconfig.Destination, command string, stdout, stderr *capBuffer) (int, error) {
	argv, err := splitShellWords(cfg.SSHCommand)
	if err != nil || len(argv) == 0 {
		return 0, fmt.Errorf("bootstrap: bad --ssh command %q", cfg.SSHCommand)
	}
	args := append(append([]string{}, argv[1:]...), systemSSHOptions(cfg)...)
	args = append(args, "-n")
	args = append(args, sshHostArgs(cfg.Family, dest)...)
	args = append(args, "--", command)
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cfg.Logf.Printf("bootstrap: running %s %s", argv[0], strings.Join(args, " "))
	err = cmd.Run()
	if ctx.Err() != nil {
		return 0, fmt.Errorf("bootstrap: running the remote command: %w", ctx.Err())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee) && ee.ExitCode() == 255:
		// ssh's own failure: its message is the error.
		return 0, &CommandError{Status: 255, Stderr: string(stderr.bytes())}
	case errors.As(err, &ee):
		return ee.ExitCode(), nil
	}
	return 0, &DialError{Addr: dest.String(), Err: err}
}

// checkCommandArgs refuses arguments that cannot be quoted into one
// line that every login shell takes as it is: a line break, or the '!'
// of csh's history, which single quotes do not stop.
func checkCommandArgs(args []string) error {
	for _, a := range args {
		if strings.ContainsAny(a, "\n\r!") {
			return fmt.Errorf("bootstrap: remote argument %q has a line break or '!'", a)
		}
	}
	return nil
}

// commandScript is the remote command of [RunCommand]: the server command
// with args, quoted. For the default server command it picks the gosh
// as [startScript] does (the one on PATH if it speaks this protocol, else
// the uploaded binary whose SHA-256 is want), else any uploaded gosh;
// with none it prints noGoshLine.
func commandScript(serverCommand string, args []string, want string) string {
	var quoted strings.Builder
	for _, a := range args {
		quoted.WriteByte(' ')
		quoted.WriteString(shellQuote(a))
	}
	if serverCommand != DefaultServerCommand {
		return "exec sh -c " + shellQuote("exec "+serverCommand+quoted.String())
	}
	proto := fmt.Sprintf("mosh protocol %d,", buildinfo.MoshProtocolVersion)
	var s strings.Builder
	s.WriteString("d=" + uploadDirExpr() + "; g=; ")
	s.WriteString(`if command -v gosh >/dev/null 2>&1 && gosh version 2>/dev/null | grep '` + proto + `' >/dev/null; then g=gosh; fi; `)
	if isSHA256(want) {
		s.WriteString(`if [ -z "$g" ] && [ -x "$d/` + want + `/gosh" ]; then g="$d/` + want + `/gosh"; fi; `)
	}
	s.WriteString(`if [ -z "$g" ]; then for f in "$d"/*/gosh; do [ -x "$f" ] && g="$f"; done; fi; `)
	s.WriteString(`if [ -z "$g" ]; then echo '` + noGoshLine + `'; exit 0; fi; `)
	s.WriteString(`exec "$g" ` + strings.TrimPrefix(serverCommand, "gosh ") + quoted.String())
	return "exec sh -c " + shellQuote(s.String())
}

// capBuffer keeps the first maxCommandOutput bytes written to it.
type capBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxCommandOutput - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (c *capBuffer) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b
}

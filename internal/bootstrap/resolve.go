package bootstrap

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/sshconfig"
)

// Forwards are ssh_config's LocalForward, RemoteForward and DynamicForward
// lines for the host, each in the form of the command line's -L, -R and
// -D.
type Forwards = sshconfig.Forwards

// resolver is the ssh_config resolver of one run, reading this machine's
// files, environment and commands, and naming the keywords the built-in
// client does not honour once per run.
type resolver struct {
	sshconfig.Resolver
	notes keywordNotes
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
	cmdline, err := cfg.cmdline()
	if err != nil {
		return nil, err
	}
	files, dirs := configFiles(home, cfg.ConfigFile)
	r := &resolver{Resolver: sshconfig.Resolver{
		Files: files, Dirs: dirs, Required: cfg.ConfigFile != "" && cfg.ConfigFile != "none",
		FS: osConfigFS, Home: home, LocalUser: localUserName(), Family: cfg.Family,
		Getenv: os.LookupEnv,
		Logf:   func(format string, args ...any) { cfg.Logf.Printf("bootstrap: "+format, args...) },
		Exec:   func(command string) bool { return runMatchExec(command, cfg.stderr()) },
		Quote:  proxyQuote, Local: localTokens(), CommandLine: cmdline,
		DefaultAgent: defaultAgent, GlobalKnownHosts: systemKnownHosts,
	}}
	return r, nil
}

// configFiles are the ssh_config files a connection reads, and where the
// relative Include paths of each resolve: ~/.ssh/config then the
// system's for configFile "" ([Config.ConfigFile]), none for "none", else
// that file (ssh -F).
func configFiles(home, configFile string) (files, dirs []string) {
	switch configFile {
	case "":
		return []string{filepath.Join(home, ".ssh", "config"), systemSSHConfig},
			[]string{filepath.Join(home, ".ssh"), systemSSHConfigDir}
	case "none":
		return nil, nil
	}
	return []string{configFile}, []string{filepath.Join(home, ".ssh")} // sshconfig expands a leading ~
}

// osConfigFS reads ssh_config files from the file system.
var osConfigFS = sshconfig.FS{
	ReadFile: func(name string) ([]byte, error) { return readLimited(name, sshconfig.MaxFileSize) },
	Glob:     filepath.Glob,
}

// resolve applies the command line's settings and the ssh_config files
// to dest, the destination.
func (r *resolver) resolve(dest sshconfig.Destination) (*sshconfig.Host, error) {
	h, err := r.Resolve(dest)
	return h, wrapError(err)
}

// resolveHop applies the ssh_config files to dest, a jump host: the
// command line's settings are the destination's.
func (r *resolver) resolveHop(dest sshconfig.Destination) (*sshconfig.Host, error) {
	h, err := r.ResolveHop(dest)
	return h, wrapError(err)
}

// wrapError puts this package's "bootstrap: " before an error of package
// sshconfig, whose errors have none.
func wrapError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("bootstrap: %w", err)
}

// localTokens are the %-tokens about this machine (see
// sshconfig.Resolver.Local).
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

// destination parses c.Destination and applies c.SSHPort.
func (c *Config) destination() (sshconfig.Destination, error) {
	d, err := sshconfig.ParseDestination(c.Destination)
	if err != nil || c.SSHPort == 0 {
		return d, wrapError(err)
	}
	if c.SSHPort < 0 || c.SSHPort > 65535 {
		return d, fmt.Errorf("bootstrap: bad SSH port %d", c.SSHPort)
	}
	if d.Port != 0 && d.Port != c.SSHPort {
		return d, fmt.Errorf("bootstrap: %q names SSH port %d, and the SSH port given is %d", c.Destination, d.Port, c.SSHPort)
	}
	d.Port = c.SSHPort
	return d, nil
}

// cmdline is the command line's ssh_config settings: Jump, Identities,
// then SSHOptions.
func (c *Config) cmdline() ([]sshconfig.Option, error) {
	opts, err := sshconfig.CommandLine(c.Jump, c.Identities, c.SSHOptions)
	return opts, wrapError(err)
}

// keywordNotes names each unhonoured keyword once per run, however many
// hosts (jump hosts, re-dials) use it.
type keywordNotes struct {
	mu    sync.Mutex
	named map[string]bool
}

// fresh returns the names not named before, and marks them.
func (n *keywordNotes) fresh(names []string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.named == nil {
		n.named = map[string]bool{}
	}
	var out []string
	for _, name := range names {
		if !n.named[name] {
			n.named[name] = true
			out = append(out, name)
		}
	}
	return out
}

// note writes what the built-in client leaves out of p's settings: the
// keywords that change security on stderr, the others to the debug log
// (-v).
func (n *keywordNotes) note(p *sshconfig.Host, host string, stderr func(string), logf logf.Func) {
	security, other := p.Unhonoured()
	if s := n.fresh(security); len(s) > 0 {
		stderr(fmt.Sprintf("gosh: ssh config for %s sets %s, which gosh's built-in SSH client does not honour: "+
			"it keeps its own host key checks and rekeying (--ssh runs the system ssh, which does)", host, joinAnd(s)))
	}
	if s := n.fresh(other); len(s) > 0 {
		logf.Printf("bootstrap: ssh config for %s: not honoured by the built-in client: %s", host, strings.Join(s, ", "))
	}
}

// joinAnd joins names as "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/sshconfig"
)

// SSHLogin is how to log in over SSH beyond ssh_config: ssh's -p, -i, -J
// and -o, for the built-in client or, translated, a system ssh (--ssh).
type SSHLogin struct {
	// SSHPort is the SSH port (--ssh-port); 0 leaves it to the
	// destination and ssh_config.
	SSHPort int
	// Identities are key files tried first (--identity), made absolute.
	Identities []string
	// Jump is the destination's ProxyJump (--jump).
	Jump string
	// SSHOptions are ssh_config lines that override the files'
	// (--ssh-option).
	SSHOptions []string
}

// addSSHLoginFlags registers --ssh-port, --identity, --jump and
// --ssh-option.
func addSSHLoginFlags(f *pflag.FlagSet, l *SSHLogin) {
	f.Var((*sshPortValue)(&l.SSHPort), "ssh-port", "log in over SSH on this port, as ssh -p (gosh's -p is the server's UDP port, as mosh's)")
	f.StringArrayVar(&l.Identities, "identity", nil, "try the private key in `FILE` first, as ssh -i (repeatable)")
	f.StringVar(&l.Jump, "jump", "", "reach the host through the jump `HOSTS` ([user@]host[:port], comma-separated), as ssh -J")
	f.StringArrayVar(&l.SSHOptions, "ssh-option", nil, "an ssh_config line `Key=Value` that overrides the files, as ssh -o (repeatable)")
}

// check refuses bad values with a usage error naming the flag, and makes
// identity files absolute (a system ssh or a jump host may run
// elsewhere). destination, when not empty, must not name another port.
func (l *SSHLogin) check(name, destination string) error {
	if destination != "" {
		d, err := sshconfig.ParseDestination(destination)
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		if l.SSHPort != 0 && d.Port != 0 && d.Port != l.SSHPort {
			return usagef("%s: %s names SSH port %d, and --ssh-port says %d", name, destination, d.Port, l.SSHPort)
		}
	}
	for i, f := range l.Identities {
		abs, err := identityPath(f)
		if err != nil {
			return usagef("%s: --identity %s: %v", name, f, err)
		}
		l.Identities[i] = abs
	}
	if l.Jump != "" {
		if err := sshconfig.CheckJump(l.Jump); err != nil {
			return usagef("%s: --jump: %v", name, err)
		}
	}
	for _, o := range l.SSHOptions {
		if _, err := sshconfig.ParseOption(o); err != nil {
			return usagef("%s: --ssh-option: %v", name, err)
		}
	}
	return nil
}

// identityPath makes an --identity file absolute, with a leading ~
// expanded, and checks that it exists: ssh only warns of a missing one,
// but a typo then fails later, as an authentication error. A name with
// %-tokens is left to the bootstrap, which expands them.
func identityPath(f string) (string, error) {
	if strings.Contains(f, "%") {
		return f, nil
	}
	if rest, ok := strings.CutPrefix(f, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		f = filepath.Join(home, rest)
	}
	abs, err := filepath.Abs(f)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("no such key file")
	case st.IsDir():
		return "", fmt.Errorf("is a directory, not a key file")
	}
	return abs, nil
}

// set reports whether any of the flags was given.
func (l *SSHLogin) set() bool {
	return l.SSHPort != 0 || len(l.Identities) > 0 || l.Jump != "" || len(l.SSHOptions) > 0
}

// apply sets the bootstrap's fields.
func (l *SSHLogin) apply(cfg *bootstrap.Config) {
	cfg.SSHPort, cfg.Identities, cfg.Jump, cfg.SSHOptions = l.SSHPort, l.Identities, l.Jump, l.SSHOptions
}

// sshPortValue is --ssh-port: a TCP port, 1 to 65535.
type sshPortValue int

func (p *sshPortValue) String() string {
	if *p == 0 {
		return ""
	}
	return strconv.Itoa(int(*p))
}

func (p *sshPortValue) Set(s string) error {
	n, err := netaddr.ParsePort(s)
	if err != nil {
		return err
	}
	*p = sshPortValue(n)
	return nil
}

func (p *sshPortValue) Type() string { return "port" }

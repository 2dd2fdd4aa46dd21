package bootstrap

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/gosh-term/gosh/internal/netaddr"
)

// destination is a parsed [user@]host[:port] (or ssh://[user@]host[:port]).
type destination struct {
	user string
	host string // without brackets
	port int    // 0 when not given
}

// parseDestination accepts [user@]host[:port], [user@][v6addr]:port,
// [user@]v6addr (two or more colons and no brackets: no port), and
// ssh://[user@]host[:port].
func parseDestination(s string) (destination, error) {
	if len(s) >= 6 && strings.EqualFold(s[:6], "ssh://") { // as ssh, in any case
		return parseSSHURL(s[6:])
	}
	var d destination
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		d.user, s = s[:i], s[i+1:]
		if err := checkUserName(d.user); err != nil {
			return d, err
		}
	}
	switch {
	case strings.HasPrefix(s, "["):
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			h, ok := strings.CutSuffix(s[1:], "]")
			if !ok {
				return d, fmt.Errorf("bootstrap: bad destination %q", s)
			}
			host, port = h, ""
		}
		d.host = host
		if port != "" {
			if d.port, err = parsePort(port); err != nil {
				return d, err
			}
		}
	case strings.Count(s, ":") == 1:
		host, port, _ := strings.Cut(s, ":")
		p, err := parsePort(port)
		if err != nil {
			return d, err
		}
		d.host, d.port = host, p
	default:
		d.host = s
	}
	if err := checkHostName(d.host); err != nil {
		return d, err
	}
	return d, nil
}

// ParseDestination checks a destination as [Run] reads it:
// [user@]host[:port], [user@][v6addr]:port, [user@]v6addr or
// ssh://[user@]host[:port] (an ssh_config Host alias is a host). It
// returns its user ("" when not given), host, and port (0 when not
// given).
func ParseDestination(s string) (user, host string, port int, err error) {
	d, err := parseDestination(s)
	return d.user, d.host, d.port, err
}

// CheckJump checks a ProxyJump list ([Config.Jump], ssh -J): "none",
// or destinations separated by commas.
func CheckJump(s string) error {
	if strings.EqualFold(s, "none") {
		return nil
	}
	for _, hop := range strings.Split(s, ",") {
		if _, err := parseDestination(strings.TrimSpace(hop)); err != nil {
			return fmt.Errorf("bootstrap: jump host %q: %w", hop, err)
		}
	}
	return nil
}

// destination parses c.Destination and applies c.SSHPort.
func (c *Config) destination() (destination, error) {
	d, err := parseDestination(c.Destination)
	if err != nil || c.SSHPort == 0 {
		return d, err
	}
	if c.SSHPort < 0 || c.SSHPort > 65535 {
		return d, fmt.Errorf("bootstrap: bad SSH port %d", c.SSHPort)
	}
	if d.port != 0 && d.port != c.SSHPort {
		return d, fmt.Errorf("bootstrap: %q names SSH port %d, and the SSH port given is %d", c.Destination, d.port, c.SSHPort)
	}
	d.port = c.SSHPort
	return d, nil
}

// cmdline is the command line's ssh_config settings: Jump, Identities,
// then SSHOptions.
func (c *Config) cmdline() ([]cmdlineOption, error) {
	var opts []cmdlineOption
	if c.Jump != "" {
		if err := CheckJump(c.Jump); err != nil {
			return nil, err
		}
		opts = append(opts, cmdlineOption{keyword: "proxyjump", args: []string{c.Jump}})
	}
	for _, f := range c.Identities {
		if f == "" {
			return nil, fmt.Errorf("bootstrap: empty identity file name")
		}
		opts = append(opts, cmdlineOption{keyword: "identityfile", args: []string{f}})
	}
	for _, s := range c.SSHOptions {
		o, err := parseSSHOption(s)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	return opts, nil
}

func parseSSHURL(rest string) (destination, error) {
	u, err := url.Parse("ssh://" + rest)
	if err != nil || u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return destination{}, fmt.Errorf("bootstrap: bad ssh:// destination %q", rest)
	}
	d := destination{user: u.User.Username(), host: u.Hostname()}
	if p := u.Port(); p != "" {
		if d.port, err = parsePort(p); err != nil {
			return d, err
		}
	}
	if u.User != nil {
		if err := checkUserName(d.user); err != nil {
			return d, err
		}
	}
	return d, checkHostName(d.host)
}

// parsePort parses the SSH port of a destination.
func parsePort(s string) (int, error) {
	n, err := netaddr.ParsePort(s)
	if err != nil {
		return 0, fmt.Errorf("bootstrap: %w", err)
	}
	return int(n), nil
}

// checkHostName rejects host names from the command line that a shell or
// ssh's option parser would read as something else ("-oProxyCommand=…",
// "$(…)"), as OpenSSH 9.6 does (CVE-2023-51385), and glob characters.
func checkHostName(h string) error {
	if h == "" {
		return fmt.Errorf("bootstrap: missing host")
	}
	if h[0] == '-' || strings.ContainsAny(h, "'`\"$\\;&<>|(){},*?[]") || strings.IndexFunc(h, isSpaceOrControl) >= 0 {
		return fmt.Errorf("bootstrap: bad host name %q", h)
	}
	return nil
}

// checkUserName rejects user names from the command line that a shell or
// ssh's option parser would read as something else, as OpenSSH 9.6 does:
// a leading '-', control characters, shell metacharacters, white space
// before a '-', and a trailing backslash. ("$" and a backslash inside
// stay: Samba's machine accounts and Windows domains use them.)
func checkUserName(u string) error {
	bad := u == "" || u[0] == '-' || strings.ContainsAny(u, "'`\";&<>|(){}") ||
		strings.HasSuffix(u, "\\") || strings.IndexFunc(u, isSpaceOrControl) >= 0
	if bad {
		return fmt.Errorf("bootstrap: bad user name %q", u)
	}
	return nil
}

func isSpaceOrControl(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// String formats d back as [user@]host[:port].
func (d destination) String() string {
	s := d.host
	switch {
	case d.port != 0:
		s = net.JoinHostPort(d.host, strconv.Itoa(d.port))
	case strings.Count(d.host, ":") == 1:
		s = "[" + d.host + "]" // else the colon reads as a port's
	}
	if d.user != "" {
		s = d.user + "@" + s
	}
	return s
}

// expandTilde replaces a leading "~" or "~/" with home.
func expandTilde(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}

// expandEnv replaces ${NAME} with the environment variable, and fails for
// unset ones as OpenSSH does.
func expandEnv(s string, getenv func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s)
		}
		name := s[i+2 : i+j]
		v, ok := getenv(name)
		if !ok {
			return "", fmt.Errorf("environment variable %q is not set", name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// expandTokens replaces OpenSSH %-tokens (%h, %p, %r, %u, %d, %n, %% …)
// from tokens; an unknown token is an error.
func expandTokens(s string, tokens map[byte]string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("trailing %% in %q", s)
		}
		i++
		if s[i] == '%' {
			b.WriteByte('%')
			continue
		}
		v, ok := tokens[s[i]]
		if !ok {
			return "", fmt.Errorf("unknown token %%%c in %q", s[i], s)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// underHome makes a relative path relative to home. A path that is
// absolute, or rooted without a drive on Windows ("/etc/x", "\\x"), stays
// as it is.
func underHome(p, home string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || (filepath.Separator == '\\' && strings.HasPrefix(p, `\`)) {
		return p
	}
	return filepath.Join(home, p)
}

// expandPath applies tilde, ${ENV} and %-token expansion to a path option.
func expandPath(p, home string, tokens map[byte]string) (string, error) {
	p = expandTilde(p, home)
	p, err := expandEnv(p, os.LookupEnv)
	if err != nil {
		return "", err
	}
	return expandTokens(p, tokens)
}

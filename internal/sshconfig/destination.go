package sshconfig

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/gosh-term/gosh/internal/netaddr"
)

// Destination is where to log in: a parsed [user@]host[:port] (or
// ssh://[user@]host[:port]). An ssh_config Host alias is a host.
type Destination struct {
	User string // "" when not given
	Host string // without brackets
	Port int    // 0 when not given
}

// ParseDestination accepts [user@]host[:port], [user@][v6addr]:port,
// [user@]v6addr (two or more colons and no brackets: no port), and
// ssh://[user@]host[:port]. It refuses user and host names that a shell
// or ssh's option parser would read as something else, as OpenSSH 9.6
// does (CVE-2023-51385), and host names with glob characters.
func ParseDestination(s string) (Destination, error) {
	if len(s) >= 6 && strings.EqualFold(s[:6], "ssh://") { // as ssh, in any case
		return parseSSHURL(s[6:])
	}
	var d Destination
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		d.User, s = s[:i], s[i+1:]
		if err := checkUserName(d.User); err != nil {
			return d, err
		}
	}
	switch {
	case strings.HasPrefix(s, "["):
		host, port, err := netaddr.SplitHostPort(s)
		if err != nil {
			h, ok := strings.CutSuffix(s[1:], "]")
			if !ok {
				return d, fmt.Errorf("bad destination %q", s)
			}
			host, port = h, ""
		}
		d.Host = host
		if port != "" {
			if d.Port, err = parsePort(port); err != nil {
				return d, err
			}
		}
	case strings.Count(s, ":") == 1:
		host, port, _ := strings.Cut(s, ":")
		p, err := parsePort(port)
		if err != nil {
			return d, err
		}
		d.Host, d.Port = host, p
	default:
		d.Host = s
	}
	if err := checkHostName(d.Host); err != nil {
		return d, err
	}
	return d, nil
}

// CheckJump checks a ProxyJump list (ssh -J): "none", or destinations
// separated by commas.
func CheckJump(s string) error {
	if strings.EqualFold(s, "none") {
		return nil
	}
	for _, hop := range strings.Split(s, ",") {
		if _, err := ParseDestination(strings.TrimSpace(hop)); err != nil {
			return fmt.Errorf("jump host %q: %w", hop, err)
		}
	}
	return nil
}

func parseSSHURL(rest string) (Destination, error) {
	u, err := url.Parse("ssh://" + rest)
	if err != nil || u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return Destination{}, fmt.Errorf("bad ssh:// destination %q", rest)
	}
	d := Destination{User: u.User.Username(), Host: u.Hostname()}
	if p := u.Port(); p != "" {
		if d.Port, err = parsePort(p); err != nil {
			return d, err
		}
	}
	if u.User != nil {
		if err := checkUserName(d.User); err != nil {
			return d, err
		}
	}
	return d, checkHostName(d.Host)
}

// parsePort parses the SSH port of a destination.
func parsePort(s string) (int, error) {
	n, err := netaddr.ParsePort(s)
	if err != nil {
		return 0, err
	}
	return int(n), nil
}

// checkHostName rejects host names from the command line that a shell or
// ssh's option parser would read as something else ("-oProxyCommand=…",
// "$(…)"), as OpenSSH 9.6 does (CVE-2023-51385), and glob characters.
func checkHostName(h string) error {
	if h == "" {
		return fmt.Errorf("missing host")
	}
	if h[0] == '-' || strings.ContainsAny(h, "'`\"$\\;&<>|(){},*?[]") || strings.IndexFunc(h, isSpaceOrControl) >= 0 {
		return fmt.Errorf("bad host name %q", h)
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
		return fmt.Errorf("bad user name %q", u)
	}
	return nil
}

func isSpaceOrControl(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// String formats d back as [user@]host[:port], which [ParseDestination]
// reads as d.
func (d Destination) String() string {
	s := d.Host
	switch {
	case d.Port != 0:
		s = netaddr.JoinHostPort(d.Host, strconv.Itoa(d.Port))
	case strings.Count(d.Host, ":") == 1:
		s = "[" + d.Host + "]" // else the colon reads as a port's
	}
	if d.User != "" {
		s = d.User + "@" + s
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
func (r *Resolver) expandPath(p string, tokens map[byte]string) (string, error) {
	p = expandTilde(p, r.Home)
	p, err := expandEnv(p, r.getenv)
	if err != nil {
		return "", err
	}
	return expandTokens(p, tokens)
}

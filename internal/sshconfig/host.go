package sshconfig

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/netaddr"
)

// Default file locations, as OpenSSH uses them.
const (
	defaultSSHPort = 22
	defaultPrompts = 3
)

// defaultIdentityFiles are tried, relative to ~/.ssh, when no IdentityFile
// is configured (OpenSSH 9's list, minus the retired DSA key).
var defaultIdentityFiles = []string{"id_rsa", "id_ecdsa", "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk"}

// Host is everything needed to reach one SSH host, after applying the
// command line and ssh_config: what [Resolver.Resolve] returns. Paths are
// expanded (~, ${ENV}, %-tokens) and absolute.
type Host struct {
	// Alias is the host as typed (Host patterns match it).
	Alias string
	// HostName is HostName, or Alias.
	HostName string
	// Port is the destination's port, else Port, else 22.
	Port int
	// User is the destination's user, else User, else the local user.
	User string
	// IdentityFiles are the IdentityFile keys (the command line's first),
	// else the default ones (~/.ssh/id_rsa, …); "none" is left out.
	IdentityFiles []string
	// CertificateFiles are the CertificateFile entries.
	CertificateFiles []string
	// IdentitiesOnly is IdentitiesOnly yes.
	IdentitiesOnly bool
	// IdentityAgent is the agent's socket; "" means none.
	IdentityAgent string
	// ForwardAgent is the agent socket to forward; "" means none.
	ForwardAgent string
	// Forwards are LocalForward, RemoteForward and DynamicForward.
	Forwards Forwards
	// ProxyJump is ProxyJump; "" or "none" means direct.
	ProxyJump string
	// ProxyCommand is ProxyCommand with its %-tokens expanded and quoted
	// (see [Resolver.Quote]); "" means none. ProxyJump and ProxyCommand
	// compete: whichever is obtained first is set.
	ProxyCommand string
	// UserKnownHosts are the UserKnownHostsFile files (default
	// ~/.ssh/known_hosts and ~/.ssh/known_hosts2).
	UserKnownHosts []string
	// GlobalKnownHosts are the GlobalKnownHostsFile files (default
	// [Resolver.GlobalKnownHosts]).
	GlobalKnownHosts []string
	// StrictHostKeyChecking is "yes", "ask" (the default), "accept-new"
	// or "no".
	StrictHostKeyChecking string
	// HashKnownHosts is HashKnownHosts yes.
	HashKnownHosts bool
	// ConnectTimeout is ConnectTimeout; 0 means none.
	ConnectTimeout time.Duration
	// Family is [Resolver.Family] if set, else AddressFamily.
	Family netaddr.Family
	// BatchMode is BatchMode yes: nothing may be asked.
	BatchMode bool
	// PubkeyAuth, PasswordAuth and KbdInteractiveAuth are
	// PubkeyAuthentication, PasswordAuthentication and
	// KbdInteractiveAuthentication (or ChallengeResponseAuthentication);
	// each defaults to yes.
	PubkeyAuth, PasswordAuth, KbdInteractiveAuth bool
	// PasswordPrompts is NumberOfPasswordPrompts (default 3).
	PasswordPrompts int
	// HostKeyAlias is HostKeyAlias.
	HostKeyAlias string
	// Algorithms are the settings of algorithms, key sizes, revoked keys
	// and keepalives.
	Algorithms Algorithms

	opts *hostOptions // what the files and the command line set
}

// Algorithms are the ssh_config keywords about algorithms, key sizes,
// revoked keys and keepalives, resolved for one host.
type Algorithms struct {
	// Ciphers, Kex and MACs are Ciphers, KexAlgorithms and MACs; nil
	// leaves x/crypto's defaults.
	Ciphers, Kex, MACs []string
	// HostKeys is HostKeyAlgorithms; nil leaves the client's defaults.
	HostKeys []string
	// HostKeysKnownFirst puts the algorithms of the keys known_hosts
	// holds for the host first, as OpenSSH does unless HostKeyAlgorithms
	// is a list of its own or starts with '^'.
	HostKeysKnownFirst bool
	// Pubkey is PubkeyAcceptedAlgorithms; nil offers every key with the
	// algorithms x/crypto and the server agree on.
	Pubkey []string
	// CASignature is CASignatureAlgorithms: how host certificates may be
	// signed. Never empty.
	CASignature []string
	// RequiredRSASize is RequiredRSASize: RSA host keys smaller than this
	// (in bits) are refused, user keys smaller than this are not offered.
	RequiredRSASize int
	// RevokedHostKeys are the RevokedHostKeys files.
	RevokedHostKeys []string
	// AliveInterval and AliveCountMax are ServerAliveInterval and
	// ServerAliveCountMax; a zero interval sends no keepalives.
	AliveInterval time.Duration
	AliveCountMax int
}

// OpenSSH's defaults for the algorithm settings that have numbers.
const (
	defaultRequiredRSASize = 1024
	defaultAliveCountMax   = 3
)

// KnownHostsName is the host's name in known_hosts: HostKeyAlias, or
// HostName with "[name]:port" for a non-default port.
// It is returned as host:port, the form knownhosts callbacks take; an
// alias is used verbatim (without the port), as OpenSSH does.
func (h *Host) KnownHostsName() string {
	if a := h.HostKeyAlias; a != "" {
		if _, _, err := netaddr.SplitHostPort(a); err == nil && strings.HasPrefix(a, "[") {
			return a // already "[host]:port"
		}
		return netaddr.JoinHostPort(a, strconv.Itoa(defaultSSHPort))
	}
	return netaddr.JoinHostPort(h.HostName, strconv.Itoa(h.Port))
}

// Addr is HostName:Port, for a TCP connection.
func (h *Host) Addr() string {
	return netaddr.JoinHostPort(h.HostName, strconv.Itoa(h.Port))
}

// Setting returns the first argument of the first value obtained for
// keyword (in lower case, "kexalgorithms"), or "" when nothing set it.
func (h *Host) Setting(keyword string) string {
	if h.opts == nil {
		return ""
	}
	return h.opts.get(keyword)
}

// Resolver turns destinations into [Host] values the way ssh does:
// the command line's settings, then ssh_config files. It does no I/O of
// its own: files, the environment and Match exec come through its
// fields. The zero Resolver reads no files and runs no command.
type Resolver struct {
	// Files are the ssh_config files, evaluated in order (the first value
	// obtained wins); a leading ~ is Home. A missing one is skipped,
	// unless Required.
	Files []string
	// Dirs[i] is where relative Include paths of Files[i] resolve
	// (~/.ssh for the user's file, /etc/ssh for the system's); Home for
	// a file without one.
	Dirs []string
	// Required makes a missing file an error (ssh -F).
	Required bool
	// FS reads the files.
	FS FS
	// Home is the user's home directory (~, %d, relative paths).
	Home string
	// LocalUser is the user name here (%u, the default User).
	LocalUser string
	// Family is the command line's address family: unless AnyFamily, it
	// replaces AddressFamily.
	Family netaddr.Family
	// Getenv looks up environment variables (${VAR} in paths,
	// SSH_AUTH_SOCK, IdentityAgent $VAR); nil has none set.
	Getenv func(string) (string, bool)
	// Logf writes debug notes (lists naming algorithms the client lacks,
	// Match criteria it does not support, what Match exec ran); nil
	// discards them.
	Logf logf.Func
	// Exec runs a Match exec command line and reports whether it exited
	// with status 0; nil runs none, and such criteria do not match.
	Exec func(command string) bool
	// Quote quotes one %-token's value as one word of a ProxyCommand or
	// Match exec line, so that no user or host name can inject a word or
	// a command; nil quotes for a POSIX shell.
	Quote func(string) string
	// Local are the %-tokens about this machine: 'i' (the user id), 'l'
	// (the host name) and 'L' (its first label); unset ones are empty.
	Local map[byte]string
	// CommandLine are the command line's settings for the destination
	// (ssh -o, -i, -J: [CommandLine]); like ssh's, they do not apply to
	// jump hosts.
	CommandLine []Option
	// DefaultAgent is the agent used when neither IdentityAgent nor
	// $SSH_AUTH_SOCK names one; "" is none.
	DefaultAgent string
	// GlobalKnownHosts are the system's known_hosts files, used when
	// GlobalKnownHostsFile is not set.
	GlobalKnownHosts []string
}

// Resolve applies the command line's settings and the ssh_config files
// to dest, the destination.
func (r *Resolver) Resolve(dest Destination) (*Host, error) {
	return r.resolveWith(dest, r.CommandLine)
}

// ResolveHop applies the ssh_config files to dest, a jump host: the
// command line's settings are the destination's.
func (r *Resolver) ResolveHop(dest Destination) (*Host, error) {
	return r.resolveWith(dest, nil)
}

func (r *Resolver) resolveWith(dest Destination, cmdline []Option) (*Host, error) {
	e := &configEval{fs: r.FS, originalHost: dest.Host, user: dest.User, port: dest.Port,
		localUser: r.LocalUser, home: r.Home, logf: r.Logf, exec: r.Exec, quote: r.quote(), local: r.Local, cmdline: cmdline}
	o, err := evalSSHConfig(e, r.Files, r.Dirs, r.Required)
	if err != nil {
		return nil, err
	}
	p := &Host{Alias: dest.Host, HostName: dest.Host, Port: dest.Port, User: dest.User, opts: o}
	if h := o.get("hostname"); h != "" {
		if p.HostName, err = expandTokens(h, map[byte]string{'h': dest.Host}); err != nil {
			return nil, fmt.Errorf("ssh config HostName: %w", err)
		}
	}
	if p.Port == 0 {
		p.Port = defaultSSHPort
		if v := o.get("port"); v != "" {
			p.Port, _ = strconv.Atoi(v) // checked while parsing
		}
	}
	if p.User == "" {
		p.User = o.get("user")
	}
	if p.User == "" {
		p.User = r.LocalUser
	}
	p.HostKeyAlias = o.get("hostkeyalias")
	if err := r.applyPaths(p, o); err != nil {
		return nil, err
	}
	r.applyPolicy(p, o)
	if err := r.applyAlgorithms(p, o); err != nil {
		return nil, err
	}
	return p, nil
}

// getenv is Getenv, or no variables.
func (r *Resolver) getenv(name string) (string, bool) {
	if r.Getenv == nil {
		return "", false
	}
	return r.Getenv(name)
}

// quote is Quote, or [shellQuote].
func (r *Resolver) quote() func(string) string {
	if r.Quote == nil {
		return shellQuote
	}
	return r.Quote
}

// tokens are the %-tokens of ssh_config(5) that gosh can fill in.
func (r *Resolver) tokens(p *Host) map[byte]string {
	return map[byte]string{
		'h': p.HostName, 'n': p.Alias, 'p': strconv.Itoa(p.Port), 'r': p.User,
		'u': r.LocalUser, 'd': r.Home, 'i': r.Local['i'], 'l': r.Local['l'], 'L': r.Local['L'], 'k': p.KnownHostsName(),
	}
}

// quoteAll quotes every token as one word of a ProxyCommand line (a
// shell word on Unix, a CreateProcess argument on Windows): a user or host
// name then cannot inject a command or an argument, whatever ssh_config or
// the remote gave it. Tokens that need no quoting (plain names, numbers,
// paths) stay as they are, so a command that quotes them itself
// ("%h:%p" in double quotes) still works.
func quoteAll(quote func(string) string, tok map[byte]string) map[byte]string {
	q := make(map[byte]string, len(tok))
	for k, v := range tok {
		q[k] = quote(v)
	}
	return q
}

// shellQuote quotes s as one word for a POSIX shell, leaving words of
// plain characters as they are.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// applyPaths resolves the keywords that name files, sockets and commands.
func (r *Resolver) applyPaths(p *Host, o *hostOptions) error {
	tok := r.tokens(p)
	files := o.each("identityfile")
	if len(files) == 0 {
		for _, f := range defaultIdentityFiles {
			files = append(files, filepath.Join(r.Home, ".ssh", f))
		}
	}
	var err error
	if p.IdentityFiles, err = r.keyFiles("IdentityFile", files, tok); err != nil {
		return err
	}
	if p.CertificateFiles, err = r.keyFiles("CertificateFile", o.each("certificatefile"), tok); err != nil {
		return err
	}
	if p.IdentityAgent, err = r.agentSocket(o.get("identityagent"), tok); err != nil {
		return err
	}
	if p.ForwardAgent, err = r.forwardAgent(o.get("forwardagent"), tok); err != nil {
		return err
	}
	p.Forwards = Forwards{
		Local:   forwardSpecs(o.all["localforward"]),
		Remote:  forwardSpecs(o.all["remoteforward"]),
		Dynamic: forwardSpecs(o.all["dynamicforward"]),
	}
	known := o.args("userknownhostsfile")
	if len(known) == 0 {
		known = []string{"~/.ssh/known_hosts", "~/.ssh/known_hosts2"}
	}
	for _, f := range known {
		x, err := r.expandPath(f, tok)
		if err != nil {
			return fmt.Errorf("ssh config UserKnownHostsFile: %w", err)
		}
		p.UserKnownHosts = append(p.UserKnownHosts, x)
	}
	p.GlobalKnownHosts = o.args("globalknownhostsfile")
	if len(p.GlobalKnownHosts) == 0 {
		p.GlobalKnownHosts = r.GlobalKnownHosts
	}
	// ProxyJump and ProxyCommand compete: the first one obtained wins.
	if o.before("proxyjump", "proxycommand") {
		p.ProxyJump = o.get("proxyjump")
	} else if pc := o.get("proxycommand"); pc != "" && !strings.EqualFold(pc, "none") {
		if p.ProxyCommand, err = expandTokens(pc, quoteAll(r.quote(), tok)); err != nil {
			return fmt.Errorf("ssh config ProxyCommand: %w", err)
		}
	}
	return nil
}

// keyFiles expands the files of keyword (IdentityFile, CertificateFile),
// relative to the home directory, leaving out "none".
func (r *Resolver) keyFiles(keyword string, files []string, tok map[byte]string) ([]string, error) {
	var out []string
	for _, f := range files {
		if strings.EqualFold(f, "none") {
			continue
		}
		x, err := r.expandPath(f, tok)
		if err != nil {
			return nil, fmt.Errorf("ssh config %s: %w", keyword, err)
		}
		out = append(out, underHome(x, r.Home))
	}
	return out, nil
}

// agentSocket applies IdentityAgent: "none", "SSH_AUTH_SOCK", "$VAR" or a path.
func (r *Resolver) agentSocket(v string, tok map[byte]string) (string, error) {
	switch {
	case v == "" || v == "SSH_AUTH_SOCK":
		if s, ok := r.getenv("SSH_AUTH_SOCK"); ok && s != "" {
			return s, nil
		}
		return r.DefaultAgent, nil
	case strings.EqualFold(v, "none"):
		return "", nil
	case strings.HasPrefix(v, "$"):
		s, _ := r.getenv(v[1:])
		return s, nil
	}
	x, err := r.expandPath(v, tok)
	if err != nil {
		return "", fmt.Errorf("ssh config IdentityAgent: %w", err)
	}
	return x, nil
}

// forwardAgent applies ForwardAgent: "yes" forwards the agent of
// $SSH_AUTH_SOCK; "no" (the default) none; "$VAR" the one that variable
// names; anything else is the socket's path.
func (r *Resolver) forwardAgent(v string, tok map[byte]string) (string, error) {
	switch {
	case v == "" || strings.EqualFold(v, "no") || strings.EqualFold(v, "false"):
		return "", nil
	case strings.EqualFold(v, "yes") || strings.EqualFold(v, "true"):
		s, _ := r.getenv("SSH_AUTH_SOCK")
		return s, nil
	case strings.HasPrefix(v, "$"):
		s, _ := r.getenv(v[1:])
		return s, nil
	}
	x, err := r.expandPath(v, tok)
	if err != nil {
		return "", fmt.Errorf("ssh config ForwardAgent: %w", err)
	}
	return x, nil
}

func (r *Resolver) applyPolicy(p *Host, o *hostOptions) {
	p.IdentitiesOnly = yes(o.get("identitiesonly"))
	p.StrictHostKeyChecking = strings.ToLower(o.get("stricthostkeychecking"))
	switch p.StrictHostKeyChecking {
	case "", "ask":
		p.StrictHostKeyChecking = "ask"
	case "true":
		p.StrictHostKeyChecking = "yes"
	case "off", "false":
		p.StrictHostKeyChecking = "no"
	}
	p.HashKnownHosts = yes(o.get("hashknownhosts"))
	if v := o.get("connecttimeout"); v != "" && v != "none" {
		n, _ := strconv.Atoi(v)
		p.ConnectTimeout = time.Duration(n) * time.Second
	}
	p.Family, _ = netaddr.ParseFamily(strings.ToLower(o.get("addressfamily"))) // checked when read; "" is any
	if r.Family != netaddr.AnyFamily {
		p.Family = r.Family
	}
	p.BatchMode = yes(o.get("batchmode"))
	p.PubkeyAuth = o.get("pubkeyauthentication") == "" || yes(o.get("pubkeyauthentication"))
	p.PasswordAuth = o.get("passwordauthentication") == "" || yes(o.get("passwordauthentication"))
	kbd := o.get("kbdinteractiveauthentication")
	if kbd == "" {
		kbd = o.get("challengeresponseauthentication")
	}
	p.KbdInteractiveAuth = kbd == "" || yes(kbd)
	p.PasswordPrompts = defaultPrompts
	if v := o.get("numberofpasswordprompts"); v != "" {
		p.PasswordPrompts, _ = strconv.Atoi(v)
	}
}

// Forwards are ssh_config's LocalForward, RemoteForward and DynamicForward
// lines, each in the form of the command line's -L, -R and -D.
type Forwards struct {
	Local, Remote, Dynamic []string
}

// forwardSpecs joins the arguments of each occurrence with colons:
// "LocalForward 8080 db:5432" is -L 8080:db:5432.
func forwardSpecs(occurrences [][]string) []string {
	var out []string
	for _, args := range occurrences {
		if len(args) > 0 {
			out = append(out, strings.Join(args, ":"))
		}
	}
	return out
}

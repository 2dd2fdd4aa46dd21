package bootstrap

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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

// hostParams is everything needed to reach one SSH host, after applying
// the command line and ssh_config.
type hostParams struct {
	alias          string // the name as typed (Host patterns match it)
	hostname       string // HostName, or alias
	port           int
	user           string
	identityFiles  []string
	certFiles      []string // CertificateFile entries
	identitiesOnly bool
	identityAgent  string // socket path; "" means none
	forwardAgent   string // ForwardAgent: the agent socket to forward; "" means none
	forwards       Forwards
	proxyJump      string // "" or "none" means direct
	proxyCommand   string // already token-expanded; "" means none
	userKnownHosts []string
	globalKnown    []string
	strict         string // yes, ask, accept-new, no
	hashKnownHosts bool
	connectTimeout time.Duration
	family         netaddr.Family
	batchMode      bool
	pubkeyAuth     bool
	passwordAuth   bool
	kbdAuth        bool
	passwordTries  int
	hostKeyAlias   string
	algos          algorithmSettings
	opts           *hostOptions // what the files and the command line set
}

// algorithmSettings are the ssh_config keywords about algorithms, key
// sizes, revoked keys and keepalives, resolved for one host.
type algorithmSettings struct {
	// ciphers, kex and macs are Ciphers, KexAlgorithms and MACs; nil
	// leaves x/crypto's defaults.
	ciphers, kex, macs []string
	// hostKeys is HostKeyAlgorithms; nil leaves the client's defaults.
	hostKeys []string
	// hostKeysKnownFirst puts the algorithms of the keys known_hosts
	// holds for the host first, as OpenSSH does unless HostKeyAlgorithms
	// is a list of its own or starts with '^'.
	hostKeysKnownFirst bool
	// pubkey is PubkeyAcceptedAlgorithms; nil offers every key with the
	// algorithms x/crypto and the server agree on.
	pubkey []string
	// caSignature is CASignatureAlgorithms: how host certificates may be
	// signed. Never empty.
	caSignature []string
	// requiredRSASize is RequiredRSASize: RSA host keys smaller than this
	// (in bits) are refused, user keys smaller than this are not offered.
	requiredRSASize int
	// revokedHostKeys are the RevokedHostKeys files.
	revokedHostKeys []string
	// aliveInterval and aliveCountMax are ServerAliveInterval and
	// ServerAliveCountMax; a zero interval sends no keepalives.
	aliveInterval time.Duration
	aliveCountMax int
}

// OpenSSH's defaults for the algorithm settings that have numbers.
const (
	defaultRequiredRSASize = 1024
	defaultAliveCountMax   = 3
)

// hostKeyName is the known_hosts name of the host: HostKeyAlias, or
// HostName with "[name]:port" for a non-default port.
// It is returned as host:port, the form knownhosts callbacks take; an
// alias is used verbatim (without the port), as OpenSSH does.
func (p *hostParams) hostKeyName() string {
	if a := p.hostKeyAlias; a != "" {
		if _, _, err := net.SplitHostPort(a); err == nil && strings.HasPrefix(a, "[") {
			return a // already "[host]:port"
		}
		return net.JoinHostPort(a, strconv.Itoa(defaultSSHPort))
	}
	return net.JoinHostPort(p.hostname, strconv.Itoa(p.port))
}

// dialAddr is host:port for a TCP connection.
func (p *hostParams) dialAddr() string {
	return net.JoinHostPort(p.hostname, strconv.Itoa(p.port))
}

// resolver turns destinations into hostParams.
type resolver struct {
	fs          configFS
	configFiles []string // evaluated in order
	configDirs  []string // where relative Includes of configFiles[i] resolve
	configGiven bool     // configFiles came from -F: they must exist
	home        string
	localUser   string
	family      netaddr.Family // from the command line; overrides AddressFamily unless AnyFamily
	getenv      func(string) (string, bool)
	logf        func(format string, args ...any)
	// matchExec runs Match exec commands; nil runs none (tests, fuzzing).
	matchExec func(command string) bool
	// local are the %-tokens about this machine: 'i' (uid), 'l' (host
	// name) and 'L' (its first label).
	local map[byte]string
	// cmdline are the command line's settings for the destination (ssh
	// -o, -i, -J); like ssh's, they do not apply to jump hosts.
	cmdline []cmdlineOption
	// notes names the keywords the built-in client does not honour.
	notes keywordNotes
}

// resolve applies the command line's settings and the ssh_config files
// to dest, the destination.
func (r *resolver) resolve(dest destination) (*hostParams, error) {
	return r.resolveWith(dest, r.cmdline)
}

// resolveHop applies the ssh_config files to dest, a jump host: the
// command line's settings are the destination's.
func (r *resolver) resolveHop(dest destination) (*hostParams, error) {
	return r.resolveWith(dest, nil)
}

func (r *resolver) resolveWith(dest destination, cmdline []cmdlineOption) (*hostParams, error) {
	e := &configEval{fs: r.fs, originalHost: dest.host, user: dest.user, port: dest.port,
		localUser: r.localUser, home: r.home, logf: r.logf, exec: r.matchExec, local: r.local, cmdline: cmdline}
	o, err := evalSSHConfig(e, r.configFiles, r.configDirs, r.configGiven)
	if err != nil {
		return nil, err
	}
	p := &hostParams{alias: dest.host, hostname: dest.host, port: dest.port, user: dest.user, opts: o}
	if h := o.get("hostname"); h != "" {
		if p.hostname, err = expandTokens(h, map[byte]string{'h': dest.host}); err != nil {
			return nil, fmt.Errorf("bootstrap: ssh config HostName: %w", err)
		}
	}
	if p.port == 0 {
		p.port = defaultSSHPort
		if v := o.get("port"); v != "" {
			p.port, _ = strconv.Atoi(v) // checked while parsing
		}
	}
	if p.user == "" {
		p.user = o.get("user")
	}
	if p.user == "" {
		p.user = r.localUser
	}
	p.hostKeyAlias = o.get("hostkeyalias")
	if err := r.applyPaths(p, o); err != nil {
		return nil, err
	}
	r.applyPolicy(p, o)
	if err := r.applyAlgorithms(p, o); err != nil {
		return nil, err
	}
	return p, nil
}

// tokens are the %-tokens of ssh_config(5) that gosh can fill in.
func (r *resolver) tokens(p *hostParams) map[byte]string {
	return map[byte]string{
		'h': p.hostname, 'n': p.alias, 'p': strconv.Itoa(p.port), 'r': p.user,
		'u': r.localUser, 'd': r.home, 'i': r.local['i'], 'l': r.local['l'], 'L': r.local['L'], 'k': p.hostKeyName(),
	}
}

// shellWords quotes every token as one word of a ProxyCommand line (a
// shell word on Unix, a CreateProcess argument on Windows): a user or host
// name then cannot inject a command or an argument, whatever ssh_config or
// the remote gave it. Tokens that need no
// quoting (plain names, numbers, paths) stay as they are, so a command
// that quotes them itself ("%h:%p" in double quotes) still works.
func shellWords(tok map[byte]string) map[byte]string {
	q := make(map[byte]string, len(tok))
	for k, v := range tok {
		q[k] = proxyQuote(v)
	}
	return q
}

func (r *resolver) applyPaths(p *hostParams, o *hostOptions) error {
	tok := r.tokens(p)
	files := o.each("identityfile")
	if len(files) == 0 {
		for _, f := range defaultIdentityFiles {
			files = append(files, filepath.Join(r.home, ".ssh", f))
		}
	}
	for _, f := range files {
		if strings.EqualFold(f, "none") {
			continue
		}
		x, err := expandPath(f, r.home, tok)
		if err != nil {
			return fmt.Errorf("bootstrap: ssh config IdentityFile: %w", err)
		}
		x = underHome(x, r.home)
		p.identityFiles = append(p.identityFiles, x)
	}
	for _, f := range o.each("certificatefile") {
		if strings.EqualFold(f, "none") {
			continue
		}
		x, err := expandPath(f, r.home, tok)
		if err != nil {
			return fmt.Errorf("bootstrap: ssh config CertificateFile: %w", err)
		}
		p.certFiles = append(p.certFiles, underHome(x, r.home))
	}
	var err error
	if p.identityAgent, err = r.agentSocket(o.get("identityagent"), tok); err != nil {
		return err
	}
	if p.forwardAgent, err = r.forwardAgent(o.get("forwardagent"), tok); err != nil {
		return err
	}
	p.forwards = Forwards{
		Local:   forwardSpecs(o.all["localforward"]),
		Remote:  forwardSpecs(o.all["remoteforward"]),
		Dynamic: forwardSpecs(o.all["dynamicforward"]),
	}
	known := o.args("userknownhostsfile")
	if len(known) == 0 {
		known = []string{"~/.ssh/known_hosts", "~/.ssh/known_hosts2"}
	}
	for _, f := range known {
		x, err := expandPath(f, r.home, tok)
		if err != nil {
			return fmt.Errorf("bootstrap: ssh config UserKnownHostsFile: %w", err)
		}
		p.userKnownHosts = append(p.userKnownHosts, x)
	}
	p.globalKnown = o.args("globalknownhostsfile")
	if len(p.globalKnown) == 0 {
		p.globalKnown = systemKnownHosts
	}
	// ProxyJump and ProxyCommand compete: the first one obtained wins.
	if o.before("proxyjump", "proxycommand") {
		p.proxyJump = o.get("proxyjump")
	} else if pc := o.get("proxycommand"); pc != "" && !strings.EqualFold(pc, "none") {
		if p.proxyCommand, err = expandTokens(pc, shellWords(tok)); err != nil {
			return fmt.Errorf("bootstrap: ssh config ProxyCommand: %w", err)
		}
	}
	return nil
}

// agentSocket applies IdentityAgent: "none", "SSH_AUTH_SOCK", "$VAR" or a path.
func (r *resolver) agentSocket(v string, tok map[byte]string) (string, error) {
	getenv := r.getenv
	switch {
	case v == "" || v == "SSH_AUTH_SOCK":
		if s, ok := getenv("SSH_AUTH_SOCK"); ok && s != "" {
			return s, nil
		}
		return defaultAgent, nil
	case strings.EqualFold(v, "none"):
		return "", nil
	case strings.HasPrefix(v, "$"):
		s, _ := getenv(v[1:])
		return s, nil
	}
	x, err := expandPath(v, r.home, tok)
	if err != nil {
		return "", fmt.Errorf("bootstrap: ssh config IdentityAgent: %w", err)
	}
	return x, nil
}

// forwardAgent applies ForwardAgent: "yes" forwards the agent of
// $SSH_AUTH_SOCK; "no" (the default) none; "$VAR" the one that variable
// names; anything else is the socket's path.
func (r *resolver) forwardAgent(v string, tok map[byte]string) (string, error) {
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
	x, err := expandPath(v, r.home, tok)
	if err != nil {
		return "", fmt.Errorf("bootstrap: ssh config ForwardAgent: %w", err)
	}
	return x, nil
}

func (r *resolver) applyPolicy(p *hostParams, o *hostOptions) {
	p.identitiesOnly = yes(o.get("identitiesonly"))
	p.strict = strings.ToLower(o.get("stricthostkeychecking"))
	switch p.strict {
	case "", "ask":
		p.strict = "ask"
	case "true":
		p.strict = "yes"
	case "off", "false":
		p.strict = "no"
	}
	p.hashKnownHosts = yes(o.get("hashknownhosts"))
	if v := o.get("connecttimeout"); v != "" && v != "none" {
		n, _ := strconv.Atoi(v)
		p.connectTimeout = time.Duration(n) * time.Second
	}
	p.family, _ = netaddr.ParseFamily(strings.ToLower(o.get("addressfamily"))) // checked when read; "" is any
	if r.family != netaddr.AnyFamily {
		p.family = r.family
	}
	p.batchMode = yes(o.get("batchmode"))
	p.pubkeyAuth = o.get("pubkeyauthentication") == "" || yes(o.get("pubkeyauthentication"))
	p.passwordAuth = o.get("passwordauthentication") == "" || yes(o.get("passwordauthentication"))
	kbd := o.get("kbdinteractiveauthentication")
	if kbd == "" {
		kbd = o.get("challengeresponseauthentication")
	}
	p.kbdAuth = kbd == "" || yes(kbd)
	p.passwordTries = defaultPrompts
	if v := o.get("numberofpasswordprompts"); v != "" {
		p.passwordTries, _ = strconv.Atoi(v)
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

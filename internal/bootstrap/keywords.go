package bootstrap

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// keywordUse is what the built-in client does with an ssh_config keyword.
type keywordUse uint8

const (
	// unknownKeyword is not an OpenSSH keyword (a typo, another client's
	// extension, or one newer than this table).
	unknownKeyword keywordUse = iota
	// honoured keywords change what the built-in client does.
	honoured
	// ignored keywords are OpenSSH's, but the built-in client does
	// without them: they are named under -v.
	ignored
	// securityIgnored keywords are OpenSSH's and change what is checked
	// or how (host keys, known hosts, rekeying): the built-in client does
	// without them, so they are named even without -v.
	securityIgnored
)

// keyword describes one ssh_config keyword.
type keyword struct {
	name string // as ssh_config(5) spells it
	use  keywordUse
	// same, when set, is the value (lower case) that describes what the
	// built-in client does anyway ("CheckHostIP no"): set to it, the
	// keyword is as good as honoured and is not named.
	same string
}

// keywords are OpenSSH's ssh_config keywords (9.x, with the older names
// it still accepts), by lower-case name.
var keywords = func() map[string]keyword {
	m := map[string]keyword{}
	add := func(use keywordUse, names ...string) {
		for _, n := range names {
			name, same, _ := strings.Cut(n, "=")
			m[strings.ToLower(name)] = keyword{name: name, use: use, same: same}
		}
	}
	add(honoured, "Host", "Match", "Include", "IgnoreUnknown",
		"AddressFamily", "BatchMode", "CertificateFile", "ChallengeResponseAuthentication",
		"ConnectTimeout", "DynamicForward", "ForwardAgent", "GlobalKnownHostsFile",
		"HashKnownHosts", "HostKeyAlias", "Hostname", "IdentitiesOnly", "IdentityAgent",
		"IdentityFile", "KbdInteractiveAuthentication", "LocalForward",
		"NumberOfPasswordPrompts", "PasswordAuthentication", "Port", "ProxyCommand",
		"ProxyJump", "PubkeyAuthentication", "RemoteForward", "StrictHostKeyChecking",
		"User", "UserKnownHostsFile",
		// algorithms.go
		"CASignatureAlgorithms", "Ciphers", "HostKeyAlgorithms", "KexAlgorithms", "MACs",
		"PubkeyAcceptedAlgorithms", "PubkeyAcceptedKeyTypes", "RequiredRSASize",
		"RevokedHostKeys", "ServerAliveCountMax", "ServerAliveInterval")
	add(ignored, "AddKeysToAgent=no", "BindAddress", "BindInterface", "CanonicalDomains",
		"CanonicalizeFallbackLocal", "CanonicalizeHostname=no", "CanonicalizeMaxDots",
		"CanonicalizePermittedCNAMEs", "ChannelTimeout", "ClearAllForwardings=no",
		"Compression=no", "ConnectionAttempts", "ControlMaster=no", "ControlPath=none",
		"ControlPersist=no", "EnableEscapeCommandline", "EnableSSHKeysign=no", "EscapeChar",
		"ExitOnForwardFailure", "FingerprintHash", "ForkAfterAuthentication=no",
		"ForwardX11=no", "ForwardX11Timeout", "ForwardX11Trusted", "GatewayPorts=no",
		"GSSAPIAuthentication=no", "GSSAPIClientIdentity", "GSSAPIDelegateCredentials=no",
		"GSSAPIRenewalForcesRekey", "GSSAPIServerIdentity", "GSSAPITrustDns",
		"HostbasedAuthentication=no",
		// Moot: the client does neither GSSAPI key exchange nor host-based
		// authentication, and the keywords that would turn them on are
		// named themselves (GSSAPIKeyExchange on stderr). Fedora's system
		// crypto policy sets these for every host.
		"GSSAPIKexAlgorithms", "HostbasedAcceptedAlgorithms", "HostbasedKeyTypes", "IPQoS", "KbdInteractiveDevices", "LocalCommand",
		"LogLevel", "LogVerbose", "ObscureKeystrokeTiming", "PermitLocalCommand=no",
		"PermitRemoteOpen", "PKCS11Provider=none", "PreferredAuthentications",
		"ProxyUseFdpass=no", "RemoteCommand=none", "RequestTTY", "SecurityKeyProvider",
		"SendEnv", "SessionType=default",
		"SetEnv", "StdinNull=no", "StreamLocalBindMask", "StreamLocalBindUnlink", "SyslogFacility",
		"Tag", "TCPKeepAlive", "Tunnel=no", "TunnelDevice", "UseKeychain", "VisualHostKey=no",
		"XAuthLocation")
	add(securityIgnored, "CheckHostIP=no", "GSSAPIKeyExchange=no", "KnownHostsCommand=none",
		"NoHostAuthenticationForLocalhost=no", "RefuseConnection=no", "RekeyLimit",
		"UpdateHostKeys=no", "VerifyHostKeyDNS=no", "WarnWeakCrypto")
	return m
}()

// fileOnly are the keywords that may not come from the command
// line (ssh -o refuses them too).
var fileOnly = map[string]bool{"host": true, "match": true, "include": true}

// cmdlineOption is one ssh_config setting from the command line.
type cmdlineOption struct {
	keyword string // lower case
	args    []string
}

// parseSSHOption parses one --ssh-option (ssh -o) argument: an ssh_config
// line, "Keyword=value" or "Keyword value". Unknown keywords and the
// block keywords Host, Match and Include are refused, as ssh refuses
// them; a value gosh checks in files is checked here too.
func parseSSHOption(s string) (cmdlineOption, error) {
	line := strings.TrimSpace(s)
	kw, rest := splitKeyword(line)
	if kw == "" {
		return cmdlineOption{}, fmt.Errorf("bootstrap: ssh option %q: want Keyword=value", s)
	}
	k, known := keywords[kw]
	if !known {
		return cmdlineOption{}, fmt.Errorf("bootstrap: ssh option %q: unknown ssh_config keyword", s)
	}
	if fileOnly[kw] {
		return cmdlineOption{}, fmt.Errorf("bootstrap: ssh option %q: %s works only in a file", s, k.name)
	}
	args, err := splitConfigArgs(rest)
	if rawOptions[kw] && rest != "" {
		args, err = []string{rest}, nil
	}
	if err != nil {
		return cmdlineOption{}, fmt.Errorf("bootstrap: ssh option %q: %w", s, err)
	}
	if len(args) == 0 {
		return cmdlineOption{}, fmt.Errorf("bootstrap: ssh option %q: %s needs a value", s, k.name)
	}
	if err := checkOptionValue(kw, args); err != nil {
		return cmdlineOption{}, fmt.Errorf("bootstrap: ssh option %q: %w", s, err)
	}
	if l, ok := algorithmKeywords[kw]; ok {
		// It applies to the destination whatever the files say, so a
		// list that leaves nothing is a usage error now.
		spec, _ := parseAlgorithmSpec(args[0]) // checked above
		if _, _, err := l.resolve(spec); err != nil {
			return cmdlineOption{}, fmt.Errorf("bootstrap: ssh option %q: %w", s, err)
		}
	}
	return cmdlineOption{keyword: kw, args: args}, nil
}

// CheckSSHOption reports whether s is an ssh_config line gosh accepts
// from the command line ([Config.SSHOptions], ssh -o), so that a bad one
// is a usage error before anything runs.
func CheckSSHOption(s string) error {
	_, err := parseSSHOption(s)
	return err
}

// unhonoured lists the keywords o holds that the built-in client does
// not honour, in the order they were obtained, split into those that
// change security and the others. Unknown keywords that IgnoreUnknown
// names are left out, as ssh leaves them.
func unhonoured(o *hostOptions) (security, other []string) {
	type kv struct {
		name  string
		order int
		sec   bool
	}
	var found []kv
	ignore := o.args("ignoreunknown")
	for kw, order := range o.order {
		k, known := keywords[kw]
		switch {
		case known && k.use == honoured:
			continue
		case known && k.same != "" && strings.EqualFold(o.get(kw), k.same):
			continue
		case !known && matchPatternList(kw, strings.ToLower(strings.Join(ignore, ","))):
			continue
		}
		name := k.name
		if !known {
			name = kw
		}
		found = append(found, kv{name, order, k.use == securityIgnored})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].order < found[j].order })
	for _, f := range found {
		if f.sec {
			security = append(security, f.name)
		} else {
			other = append(other, f.name)
		}
	}
	return security, other
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

// note writes what the built-in client leaves out of o: the keywords
// that change security on stderr, the others to the debug log (-v).
func (n *keywordNotes) note(o *hostOptions, host string, stderr func(string), logf func(string, ...any)) {
	security, other := unhonoured(o)
	if s := n.fresh(security); len(s) > 0 {
		stderr(fmt.Sprintf("gosh: ssh config for %s sets %s, which gosh's built-in SSH client does not honour: "+
			"it keeps its own host key checks and rekeying (--ssh runs the system ssh, which does)", host, joinAnd(s)))
	}
	if s := n.fresh(other); len(s) > 0 {
		logf("bootstrap: ssh config for %s: not honoured by the built-in client: %s", host, strings.Join(s, ", "))
	}
}

// joinAnd joins names as "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

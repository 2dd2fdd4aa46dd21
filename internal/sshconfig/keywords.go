package sshconfig

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
// it still accepts), by lower-case name, built on first use (not in
// every gosh process's start-up).
var keywords = sync.OnceValue(func() map[string]keyword {
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
})

// fileOnly are the keywords that may not come from the command
// line (ssh -o refuses them too).
var fileOnly = map[string]bool{"host": true, "match": true, "include": true}

// Option is one ssh_config setting from the command line (ssh -o, -i,
// -J), checked as the files' are: [ParseOption], [CommandLine].
type Option struct {
	keyword string // lower case
	args    []string
}

// ParseOption parses one ssh -o argument (gosh's --ssh-option): an
// ssh_config line, "Keyword=value" or "Keyword value". Unknown keywords
// and the block keywords Host, Match and Include are refused, as ssh
// refuses them; a value gosh checks in files is checked here too, and an
// algorithm list must leave an algorithm the built-in client implements.
func ParseOption(s string) (Option, error) {
	line := strings.TrimSpace(s)
	kw, rest := splitKeyword(line)
	if kw == "" {
		return Option{}, fmt.Errorf("ssh option %q: want Keyword=value", s)
	}
	k, known := keywords()[kw]
	if !known {
		return Option{}, fmt.Errorf("ssh option %q: unknown ssh_config keyword", s)
	}
	if fileOnly[kw] {
		return Option{}, fmt.Errorf("ssh option %q: %s works only in a file", s, k.name)
	}
	args, err := splitConfigArgs(rest)
	if rawOptions[kw] && rest != "" {
		args, err = []string{rest}, nil
	}
	if err != nil {
		return Option{}, fmt.Errorf("ssh option %q: %w", s, err)
	}
	if len(args) == 0 {
		return Option{}, fmt.Errorf("ssh option %q: %s needs a value", s, k.name)
	}
	if err := checkOptionValue(kw, args); err != nil {
		return Option{}, fmt.Errorf("ssh option %q: %w", s, err)
	}
	if l, ok := algorithmKeywords()[kw]; ok {
		// It applies to the destination whatever the files say, so a
		// list that leaves nothing is a usage error now.
		spec, _ := parseAlgorithmSpec(args[0]) // checked above
		if _, _, err := l.resolve(spec); err != nil {
			return Option{}, fmt.Errorf("ssh option %q: %w", s, err)
		}
	}
	return Option{keyword: kw, args: args}, nil
}

// CommandLine is the command line's ssh_config settings, in the order
// they are obtained: jump (ssh -J, a [CheckJump] list; "" for none), the
// identity files (ssh -i), then the options (ssh -o, as [ParseOption]
// reads them).
func CommandLine(jump string, identities, options []string) ([]Option, error) {
	var opts []Option
	if jump != "" {
		if err := CheckJump(jump); err != nil {
			return nil, err
		}
		opts = append(opts, Option{keyword: "proxyjump", args: []string{jump}})
	}
	for _, f := range identities {
		if f == "" {
			return nil, fmt.Errorf("empty identity file name")
		}
		opts = append(opts, Option{keyword: "identityfile", args: []string{f}})
	}
	for _, s := range options {
		o, err := ParseOption(s)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	return opts, nil
}

// Unhonoured lists the keywords set for h that the built-in client does
// not honour, in the order they were obtained, split into those that
// change security (how host keys are checked, rekeying) and the others.
// A keyword set to what the client does anyway ("CheckHostIP no") is
// left out, and so are unknown keywords that IgnoreUnknown names, as ssh
// leaves them.
func (h *Host) Unhonoured() (security, other []string) {
	if h.opts == nil {
		return nil, nil
	}
	return unhonoured(h.opts)
}

func unhonoured(o *hostOptions) (security, other []string) {
	type kv struct {
		name  string
		order int
		sec   bool
	}
	var found []kv
	ignore := o.args("ignoreunknown")
	for kw, order := range o.order {
		k, known := keywords()[kw]
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

package sshconfig

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// algorithmList is one of ssh_config's algorithm keywords (Ciphers,
// KexAlgorithms, MACs, HostKeyAlgorithms, PubkeyAcceptedAlgorithms,
// CASignatureAlgorithms) as the built-in client implements it.
//
// A value is a comma-separated list of names, as ssh_config(5) has it:
// on its own it replaces the default set; starting with '+' it is
// appended to the default set, with '^' placed at its head, and with '-'
// the names are removed from it. Names may be patterns with '*' and '?'
// (OpenSSH documents them for '-' lists; gosh takes them in all four
// forms). The names are OpenSSH's, which are also x/crypto's.
type algorithmList struct {
	name string // the keyword, as ssh_config(5) spells it
	what string // what one name is, for messages ("cipher")
	// known are the names the built-in client implements, in its order
	// of preference; others in a list are skipped (OpenSSH implements
	// some that x/crypto does not, such as umac-128@openssh.com).
	known []string
	// defaults is the set a '+', '-' or '^' list changes: x/crypto's
	// algorithms without known weaknesses, in its order of preference.
	defaults []string
}

// certAlgorithms maps each plain signature algorithm to its certificate
// form (ssh-ed25519 to ssh-ed25519-cert-v01@openssh.com).
var certAlgorithms = map[string]string{
	ssh.KeyAlgoRSA:         ssh.CertAlgoRSAv01,
	ssh.KeyAlgoRSASHA256:   ssh.CertAlgoRSASHA256v01,
	ssh.KeyAlgoRSASHA512:   ssh.CertAlgoRSASHA512v01,
	ssh.InsecureKeyAlgoDSA: ssh.InsecureCertAlgoDSAv01,
	ssh.KeyAlgoECDSA256:    ssh.CertAlgoECDSA256v01,
	ssh.KeyAlgoECDSA384:    ssh.CertAlgoECDSA384v01,
	ssh.KeyAlgoECDSA521:    ssh.CertAlgoECDSA521v01,
	ssh.KeyAlgoED25519:     ssh.CertAlgoED25519v01,
	ssh.KeyAlgoSKECDSA256:  ssh.CertAlgoSKECDSA256v01,
	ssh.KeyAlgoSKED25519:   ssh.CertAlgoSKED25519v01,
}

// PlainAlgorithm is the signature algorithm under a certificate algorithm
// (ssh-ed25519 for ssh-ed25519-cert-v01@openssh.com), or algo itself.
func PlainAlgorithm(algo string) string {
	for plain, cert := range certAlgorithms {
		if cert == algo {
			return plain
		}
	}
	return algo
}

// withCerts returns algos, each followed by its certificate form.
func withCerts(algos []string) []string {
	var out []string
	for _, a := range algos {
		out = append(out, a)
		if c, ok := certAlgorithms[a]; ok {
			out = append(out, c)
		}
	}
	return out
}

// algorithmKeywords returns the algorithm lists by lower-case keyword,
// with OpenSSH's older names for the same settings. x/crypto's lists are
// read on first use, not in every gosh process's start-up (only a
// connection over ssh needs them); the client's kex list also takes the
// pre-RFC name of curve25519-sha256, which x/crypto implements and adds
// on its own.
var algorithmKeywords = sync.OnceValue(func() map[string]*algorithmList {
	supportedAlgos := ssh.SupportedAlgorithms()
	insecureAlgos := ssh.InsecureAlgorithms()
	pubkeyList := &algorithmList{name: "PubkeyAcceptedAlgorithms", what: "public key algorithm",
		known:    withCerts(slices.Concat(supportedAlgos.PublicKeyAuths, insecureAlgos.PublicKeyAuths)),
		defaults: withCerts(supportedAlgos.PublicKeyAuths)}
	return map[string]*algorithmList{
		"ciphers": {name: "Ciphers", what: "cipher",
			known:    slices.Concat(supportedAlgos.Ciphers, insecureAlgos.Ciphers),
			defaults: supportedAlgos.Ciphers},
		"kexalgorithms": {name: "KexAlgorithms", what: "key exchange",
			known:    slices.Concat(supportedAlgos.KeyExchanges, []string{"curve25519-sha256@libssh.org"}, insecureAlgos.KeyExchanges),
			defaults: supportedAlgos.KeyExchanges},
		"macs": {name: "MACs", what: "MAC",
			known:    slices.Concat(supportedAlgos.MACs, insecureAlgos.MACs),
			defaults: supportedAlgos.MACs},
		"hostkeyalgorithms": {name: "HostKeyAlgorithms", what: "host key algorithm",
			known:    slices.Concat(supportedAlgos.HostKeys, insecureAlgos.HostKeys),
			defaults: supportedAlgos.HostKeys},
		"pubkeyacceptedalgorithms": pubkeyList,
		"pubkeyacceptedkeytypes":   pubkeyList,
		"casignaturealgorithms": {name: "CASignatureAlgorithms", what: "CA signature algorithm",
			known:    slices.Concat(supportedAlgos.PublicKeyAuths, insecureAlgos.PublicKeyAuths),
			defaults: supportedAlgos.PublicKeyAuths},
	}
})

// AlgorithmKeyword describes an algorithm keyword given in lower case
// ("ciphers", "kexalgorithms", "macs", "hostkeyalgorithms",
// "pubkeyacceptedalgorithms", "casignaturealgorithms"): its name as
// ssh_config(5) spells it and the algorithms of its list the built-in
// client implements, in its order of preference. ok is false for other
// keywords.
func AlgorithmKeyword(keyword string) (name string, known []string, ok bool) {
	l, ok := algorithmKeywords()[keyword]
	if !ok {
		return "", nil, false
	}
	return keywords()[keyword].name, slices.Clone(l.known), true
}

// algorithmSpec is a parsed algorithm list value.
type algorithmSpec struct {
	op       byte     // 0 (replace the defaults), '+', '-' or '^'
	patterns []string // names, possibly with '*' and '?'
}

// maxAlgorithmNames bounds the names of one list.
const maxAlgorithmNames = 256

// parseAlgorithmSpec parses an algorithm list value. It checks the
// syntax only: names the client does not implement are the resolver's
// business. Negated names ("!name") are refused, as OpenSSH refuses them.
func parseAlgorithmSpec(s string) (algorithmSpec, error) {
	var spec algorithmSpec
	if s != "" && strings.IndexByte("+-^", s[0]) >= 0 {
		spec.op, s = s[0], s[1:]
	}
	if s == "" {
		return spec, errors.New("empty algorithm list")
	}
	names := strings.Split(s, ",")
	if len(names) > maxAlgorithmNames {
		return spec, fmt.Errorf("more than %d algorithms", maxAlgorithmNames)
	}
	for _, n := range names {
		if n == "" {
			return spec, fmt.Errorf("empty name in algorithm list %q", s)
		}
		for _, c := range n {
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.@*?", c)
			if !ok {
				return spec, fmt.Errorf("bad character %q in algorithm name %q", c, n)
			}
		}
	}
	spec.patterns = names
	return spec, nil
}

// matchAlgorithm reports whether the algorithm name matches pattern.
// Algorithm names are compared case-sensitively, as OpenSSH does.
func matchAlgorithm(name, pattern string) bool {
	if !strings.ContainsAny(pattern, "*?") {
		return name == pattern
	}
	return pattern == strings.ToLower(pattern) && matchPattern(name, pattern)
}

// resolve applies spec to the list's defaults. It returns the algorithms
// in order of preference and the names (or patterns) that matched nothing
// the client implements, which are skipped; a result with no algorithm
// is an error naming what the client does implement.
func (l *algorithmList) resolve(spec algorithmSpec) (algos, skipped []string, err error) {
	var entries []string
	switch spec.op {
	case 0:
		entries = spec.patterns
	case '+':
		entries = slices.Concat(l.defaults, spec.patterns)
	case '^':
		entries = slices.Concat(spec.patterns, l.defaults)
	case '-':
		for _, a := range l.defaults {
			if !slices.ContainsFunc(spec.patterns, func(p string) bool { return matchAlgorithm(a, p) }) {
				entries = append(entries, a)
			}
		}
	}
	for _, e := range entries {
		matched := false
		for _, k := range l.known {
			if matchAlgorithm(k, e) {
				matched = true
				if !slices.Contains(algos, k) {
					algos = append(algos, k)
				}
			}
		}
		if !matched && !slices.Contains(skipped, e) {
			skipped = append(skipped, e)
		}
	}
	if len(algos) == 0 {
		return nil, skipped, fmt.Errorf("%s %s leaves no %s that gosh's built-in SSH client implements (it has %s; --ssh runs the system ssh)",
			l.name, spec, l.what, strings.Join(l.known, ","))
	}
	return algos, skipped, nil
}

// String is the list as written.
func (s algorithmSpec) String() string {
	op := ""
	if s.op != 0 {
		op = string(s.op)
	}
	return op + strings.Join(s.patterns, ",")
}

// KeyAlgorithms returns the signature algorithms a key of type keyType (a
// PublicKey.Type, possibly a certificate's) may use under the algorithms
// allowed (PubkeyAcceptedAlgorithms), in the order of allowed; none means
// the key may not be used. An RSA key allows rsa-sha2-512, rsa-sha2-256
// and ssh-rsa, an RSA certificate their certificate forms.
func KeyAlgorithms(keyType string, allowed []string) []string {
	var forms []string
	switch keyType {
	case ssh.KeyAlgoRSA:
		forms = []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	case ssh.CertAlgoRSAv01:
		forms = []string{ssh.CertAlgoRSASHA512v01, ssh.CertAlgoRSASHA256v01, ssh.CertAlgoRSAv01}
	default:
		forms = []string{keyType}
	}
	var out []string
	for _, a := range allowed {
		if slices.Contains(forms, a) {
			out = append(out, a)
		}
	}
	return out
}

// applyAlgorithms resolves the algorithm keywords of o into p.Algorithms.
// A list that leaves nothing the client implements is an error, as
// OpenSSH refuses such a list: connecting with other algorithms than the
// configuration allows would be a silent downgrade.
func (r *Resolver) applyAlgorithms(p *Host, o *hostOptions) error {
	a := &p.Algorithms
	lists := algorithmKeywords()
	list := func(keyword string, l *algorithmList) ([]string, byte, error) {
		v := o.get(keyword)
		if v == "" {
			return nil, 0, nil
		}
		spec, err := parseAlgorithmSpec(v)
		if err != nil {
			return nil, 0, fmt.Errorf("ssh config %s: %w", l.name, err) // checked when read
		}
		algos, skipped, err := l.resolve(spec)
		if err != nil {
			return nil, 0, fmt.Errorf("ssh config: %w", err)
		}
		if len(skipped) > 0 {
			r.Logf.Printf("ssh config %s: skipping %s (not implemented by the built-in client)", l.name, strings.Join(skipped, ","))
		}
		return algos, spec.op, nil
	}
	var err error
	if a.Ciphers, _, err = list("ciphers", lists["ciphers"]); err != nil {
		return err
	}
	if a.Kex, _, err = list("kexalgorithms", lists["kexalgorithms"]); err != nil {
		return err
	}
	if a.MACs, _, err = list("macs", lists["macs"]); err != nil {
		return err
	}
	var op byte
	if a.HostKeys, op, err = list("hostkeyalgorithms", lists["hostkeyalgorithms"]); err != nil {
		return err
	}
	a.HostKeysKnownFirst = a.HostKeys == nil || op == '+' || op == '-'
	pubkey := "pubkeyacceptedalgorithms"
	if o.before("pubkeyacceptedkeytypes", pubkey) {
		pubkey = "pubkeyacceptedkeytypes" // the older name, obtained first
	}
	if a.Pubkey, _, err = list(pubkey, lists[pubkey]); err != nil {
		return err
	}
	if a.CASignature, _, err = list("casignaturealgorithms", lists["casignaturealgorithms"]); err != nil {
		return err
	}
	if a.CASignature == nil {
		a.CASignature = lists["casignaturealgorithms"].defaults
	}
	return r.applyLimits(p, o)
}

// applyLimits resolves RequiredRSASize, RevokedHostKeys and the
// ServerAlive keywords of o into p.Algorithms.
func (r *Resolver) applyLimits(p *Host, o *hostOptions) error {
	a := &p.Algorithms
	a.RequiredRSASize = defaultRequiredRSASize
	if v := o.get("requiredrsasize"); v != "" {
		a.RequiredRSASize, _ = strconv.Atoi(v) // checked when read
	}
	tok := r.tokens(p)
	for _, f := range o.args("revokedhostkeys") {
		if strings.EqualFold(f, "none") {
			break
		}
		x, err := r.expandPath(f, tok)
		if err != nil {
			return fmt.Errorf("ssh config RevokedHostKeys: %w", err)
		}
		a.RevokedHostKeys = append(a.RevokedHostKeys, underHome(x, r.Home))
	}
	a.AliveInterval, _ = parseConfigTime(o.get("serveraliveinterval")) // checked when read; "" is 0
	a.AliveCountMax = defaultAliveCountMax
	if v := o.get("serveralivecountmax"); v != "" {
		a.AliveCountMax, _ = strconv.Atoi(v) // checked when read
	}
	return nil
}

// maxConfigTime bounds a time in ssh_config, as OpenSSH bounds it (the
// largest int of seconds).
const maxConfigTime = 1<<31 - 1

// parseConfigTime parses an ssh_config time (sshd_config(5) TIME FORMATS):
// a sequence of numbers, each with an optional unit s, m, h, d or w
// (seconds without one), added up: "90", "1m30s". "" is 0.
func parseConfigTime(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	var total, n int64
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			n = n*10 + int64(c-'0')
			digits = true
			if n > maxConfigTime {
				return 0, fmt.Errorf("time %q is too large", s)
			}
			continue
		}
		var unit int64
		switch c {
		case 's', 'S':
			unit = 1
		case 'm', 'M':
			unit = 60
		case 'h', 'H':
			unit = 60 * 60
		case 'd', 'D':
			unit = 24 * 60 * 60
		case 'w', 'W':
			unit = 7 * 24 * 60 * 60
		default:
			return 0, fmt.Errorf("bad time %q", s)
		}
		if !digits {
			return 0, fmt.Errorf("bad time %q", s)
		}
		total += n * unit
		n, digits = 0, false
		if total > maxConfigTime {
			return 0, fmt.Errorf("time %q is too large", s)
		}
	}
	total += n
	if total > maxConfigTime {
		return 0, fmt.Errorf("time %q is too large", s)
	}
	return time.Duration(total) * time.Second, nil
}

package sshconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

func TestParseAlgorithmSpec(t *testing.T) {
	tests := []struct {
		in       string
		op       byte
		patterns []string
		err      string
	}{
		{in: "aes128-ctr", patterns: []string{"aes128-ctr"}},
		{in: "+aes128-cbc,3des-cbc", op: '+', patterns: []string{"aes128-cbc", "3des-cbc"}},
		{in: "-*-cbc", op: '-', patterns: []string{"*-cbc"}},
		{in: "^chacha20-poly1305@openssh.com", op: '^', patterns: []string{"chacha20-poly1305@openssh.com"}},
		{in: "sntrup761x25519-sha512@openssh.com", patterns: []string{"sntrup761x25519-sha512@openssh.com"}},
		{in: "", err: "empty algorithm list"},
		{in: "+", err: "empty algorithm list"},
		{in: "aes128-ctr,", err: "empty name"},
		{in: ",aes128-ctr", err: "empty name"},
		{in: "aes128-ctr,,aes256-ctr", err: "empty name"},
		{in: "!aes128-cbc", err: "bad character '!'"},
		{in: "aes128-ctr aes256-ctr", err: "bad character ' '"},
		{in: "++aes128-ctr", err: "bad character '+'"},
		{in: "aes128-ctr;rm", err: "bad character ';'"},
		{in: strings.Repeat("a,", maxAlgorithmNames) + "a", err: "more than"},
	}
	for _, tc := range tests {
		got, err := parseAlgorithmSpec(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseAlgorithmSpec(%q) = %+v, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got.op != tc.op || !slices.Equal(got.patterns, tc.patterns) {
			t.Errorf("parseAlgorithmSpec(%q) = %+v, %v; want %q %q", tc.in, got, err, tc.op, tc.patterns)
		}
		if got.String() != tc.in {
			t.Errorf("parseAlgorithmSpec(%q).String() = %q", tc.in, got.String())
		}
	}
}

// without returns list without the names in drop.
func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(drop, s) })
}

// TestResolveAlgorithms resolves lists against x/crypto's sets: the
// default set is its algorithms without known weaknesses, names it lacks
// are skipped, and a list that leaves none is an error.
func TestResolveAlgorithms(t *testing.T) {
	sup := ssh.SupportedAlgorithms()
	tests := []struct {
		list    *algorithmList
		value   string
		want    []string
		skipped []string
		err     string
	}{
		{list: algorithmKeywords()["ciphers"], value: "aes128-ctr", want: []string{"aes128-ctr"}},
		{list: algorithmKeywords()["ciphers"], value: "aes256-ctr,aes128-gcm@openssh.com", want: []string{"aes256-ctr", "aes128-gcm@openssh.com"}},
		{list: algorithmKeywords()["ciphers"], value: "+aes128-cbc", want: append(slices.Clone(sup.Ciphers), "aes128-cbc")},
		{list: algorithmKeywords()["ciphers"], value: "+aes128-ctr", want: sup.Ciphers}, // already there: no duplicate
		{list: algorithmKeywords()["ciphers"], value: "-*-gcm@openssh.com", want: without(sup.Ciphers, "aes128-gcm@openssh.com", "aes256-gcm@openssh.com")},
		{list: algorithmKeywords()["ciphers"], value: "-aes128-ctr,aes256-ctr", want: without(sup.Ciphers, "aes128-ctr", "aes256-ctr")},
		{list: algorithmKeywords()["ciphers"], value: "^chacha20-poly1305@openssh.com",
			want: append([]string{"chacha20-poly1305@openssh.com"}, without(sup.Ciphers, "chacha20-poly1305@openssh.com")...)},
		{list: algorithmKeywords()["ciphers"], value: "aes*-ctr", want: []string{"aes128-ctr", "aes192-ctr", "aes256-ctr"}},
		{list: algorithmKeywords()["ciphers"], value: "aes256-cbc,aes128-ctr", want: []string{"aes128-ctr"}, skipped: []string{"aes256-cbc"}},
		{list: algorithmKeywords()["ciphers"], value: "aes256-cbc", skipped: []string{"aes256-cbc"}, err: "Ciphers aes256-cbc leaves no cipher"},
		{list: algorithmKeywords()["ciphers"], value: "AES128-CTR", skipped: []string{"AES128-CTR"}, err: "leaves no cipher"}, // names are case-sensitive
		{list: algorithmKeywords()["ciphers"], value: "-*", err: "Ciphers -* leaves no cipher"},
		{list: algorithmKeywords()["kexalgorithms"], value: "sntrup761x25519-sha512@openssh.com,curve25519-sha256",
			want: []string{"curve25519-sha256"}, skipped: []string{"sntrup761x25519-sha512@openssh.com"}},
		{list: algorithmKeywords()["kexalgorithms"], value: "mlkem768x25519-sha256", want: []string{"mlkem768x25519-sha256"}},
		{list: algorithmKeywords()["kexalgorithms"], value: "curve25519-sha256@libssh.org", want: []string{"curve25519-sha256@libssh.org"}},
		{list: algorithmKeywords()["kexalgorithms"], value: "+diffie-hellman-group14-sha1", want: append(slices.Clone(sup.KeyExchanges), "diffie-hellman-group14-sha1")},
		{list: algorithmKeywords()["macs"], value: "umac-128-etm@openssh.com,hmac-sha2-256-etm@openssh.com",
			want: []string{"hmac-sha2-256-etm@openssh.com"}, skipped: []string{"umac-128-etm@openssh.com"}},
		{list: algorithmKeywords()["macs"], value: "hmac-md5", skipped: []string{"hmac-md5"}, err: "leaves no MAC"},
		{list: algorithmKeywords()["hostkeyalgorithms"], value: "+ssh-rsa", want: append(slices.Clone(sup.HostKeys), "ssh-rsa")},
		{list: algorithmKeywords()["hostkeyalgorithms"], value: "ssh-ed25519-cert-v01@openssh.com,ssh-ed25519",
			want: []string{"ssh-ed25519-cert-v01@openssh.com", "ssh-ed25519"}},
		{list: algorithmKeywords()["hostkeyalgorithms"], value: "sk-ssh-ed25519@openssh.com", skipped: []string{"sk-ssh-ed25519@openssh.com"}, err: "leaves no host key algorithm"},
		{list: algorithmKeywords()["pubkeyacceptedalgorithms"], value: "rsa-sha2-256-cert-v01@openssh.com,ssh-ed25519",
			want: []string{"rsa-sha2-256-cert-v01@openssh.com", "ssh-ed25519"}},
		{list: algorithmKeywords()["pubkeyacceptedalgorithms"], value: "-ssh-rsa*", want: algorithmKeywords()["pubkeyacceptedalgorithms"].defaults}, // ssh-rsa is not in the default set
		{list: algorithmKeywords()["pubkeyacceptedalgorithms"], value: "+ssh-rsa", want: append(slices.Clone(algorithmKeywords()["pubkeyacceptedalgorithms"].defaults), "ssh-rsa")},
		{list: algorithmKeywords()["casignaturealgorithms"], value: "ssh-ed25519-cert-v01@openssh.com", skipped: []string{"ssh-ed25519-cert-v01@openssh.com"},
			err: "leaves no CA signature algorithm"},
		{list: algorithmKeywords()["casignaturealgorithms"], value: "-rsa-sha2-*", want: without(sup.PublicKeyAuths, "rsa-sha2-256", "rsa-sha2-512")},
	}
	for _, tc := range tests {
		spec, err := parseAlgorithmSpec(tc.value)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.list.name, tc.value, err)
		}
		got, skipped, err := tc.list.resolve(spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s %s = %q, %v; want one line containing %q", tc.list.name, tc.value, got, err, tc.err)
			}
		} else if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s %s = %q, %v; want %q", tc.list.name, tc.value, got, err, tc.want)
		}
		if !slices.Equal(skipped, tc.skipped) {
			t.Errorf("%s %s skipped %q, want %q", tc.list.name, tc.value, skipped, tc.skipped)
		}
	}
}

// TestAlgorithmSets: every name the lists take is one x/crypto
// implements: a handshake configured with it does not drop it.
func TestAlgorithmSets(t *testing.T) {
	for _, l := range []*algorithmList{algorithmKeywords()["ciphers"], algorithmKeywords()["kexalgorithms"], algorithmKeywords()["macs"]} {
		c := ssh.Config{Ciphers: l.known, KeyExchanges: l.known, MACs: l.known}
		c.SetDefaults()
		var kept []string
		switch l {
		case algorithmKeywords()["ciphers"]:
			kept = c.Ciphers
		case algorithmKeywords()["kexalgorithms"]:
			kept = c.KeyExchanges
		case algorithmKeywords()["macs"]:
			kept = c.MACs
		}
		for _, a := range l.known {
			if !slices.Contains(kept, a) {
				t.Errorf("%s: x/crypto does not implement %s", l.name, a)
			}
		}
		for _, a := range l.defaults {
			if !slices.Contains(l.known, a) {
				t.Errorf("%s: default %s is not known", l.name, a)
			}
		}
	}
	for _, a := range algorithmKeywords()["pubkeyacceptedalgorithms"].known {
		if a != PlainAlgorithm(a) && !slices.Contains(algorithmKeywords()["casignaturealgorithms"].known, PlainAlgorithm(a)) {
			t.Errorf("certificate algorithm %s: its plain form %s is not a signature algorithm", a, PlainAlgorithm(a))
		}
	}
}

// testdata/fedora holds Fedora's (and RHEL's) system crypto policy for
// the OpenSSH client. openssh.config is what crypto-policies (DEFAULT)
// writes in /etc/crypto-policies/back-ends/openssh.config: names OpenSSH
// knows and x/crypto does not (umac, hmac-sha1-etm, mlkem768nistp256,
// group18) among the others. 50-redhat.conf is how
// /etc/ssh/ssh_config.d/50-redhat.conf brings the policy in, for every
// host, after the user's own settings. internal/bootstrap's end-to-end
// tests read them too.

// readTestdata returns the contents of testdata/name.
func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFedoraPolicy: the system crypto policy of Fedora and RHEL resolves
// to what x/crypto implements of it, and nothing of it is named on
// stderr.
func TestFedoraPolicy(t *testing.T) {
	r := testResolver(map[string]string{
		"/etc/ssh/ssh_config":                           "Include /etc/ssh/ssh_config.d/*.conf\n",
		"/etc/ssh/ssh_config.d/50-redhat.conf":          readTestdata(t, "fedora/50-redhat.conf"),
		"/etc/crypto-policies/back-ends/openssh.config": readTestdata(t, "fedora/openssh.config"),
	})
	var logged []string
	r.Logf = func(f string, args ...any) { logged = append(logged, f) }
	p, err := r.Resolve(Destination{Host: "web"})
	if err != nil {
		t.Fatal(err)
	}
	a := p.Algorithms
	check := func(name string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	check("Ciphers", a.Ciphers, []string{"aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com", "aes256-ctr", "aes128-gcm@openssh.com", "aes128-ctr"})
	check("MACs", a.MACs, []string{"hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com", "hmac-sha2-256", "hmac-sha1", "hmac-sha2-512"})
	check("KexAlgorithms", a.Kex, []string{"mlkem768x25519-sha256", "curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256",
		"ecdh-sha2-nistp384", "ecdh-sha2-nistp521", "diffie-hellman-group-exchange-sha256", "diffie-hellman-group14-sha256", "diffie-hellman-group16-sha512"})
	check("PubkeyAcceptedAlgorithms", a.Pubkey, []string{"ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256-cert-v01@openssh.com",
		"sk-ecdsa-sha2-nistp256@openssh.com", "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384-cert-v01@openssh.com", "ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521-cert-v01@openssh.com",
		"ssh-ed25519", "ssh-ed25519-cert-v01@openssh.com", "sk-ssh-ed25519@openssh.com", "sk-ssh-ed25519-cert-v01@openssh.com", "rsa-sha2-256", "rsa-sha2-256-cert-v01@openssh.com", "rsa-sha2-512", "rsa-sha2-512-cert-v01@openssh.com"})
	check("CASignatureAlgorithms", a.CASignature, []string{"ecdsa-sha2-nistp256", "sk-ecdsa-sha2-nistp256@openssh.com", "ecdsa-sha2-nistp384",
		"ecdsa-sha2-nistp521", "ssh-ed25519", "sk-ssh-ed25519@openssh.com", "rsa-sha2-256", "rsa-sha2-512"})
	if a.HostKeys != nil || !a.HostKeysKnownFirst || a.RequiredRSASize != 2048 {
		t.Errorf("host keys %q (known first %v), RequiredRSASize %d; want the defaults, known first, 2048", a.HostKeys, a.HostKeysKnownFirst, a.RequiredRSASize)
	}
	if sec, _ := p.Unhonoured(); len(sec) > 0 {
		t.Errorf("named on stderr: %q", sec)
	}
	if !slices.ContainsFunc(logged, func(s string) bool { return strings.Contains(s, "skipping") }) {
		t.Errorf("the log does not say which names were skipped: %q", logged)
	}
}

func TestResolveAlgorithmSettings(t *testing.T) {
	tests := []struct {
		config string
		check  func(a Algorithms) bool
		err    string
	}{
		{config: "", check: func(a Algorithms) bool {
			return a.Ciphers == nil && a.Kex == nil && a.MACs == nil && a.HostKeys == nil && a.HostKeysKnownFirst && a.Pubkey == nil &&
				slices.Equal(a.CASignature, algorithmKeywords()["casignaturealgorithms"].defaults) && a.RequiredRSASize == 1024 && a.AliveInterval == 0 && a.AliveCountMax == 3 &&
				a.RevokedHostKeys == nil
		}},
		{config: "HostKeyAlgorithms ssh-ed25519\n", check: func(a Algorithms) bool {
			return slices.Equal(a.HostKeys, []string{"ssh-ed25519"}) && !a.HostKeysKnownFirst
		}},
		{config: "HostKeyAlgorithms ^ssh-ed25519\n", check: func(a Algorithms) bool { return !a.HostKeysKnownFirst }},
		{config: "HostKeyAlgorithms +ssh-rsa\n", check: func(a Algorithms) bool { return a.HostKeysKnownFirst }},
		{config: "HostKeyAlgorithms -ecdsa*\n", check: func(a Algorithms) bool { return a.HostKeysKnownFirst }},
		// The first obtained of the two names wins.
		{config: "PubkeyAcceptedKeyTypes ssh-ed25519\nPubkeyAcceptedAlgorithms rsa-sha2-512\n", check: func(a Algorithms) bool {
			return slices.Equal(a.Pubkey, []string{"ssh-ed25519"})
		}},
		{config: "RevokedHostKeys ~/revoked /etc/ssh/revoked_%h\nServerAliveInterval 1m30s\nServerAliveCountMax 0\n", check: func(a Algorithms) bool {
			return slices.Equal(slashed(a.RevokedHostKeys), []string{"/home/u/revoked", "/etc/ssh/revoked_web"}) &&
				a.AliveInterval == 90*time.Second && a.AliveCountMax == 0
		}},
		{config: "RevokedHostKeys none\n", check: func(a Algorithms) bool { return a.RevokedHostKeys == nil }},
		{config: "Ciphers aes256-cbc\n", err: "Ciphers aes256-cbc leaves no cipher"},
		{config: "Ciphers aes128-ctr aes256-ctr\n", err: "one comma-separated list"},
		{config: "MACs hmac-sha2-256,\n", err: "empty name"},
		{config: "RequiredRSASize big\n", err: "bad RequiredRSASize"},
		{config: "ServerAliveInterval 5x\n", err: "bad ServerAliveInterval"},
		{config: "ServerAliveCountMax -1\n", err: "bad ServerAliveCountMax"},
		{config: "RevokedHostKeys none /x\n", err: "must stand alone"},
		// A list for another host is checked but not resolved: OpenSSH
		// implements some names x/crypto does not.
		{config: "Host legacy\n  Ciphers aes256-cbc\n", check: func(a Algorithms) bool { return a.Ciphers == nil }},
	}
	for _, tc := range tests {
		r := testResolver(map[string]string{"/home/u/.ssh/config": tc.config})
		p, err := r.Resolve(Destination{Host: "web"})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: resolve = %v, want one line containing %q", tc.config, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.config, err)
			continue
		}
		if !tc.check(p.Algorithms) {
			t.Errorf("%q: got %+v", tc.config, p.Algorithms)
		}
	}
}

func TestSSHOptionAlgorithms(t *testing.T) {
	for _, s := range []string{"Ciphers=aes128-ctr", "KexAlgorithms=-ecdh-*", "MACs=+hmac-sha1-96", "PubkeyAcceptedAlgorithms ^ssh-ed25519"} {
		if _, err := ParseOption(s); err != nil {
			t.Errorf("ParseOption(%q) = %v", s, err)
		}
	}
	for s, want := range map[string]string{
		"Ciphers=aes256-cbc":          "leaves no cipher",
		"HostKeyAlgorithms=ssh-ed448": "leaves no host key algorithm",
		"KexAlgorithms=a,,b":          "empty name",
	} {
		if _, err := ParseOption(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOption(%q) = %v, want an error containing %q", s, err, want)
		}
	}
}

func TestParseConfigTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, true}, {"0", 0, true}, {"30", 30 * time.Second, true}, {"30s", 30 * time.Second, true},
		{"1m30s", 90 * time.Second, true}, {"1m30", 90 * time.Second, true}, {"2H", 2 * time.Hour, true},
		{"1w1d", 8 * 24 * time.Hour, true}, {"2147483647", 2147483647 * time.Second, true},
		{"s", 0, false}, {"1x", 0, false}, {"-1", 0, false}, {"1 m", 0, false}, {"2147483648", 0, false},
		{"99999999999999999999", 0, false}, {"9999999w", 0, false}, {"1mm", 0, false},
	}
	for _, tc := range tests {
		got, err := parseConfigTime(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseConfigTime(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestKeyTypeAllowed(t *testing.T) {
	all := algorithmKeywords()["pubkeyacceptedalgorithms"].known
	tests := []struct {
		keyType string
		allowed []string
		want    []string
	}{
		{ssh.KeyAlgoED25519, all, []string{ssh.KeyAlgoED25519}},
		{ssh.KeyAlgoRSA, []string{"rsa-sha2-256", "ssh-ed25519", "rsa-sha2-512"}, []string{"rsa-sha2-256", "rsa-sha2-512"}},
		{ssh.KeyAlgoRSA, []string{"ssh-ed25519"}, nil},
		{ssh.CertAlgoRSAv01, []string{"rsa-sha2-512", "rsa-sha2-512-cert-v01@openssh.com"}, []string{"rsa-sha2-512-cert-v01@openssh.com"}},
		{ssh.CertAlgoED25519v01, []string{"ssh-ed25519"}, nil},
	}
	for _, tc := range tests {
		if got := KeyAlgorithms(tc.keyType, tc.allowed); !slices.Equal(got, tc.want) {
			t.Errorf("KeyAlgorithms(%s, %q) = %q, want %q", tc.keyType, tc.allowed, got, tc.want)
		}
	}
}

// FuzzAlgorithmList: any value parses or is refused without a panic, and
// what resolves holds only names the client implements, once each, never
// nothing; a '-' list keeps none it names, a plain list only names it has.
func FuzzAlgorithmList(f *testing.F) {
	for _, s := range []string{"aes128-ctr", "+aes128-cbc", "-*-cbc,hmac-*", "^ssh-ed25519", "a,,b", "*", "-*", "!x", "?es128-ctr",
		"rsa-sha2-256-cert-v01@openssh.com", "umac-128@openssh.com,hmac-sha2-256"} {
		f.Add(s)
	}
	lists := []*algorithmList{algorithmKeywords()["ciphers"], algorithmKeywords()["kexalgorithms"], algorithmKeywords()["macs"], algorithmKeywords()["hostkeyalgorithms"], algorithmKeywords()["pubkeyacceptedalgorithms"], algorithmKeywords()["casignaturealgorithms"]}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := parseAlgorithmSpec(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		for _, l := range lists {
			got, _, err := l.resolve(spec)
			if err != nil {
				if len(got) > 0 || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%s %q: %q with error %v", l.name, s, got, err)
				}
				continue
			}
			if len(got) == 0 {
				t.Fatalf("%s %q resolved to nothing without an error", l.name, s)
			}
			for i, a := range got {
				if !slices.Contains(l.known, a) || slices.Contains(got[i+1:], a) {
					t.Fatalf("%s %q = %q: %s unknown or repeated", l.name, s, got, a)
				}
				named := slices.ContainsFunc(spec.patterns, func(p string) bool { return matchAlgorithm(a, p) })
				switch {
				case spec.op == '-' && (named || !slices.Contains(l.defaults, a)):
					t.Fatalf("%s %q = %q keeps %s", l.name, s, got, a)
				case spec.op == 0 && !named:
					t.Fatalf("%s %q = %q adds %s", l.name, s, got, a)
				}
			}
		}
	})
}

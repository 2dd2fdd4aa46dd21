package sshconfig

import (
	"slices"
	"strings"
	"testing"
)

// TestResolverHostNames: the plain names on the Host lines of the files,
// in order, then those of the files each includes (relative to its
// directory, globbed, nested); no patterns, negations, quoted names with
// blanks, or Match blocks.
func TestResolverHostNames(t *testing.T) {
	r := testResolver(map[string]string{
		"/home/u/.ssh/config": `# a comment naming Host fake
Host alpha beta
  HostName alpha.example.net
Host *.wild ?ingle !negated gamma
Host "quoted name" delta
Include conf.d/*.conf
Match host epsilon
  User e
Host=equals
`,
		"/home/u/.ssh/conf.d/a.conf": "Host zeta\nInclude ~/.ssh/nested\n",
		"/home/u/.ssh/conf.d/b.conf": "host eta\n",
		"/home/u/.ssh/conf.d/c.txt":  "Host not-included\n",
		"/home/u/.ssh/nested":        "Host theta alpha\n",
		"/etc/ssh/ssh_config":        "Host *\n  SendEnv LANG\nHost system-host\n",
	})
	want := []string{"alpha", "beta", "gamma", "delta", "equals", "zeta", "theta", "alpha", "eta", "system-host"}
	if got := r.HostNames(); !slices.Equal(got, want) {
		t.Errorf("HostNames =\n%q\nwant\n%q", got, want)
	}
	if got := (&Resolver{}).HostNames(); got != nil {
		t.Errorf("HostNames of the zero Resolver = %q", got)
	}
}

// TestResolverHostNamesIncludeLoop: a file that includes itself stops at
// the depth limit.
func TestResolverHostNamesIncludeLoop(t *testing.T) {
	r := testResolver(map[string]string{"/home/u/.ssh/config": "Host loop\nInclude config\n"})
	if got := r.HostNames(); len(got) != maxIncludeDepth+1 || slices.ContainsFunc(got, func(s string) bool { return s != "loop" }) {
		t.Errorf("HostNames = %q, want loop %d times", got, maxIncludeDepth+1)
	}
}

// TestKnownHostsNames: the plain names of a known_hosts file, in order;
// [host]:port as host:port (bracketed for IPv6); no hashed entries,
// patterns, negations, markers, comments or short lines.
func TestKnownHostsNames(t *testing.T) {
	data := `alpha.example.net,192.0.2.1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
[port.example.net]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
[2001:db8::1]:2200 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
|1|F1E1KeoE/eEWhi10WpGv4OdiO6Y=|3988QV0VE8wmZL7suNrYQLITLCg= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
@cert-authority *.example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
@revoked revoked.example.net ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
*.pattern.example,!neg.example,plain.example ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ
# commented.example ssh-ed25519 AAAA
short.example
[bad port]:22x k v
`
	want := []string{"alpha.example.net", "192.0.2.1", "port.example.net:2222", "[2001:db8::1]:2200", "plain.example"}
	if got := KnownHostsNames([]byte(data)); !slices.Equal(got, want) {
		t.Errorf("KnownHostsNames =\n%q\nwant\n%q", got, want)
	}
}

// FuzzConfigHostNames: any ssh_config gives names a destination can
// take, without patterns or negations, and never panics.
func FuzzConfigHostNames(f *testing.F) {
	f.Add([]byte("Host a b *.c !d\nInclude x y\nHost=\"e f\"\n"))
	f.Add([]byte("Host \"unterminated\nInclude\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		hosts, _ := configHostNames(data)
		for _, h := range hosts {
			if _, err := ParseDestination(h); err != nil || strings.ContainsAny(h, "*?!") {
				t.Errorf("configHostNames gave %q (%v)", h, err)
			}
		}
	})
}

// FuzzKnownHostsNames: any known_hosts file gives names a destination can
// take, and never panics.
func FuzzKnownHostsNames(f *testing.F) {
	f.Add([]byte("a,b,[c]:22,[::1]:23,|1|x|y,*.d,!e ssh-ed25519 AAAA\n@revoked x ssh-rsa A\n"))
	f.Add([]byte("[]:22 k v\n[a]: k v\n[a]:1:2 k v\n[a]:[b] k v\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, n := range KnownHostsNames(data) {
			if _, err := ParseDestination(n); err != nil || strings.ContainsAny(n, " \t\n,*?!|") {
				t.Errorf("KnownHostsNames gave %q (%v)", n, err)
			}
		}
	})
}

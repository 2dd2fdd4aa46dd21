package bootstrap

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestHostNames: the Host names of ~/.ssh/config and the files it
// includes (relative to ~/.ssh, globbed, nested), then of the system's
// file, and the plain names of known_hosts; no patterns, negations,
// hashed entries, markers or Match blocks; sorted, each once.
func TestHostNames(t *testing.T) {
	files := map[string]string{
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
		"/home/u/.ssh/conf.d/a.conf":      "Host zeta\nInclude ~/.ssh/nested\n",
		"/home/u/.ssh/conf.d/b.conf":      "host eta\n",
		"/home/u/.ssh/conf.d/c.txt":       "Host not-included\n",
		"/home/u/.ssh/nested":             "Host theta alpha\n",
		filepath.ToSlash(systemSSHConfig): "Host *\n  SendEnv LANG\nHost system-host\n",
		"/home/u/.ssh/known_hosts": `alpha.example.net,192.0.2.1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
[port.example.net]:2222 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
[2001:db8::1]:2200 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
|1|F1E1KeoE/eEWhi10WpGv4OdiO6Y=|3988QV0VE8wmZL7suNrYQLITLCg= ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
@cert-authority *.example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
@revoked revoked.example.net ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE
*.pattern.example,!neg.example,plain.example ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ
# commented.example ssh-ed25519 AAAA
short.example
`,
		"/home/u/.ssh/known_hosts2": "beta ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE\n",
	}
	fsys := memFS(files)
	got := hostNames(fsys, fsys.ReadFile, "/home/u", "")
	want := []string{"192.0.2.1", "[2001:db8::1]:2200", "alpha", "alpha.example.net", "beta", "delta", "equals", "eta",
		"gamma", "plain.example", "port.example.net:2222", "system-host", "theta", "zeta"}
	if !slices.Equal(got, want) {
		t.Errorf("HostNames =\n%q\nwant\n%q", got, want)
	}

	// -F FILE reads that file only (and known_hosts); "none" none.
	files["/home/u/other"] = "Host other-only\n"
	if got := hostNames(fsys, fsys.ReadFile, "/home/u", "~/other"); !slices.Contains(got, "other-only") || slices.Contains(got, "alpha") {
		t.Errorf("HostNames with -F ~/other = %q", got)
	}
	if got := hostNames(fsys, fsys.ReadFile, "/home/u", "none"); slices.Contains(got, "alpha") || !slices.Contains(got, "plain.example") {
		t.Errorf("HostNames with -F none = %q", got)
	}
}

// TestHostNamesIncludeLoop: a file that includes itself stops at the
// depth limit.
func TestHostNamesIncludeLoop(t *testing.T) {
	fsys := memFS(map[string]string{"/home/u/.ssh/config": "Host loop\nInclude config\n"})
	if got := hostNames(fsys, fsys.ReadFile, "/home/u", ""); !slices.Equal(got, []string{"loop"}) {
		t.Errorf("HostNames = %q", got)
	}
}

package sshconfig

import (
	"bufio"
	"compress/gzip"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParseSSHOption(t *testing.T) {
	tests := []struct {
		in      string
		keyword string
		args    []string
		err     string
	}{
		{in: "Port=2222", keyword: "port", args: []string{"2222"}},
		{in: "StrictHostKeyChecking yes", keyword: "stricthostkeychecking", args: []string{"yes"}},
		{in: "  user = alice ", keyword: "user", args: []string{"alice"}},
		{in: `IdentityFile="~/my key"`, keyword: "identityfile", args: []string{"~/my key"}},
		{in: "ProxyCommand=ssh -W %h:%p gw", keyword: "proxycommand", args: []string{"ssh -W %h:%p gw"}},
		{in: "ServerAliveInterval=30", keyword: "serveraliveinterval", args: []string{"30"}},
		{in: "Ciphers=aes128-ctr", keyword: "ciphers", args: []string{"aes128-ctr"}},
		{in: "Port=http", err: "bad Port"},
		{in: "StrictHostKeyChecking=maybe", err: "bad StrictHostKeyChecking"},
		{in: "Prot=22", err: "unknown ssh_config keyword"},
		{in: "Host=web", err: "works only in a file"},
		{in: "Match all", err: "works only in a file"},
		{in: "Include=/etc/passwd", err: "works only in a file"},
		{in: "User", err: "needs a value"},
		{in: "User=", err: "needs a value"},
		{in: "", err: "want Keyword=value"},
		{in: "=x", err: "want Keyword=value"},
		{in: `User="alice`, err: "unterminated quote"},
	}
	for _, tc := range tests {
		got, err := ParseOption(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseOption(%q) = %+v, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("ParseOption(%q): error of more than one line: %q", tc.in, err)
			}
			continue
		}
		if err != nil || got.keyword != tc.keyword || !slices.Equal(got.args, tc.args) {
			t.Errorf("ParseOption(%q) = %+v, %v; want %s %q", tc.in, got, err, tc.keyword, tc.args)
		}
	}
}

// TestCommandLineSettings: the command line's settings come before the
// files' (so they win, and identity files are tried first), the
// destination's port beats them, and none of them applies to a jump host.
func TestCommandLineSettings(t *testing.T) {
	files := map[string]string{"/home/u/.ssh/config": "Host web\n  HostName web.internal\n  User bob\n  Port 2200\n" +
		"  IdentityFile ~/.ssh/web_key\n  ProxyCommand nc %h %p\n  StrictHostKeyChecking ask\n" +
		"Host gw\n  User gwuser\n"}
	cmdline, err := CommandLine("gw", []string{"/keys/first"},
		[]string{"User=alice", "Port 2300", "StrictHostKeyChecking=yes", "User=ignored-second"})
	if err != nil {
		t.Fatal(err)
	}
	r := testResolver(files)
	r.CommandLine = cmdline
	p, err := r.Resolve(Destination{Host: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if p.User != "alice" || p.Port != 2300 || p.StrictHostKeyChecking != "yes" || p.HostName != "web.internal" {
		t.Errorf("user, port, strict, hostname = %q, %d, %q, %q; want alice, 2300, yes, web.internal", p.User, p.Port, p.StrictHostKeyChecking, p.HostName)
	}
	if p.ProxyJump != "gw" || p.ProxyCommand != "" {
		t.Errorf("proxyJump, proxyCommand = %q, %q; want the command line's jump to replace the file's ProxyCommand", p.ProxyJump, p.ProxyCommand)
	}
	if got := slashed(p.IdentityFiles); !slices.Equal(got, []string{"/keys/first", "/home/u/.ssh/web_key"}) {
		t.Errorf("identity files = %q, want the command line's first", got)
	}
	if p, err := r.Resolve(Destination{Host: "web", Port: 2201}); err != nil || p.Port != 2201 {
		t.Errorf("web:2201 resolves to port %d, %v; want the destination's port", p.Port, err)
	}
	hop, err := r.ResolveHop(Destination{Host: "gw"})
	if err != nil {
		t.Fatal(err)
	}
	if hop.User != "gwuser" || hop.Port != 22 || hop.ProxyJump != "" || slices.Contains(hop.IdentityFiles, "/keys/first") {
		t.Errorf("the jump host got the command line's settings: %+v", hop)
	}
}

// TestUnhonoured: the keywords named are those the built-in client does
// without, split by whether they change security, in the files' order;
// one set to what the client does anyway, or named by IgnoreUnknown when
// unknown, is not named.
func TestUnhonoured(t *testing.T) {
	tests := []struct {
		name            string
		config          string
		security, other []string
	}{
		{"honoured only", "Host *\n  User a\n  Port 22\n  StrictHostKeyChecking yes\n  UserKnownHostsFile ~/k\n  ProxyJump none\n", nil, nil},
		{"mixed", "Host *\n  RekeyLimit 1G\n  ServerAliveInterval 30\n  Ciphers aes128-ctr\n  Compression yes\n  UpdateHostKeys yes\n  User a\n",
			[]string{"RekeyLimit", "UpdateHostKeys"}, []string{"Compression"}},
		{"algorithms", "Host *\n  Ciphers aes128-ctr\n  KexAlgorithms -ecdh-*\n  MACs +hmac-sha1-96\n  HostKeyAlgorithms ^ssh-ed25519\n" +
			"  PubkeyAcceptedAlgorithms ssh-ed25519\n  PubkeyAcceptedKeyTypes ssh-rsa\n  CASignatureAlgorithms ssh-ed25519\n  RequiredRSASize 2048\n" +
			"  RevokedHostKeys ~/revoked\n  ServerAliveInterval 5\n  ServerAliveCountMax 2\n", nil, nil},
		{"moot", "Host *\n  GSSAPIKexAlgorithms gss-curve25519-sha256-\n  HostbasedAcceptedAlgorithms ssh-ed25519\n  GSSAPIKeyExchange yes\n",
			[]string{"GSSAPIKeyExchange"}, []string{"GSSAPIKexAlgorithms", "HostbasedAcceptedAlgorithms"}},
		{"as the client does anyway", "Host *\n  CheckHostIP no\n  Compression no\n  UpdateHostKeys no\n  ServerAliveInterval 0\n", nil, nil},
		{"set otherwise", "Host *\n  CheckHostIP yes\n  UpdateHostKeys ask\n  VerifyHostKeyDNS yes\n",
			[]string{"CheckHostIP", "UpdateHostKeys", "VerifyHostKeyDNS"}, nil},
		{"unknown", "Host *\n  Bogus 1\n  UseKeychain yes\n", nil, []string{"bogus", "UseKeychain"}},
		{"IgnoreUnknown", "IgnoreUnknown bogus,other*\nHost *\n  Bogus 1\n  OtherThing 2\n  ThirdThing 3\n", nil, []string{"thirdthing"}},
		{"inactive block", "Host elsewhere\n  Ciphers aes128-ctr\n", nil, nil},
	}
	for _, tc := range tests {
		r := testResolver(map[string]string{"/home/u/.ssh/config": tc.config})
		p, err := r.Resolve(Destination{Host: "web"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sec, other := p.Unhonoured()
		if !slices.Equal(sec, tc.security) || !slices.Equal(other, tc.other) {
			t.Errorf("%s: unhonoured = %q, %q; want %q, %q", tc.name, sec, other, tc.security, tc.other)
		}
	}
}

// TestKeywordTable: every keyword of this system's ssh_config(5) is in
// the table, and every keyword the table says is honoured is read by the
// resolver.
func TestKeywordTable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Debian's OpenSSH manual page") // the Linux runs check it
	}
	f, err := os.Open("/usr/share/man/man5/ssh_config.5.gz")
	if err != nil {
		t.Fatalf("OpenSSH's ssh_config(5) (openssh-client): %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), ".It Cm "); ok {
			name := strings.Fields(rest)[0]
			n++
			if _, ok := keywords()[strings.ToLower(name)]; !ok {
				t.Errorf("ssh_config keyword %s is not in the table", name)
			}
		}
	}
	if n < 80 {
		t.Errorf("found %d keywords in ssh_config(5), want over 80", n)
	}
	var src strings.Builder
	for _, name := range []string{"host.go", "sshconfig.go", "keywords.go", "algorithms.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for kw, k := range keywords() {
		if k.use == honoured && !strings.Contains(src.String(), `"`+kw+`"`) {
			t.Errorf("%s is marked honoured but the resolver never reads %q", k.name, kw)
		}
	}
}

func FuzzParseSSHOption(f *testing.F) {
	for _, s := range []string{"Port=22", "User alice", `IdentityFile "a b"`, "Host=x", "ProxyCommand=nc %h %p", "=", "Ciphers=+aes"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOption(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if _, ok := keywords()[o.keyword]; !ok || fileOnly[o.keyword] || len(o.args) == 0 {
			t.Fatalf("ParseOption(%q) = %+v", s, o)
		}
		// What it accepts, the resolver takes.
		r := testResolver(nil)
		r.CommandLine = []Option{o}
		if _, err := r.Resolve(Destination{Host: "web"}); err != nil && !isExpansionError(err) {
			t.Fatalf("resolve with %q: %v", s, err)
		}
	})
}

// isExpansionError is a path option whose %-token or ${VAR} expansion
// fails, which ssh too reports only when it connects.
func isExpansionError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "token") || strings.Contains(s, "environment variable") || strings.Contains(s, "${") || strings.Contains(s, "trailing %")
}

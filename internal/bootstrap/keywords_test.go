package bootstrap

import (
	"bufio"
	"compress/gzip"
	"errors"
	"net"
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
		got, err := parseSSHOption(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseSSHOption(%q) = %+v, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("parseSSHOption(%q): error of more than one line: %q", tc.in, err)
			}
			continue
		}
		if err != nil || got.keyword != tc.keyword || !slices.Equal(got.args, tc.args) {
			t.Errorf("parseSSHOption(%q) = %+v, %v; want %s %q", tc.in, got, err, tc.keyword, tc.args)
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
	cfg := &Config{Jump: "gw", Identities: []string{"/keys/first"},
		SSHOptions: []string{"User=alice", "Port 2300", "StrictHostKeyChecking=yes", "User=ignored-second"}}
	cmdline, err := cfg.cmdline()
	if err != nil {
		t.Fatal(err)
	}
	r := testResolver(files)
	r.cmdline = cmdline
	p, err := r.resolve(destination{host: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if p.user != "alice" || p.port != 2300 || p.strict != "yes" || p.hostname != "web.internal" {
		t.Errorf("user, port, strict, hostname = %q, %d, %q, %q; want alice, 2300, yes, web.internal", p.user, p.port, p.strict, p.hostname)
	}
	if p.proxyJump != "gw" || p.proxyCommand != "" {
		t.Errorf("proxyJump, proxyCommand = %q, %q; want the command line's jump to replace the file's ProxyCommand", p.proxyJump, p.proxyCommand)
	}
	if got := slashed(p.identityFiles); !slices.Equal(got, []string{"/keys/first", "/home/u/.ssh/web_key"}) {
		t.Errorf("identity files = %q, want the command line's first", got)
	}
	if p, err := r.resolve(destination{host: "web", port: 2201}); err != nil || p.port != 2201 {
		t.Errorf("web:2201 resolves to port %d, %v; want the destination's port", p.port, err)
	}
	hop, err := r.resolveHop(destination{host: "gw"})
	if err != nil {
		t.Fatal(err)
	}
	if hop.user != "gwuser" || hop.port != 22 || hop.proxyJump != "" || slices.Contains(hop.identityFiles, "/keys/first") {
		t.Errorf("the jump host got the command line's settings: %+v", hop)
	}
}

func TestConfigDestination(t *testing.T) {
	tests := []struct {
		dest    string
		sshPort int
		want    destination
		err     string
	}{
		{dest: "alice@web", sshPort: 2222, want: destination{user: "alice", host: "web", port: 2222}},
		{dest: "ssh://alice@web:2222", sshPort: 2222, want: destination{user: "alice", host: "web", port: 2222}},
		{dest: "[::1]", sshPort: 2222, want: destination{host: "::1", port: 2222}},
		{dest: "web:2200", want: destination{host: "web", port: 2200}},
		{dest: "web:2200", sshPort: 2222, err: "names SSH port 2200"},
		{dest: "ssh://web:2200", sshPort: 2222, err: "names SSH port 2200"},
		{dest: "web", sshPort: 70000, err: "bad SSH port"},
	}
	for _, tc := range tests {
		c := &Config{Destination: tc.dest, SSHPort: tc.sshPort}
		got, err := c.destination()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q with port %d = %+v, %v; want an error containing %q", tc.dest, tc.sshPort, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q with port %d = %+v, %v; want %+v", tc.dest, tc.sshPort, got, err, tc.want)
		}
	}
	for _, bad := range []Config{{Jump: "-oProxyCommand=x"}, {Jump: "gw,"}, {SSHOptions: []string{"Host x"}}, {Identities: []string{""}}} {
		if _, err := bad.cmdline(); err == nil {
			t.Errorf("cmdline of %+v: no error", bad)
		}
	}
	if err := CheckJump("none"); err != nil {
		t.Errorf("CheckJump(none) = %v", err)
	}
	if err := CheckJump("alice@gw:2222,ssh://[::1]:22"); err != nil {
		t.Errorf("CheckJump of two hops = %v", err)
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
		p, err := r.resolve(destination{host: "web"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sec, other := unhonoured(p.opts)
		if !slices.Equal(sec, tc.security) || !slices.Equal(other, tc.other) {
			t.Errorf("%s: unhonoured = %q, %q; want %q, %q", tc.name, sec, other, tc.security, tc.other)
		}
	}
}

// TestKeywordNotes: the security keywords go to stderr whatever the
// verbosity, the others to the log, each once however many hosts set it.
func TestKeywordNotes(t *testing.T) {
	r := testResolver(map[string]string{"/home/u/.ssh/config": "Host *\n  CheckHostIP yes\n  VerifyHostKeyDNS yes\n  Compression yes\n"})
	var stderr, log []string
	for _, host := range []string{"a", "b", "a"} {
		p, err := r.resolve(destination{host: host})
		if err != nil {
			t.Fatal(err)
		}
		r.notes.note(p.opts, host, func(s string) { stderr = append(stderr, s) },
			func(f string, args ...any) { log = append(log, f) })
	}
	if len(stderr) != 1 || !strings.Contains(stderr[0], "sets CheckHostIP and VerifyHostKeyDNS, which gosh's built-in SSH client does not honour") {
		t.Errorf("stderr = %q, want one line naming CheckHostIP and VerifyHostKeyDNS", stderr)
	}
	if len(log) != 1 {
		t.Errorf("log = %q, want one line", log)
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
			if _, ok := keywords[strings.ToLower(name)]; !ok {
				t.Errorf("ssh_config keyword %s is not in the table", name)
			}
		}
	}
	if n < 80 {
		t.Errorf("found %d keywords in ssh_config(5), want over 80", n)
	}
	var src strings.Builder
	for _, name := range []string{"hostparams.go", "sshconfig.go", "keywords.go", "algorithms.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for kw, k := range keywords {
		if k.use == honoured && !strings.Contains(src.String(), `"`+kw+`"`) {
			t.Errorf("%s is marked honoured but the resolver never reads %q", k.name, kw)
		}
	}
}

func TestRefusedPort(t *testing.T) {
	// A real refusal: a loopback port nothing listens on any more.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close()
	_, dialErr := net.Dial("tcp", addr.String())
	if dialErr == nil {
		t.Fatalf("dialling the closed port %d succeeded", addr.Port)
	}
	refused := &DialError{Addr: addr.String(), Port: addr.Port, Err: unwrapOpError(dialErr)}
	if port, ok := RefusedPort(fmtWrap(refused)); !ok || port != addr.Port {
		t.Errorf("RefusedPort(%v) = %d, %v; want %d, true", refused, port, ok, addr.Port)
	}
	for _, err := range []error{
		&DialError{Addr: "web:22", Port: 22, Err: errors.New("no route to host")},
		&DialError{Addr: "ProxyCommand x", Err: refused.Err},
		errors.New("connection refused"),
	} {
		if port, ok := RefusedPort(err); ok {
			t.Errorf("RefusedPort(%v) = %d, true", err, port)
		}
	}
	ssh := &sshFailedError{se: &ServerError{}, output: "Warning: x\r\nssh: connect to host web port 2222: Connection refused\r\n"}
	if port, ok := RefusedPort(ssh); !ok || port != 2222 {
		t.Errorf("RefusedPort(ssh's message) = %d, %v; want 2222", port, ok)
	}
	ssh.output = "ssh: connect to host web port 22: No route to host\n"
	if _, ok := RefusedPort(ssh); ok {
		t.Errorf("RefusedPort(%q) = true", ssh.output)
	}
}

func fmtWrap(err error) error { return &wrapped{err} }

type wrapped struct{ err error }

func (w *wrapped) Error() string { return "wrapped: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

func TestSystemSSHOptions(t *testing.T) {
	cfg := &Config{ConfigFile: "/c", Jump: "gw", Identities: []string{"/k1", "/k 2"}, SSHOptions: []string{"User=alice", "Ciphers aes128-ctr"}}
	want := []string{"-F", "/c", "-J", "gw", "-i", "/k1", "-i", "/k 2", "-o", "User=alice", "-o", "Ciphers aes128-ctr"}
	if got := systemSSHOptions(cfg); !slices.Equal(got, want) {
		t.Errorf("systemSSHOptions = %q, want %q", got, want)
	}
	if got := systemSSHOptions(&Config{}); len(got) != 0 {
		t.Errorf("systemSSHOptions of nothing = %q", got)
	}
}

func FuzzParseSSHOption(f *testing.F) {
	for _, s := range []string{"Port=22", "User alice", `IdentityFile "a b"`, "Host=x", "ProxyCommand=nc %h %p", "=", "Ciphers=+aes"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := parseSSHOption(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if _, ok := keywords[o.keyword]; !ok || fileOnly[o.keyword] || len(o.args) == 0 {
			t.Fatalf("parseSSHOption(%q) = %+v", s, o)
		}
		// What it accepts, the resolver takes.
		r := testResolver(nil)
		r.cmdline = []cmdlineOption{o}
		if _, err := r.resolve(destination{host: "web"}); err != nil && !isExpansionError(err) {
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

func FuzzParseDestination(f *testing.F) {
	for _, s := range []string{"host", "alice@host:2222", "[::1]:22", "root@[fe80::1%eth0]", "fe80::1", "ssh://bob@[::1]:2200", "SSH://h", "ssh://h/", "a@b@c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDestination(s)
		if err != nil {
			return
		}
		if checkHostName(d.host) != nil || d.user != "" && checkUserName(d.user) != nil || d.port < 0 || d.port > 65535 {
			t.Fatalf("parseDestination(%q) = %+v: a bad part got through", s, d)
		}
		// Its string form reads back as the same destination.
		again, err := parseDestination(d.String())
		if err != nil || again != d {
			t.Fatalf("parseDestination(%q) = %+v, whose form %q reads back as %+v, %v", s, d, d.String(), again, err)
		}
	})
}

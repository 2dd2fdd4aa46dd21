package bootstrap

import (
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/netaddr"
)

// memFS is an in-memory configFS for parser tests. Names are written with
// slashes; on Windows, where the resolver joins paths with backslashes,
// they are compared in slash form, so the same tests run there.
func memFS(files map[string]string) configFS {
	return configFS{
		readFile: func(name string) ([]byte, error) {
			s, ok := files[filepath.ToSlash(name)]
			if !ok {
				return nil, fs.ErrNotExist
			}
			return []byte(s), nil
		},
		glob: func(pattern string) ([]string, error) {
			var out []string
			for name := range files {
				if ok, err := path.Match(filepath.ToSlash(pattern), name); err != nil {
					return nil, err
				} else if ok {
					out = append(out, name)
				}
			}
			sort.Strings(out)
			return out, nil
		},
	}
}

// testResolver resolves with ~/.ssh/config = files["/home/u/.ssh/config"].
func testResolver(files map[string]string) *resolver {
	return &resolver{fs: memFS(files), home: "/home/u", localUser: "local",
		configFiles: []string{"/home/u/.ssh/config", "/etc/ssh/ssh_config"},
		configDirs:  []string{"/home/u/.ssh", "/etc/ssh"},
		getenv: func(k string) (string, bool) {
			if k == "SSH_AUTH_SOCK" {
				return "/tmp/agent.sock", true
			}
			return "", false
		}}
}

func TestSSHConfigResolve(t *testing.T) {
	const user = "/home/u/.ssh/config"
	tests := []struct {
		name  string
		files map[string]string
		dest  string
		check func(t *testing.T, p *hostParams)
	}{
		{"defaults", nil, "example.org", func(t *testing.T, p *hostParams) {
			want := hostParams{hostname: "example.org", port: 22, user: "local", strict: "ask", identityAgent: "/tmp/agent.sock"}
			if p.hostname != want.hostname || p.port != want.port || p.user != want.user || p.strict != want.strict || p.identityAgent != want.identityAgent {
				t.Errorf("got %+v", p)
			}
			if slashed(p.identityFiles)[0] != "/home/u/.ssh/id_rsa" || len(p.userKnownHosts) != 2 || slashed(p.userKnownHosts)[0] != "/home/u/.ssh/known_hosts" {
				t.Errorf("identity files %q, known hosts %q", p.identityFiles, p.userKnownHosts)
			}
		}},
		{"first match wins", map[string]string{user: "Host web\n  User alice\n  Port 2200\nHost *\n  User bob\n  Port 22\n  HostName %h.example.org\n"},
			"web", func(t *testing.T, p *hostParams) {
				if p.user != "alice" || p.port != 2200 || p.hostname != "web.example.org" {
					t.Errorf("got user %q port %d hostname %q, want alice 2200 web.example.org", p.user, p.port, p.hostname)
				}
			}},
		{"command line wins", map[string]string{user: "Host web\n  User alice\n  Port 2200\n"},
			"carol@web:2222", func(t *testing.T, p *hostParams) {
				if p.user != "carol" || p.port != 2222 {
					t.Errorf("got %q %d", p.user, p.port)
				}
			}},
		{"wildcards", map[string]string{user: "Host db? !db9 *.internal\n  User wild\n"},
			"db1", func(t *testing.T, p *hostParams) { wantUser(t, p, "wild") }},
		{"negation excludes", map[string]string{user: "Host db? !db9\n  User wild\n"},
			"db9", func(t *testing.T, p *hostParams) { wantUser(t, p, "local") }},
		{"negation alone never matches", map[string]string{user: "Host !db9\n  User wild\n"},
			"other", func(t *testing.T, p *hostParams) { wantUser(t, p, "local") }},
		{"case insensitive host", map[string]string{user: "Host WEB\n  User upper\n"},
			"web", func(t *testing.T, p *hostParams) { wantUser(t, p, "upper") }},
		{"equals and quotes", map[string]string{user: "Host=web\nUser = \"al ice\"\nIdentityFile='~/my keys/id'\n"},
			"web", func(t *testing.T, p *hostParams) {
				wantUser(t, p, "al ice")
				if !slices.Equal(slashed(p.identityFiles), []string{"/home/u/my keys/id"}) {
					t.Errorf("identityFiles = %q", p.identityFiles)
				}
			}},
		{"identity files accumulate with tokens", map[string]string{user: "Host web\n  IdentityFile ~/.ssh/%r_%h\nHost *\n  IdentityFile ~/.ssh/common\n  User bob\n"},
			"web", func(t *testing.T, p *hostParams) {
				if want := []string{"/home/u/.ssh/bob_web", "/home/u/.ssh/common"}; !slices.Equal(slashed(p.identityFiles), want) {
					t.Errorf("identityFiles = %q, want %q", p.identityFiles, want)
				}
			}},
		{"include glob relative to ~/.ssh", map[string]string{
			user:                         "Include conf.d/*.conf\nHost *\n  User fallback\n",
			"/home/u/.ssh/conf.d/a.conf": "Host web\n  User from-a\n",
			"/home/u/.ssh/conf.d/b.conf": "Host web\n  User from-b\n  Port 2022\n",
			"/home/u/.ssh/conf.d/c.txt":  "Host web\n  Port 1\n",
		}, "web", func(t *testing.T, p *hostParams) {
			if p.user != "from-a" || p.port != 2022 {
				t.Errorf("got %q %d, want from-a 2022", p.user, p.port)
			}
		}},
		{"include inside a non-matching host block", map[string]string{
			user:                 "Host other\n  Include extra\nHost *\n  User outer\n",
			"/home/u/.ssh/extra": "User inner\n",
		}, "web", func(t *testing.T, p *hostParams) { wantUser(t, p, "outer") }},
		{"include inside a matching block restores state", map[string]string{
			user:                 "Host web\n  Include extra\n  Port 2300\n",
			"/home/u/.ssh/extra": "Host nomatch\n  User inner\n",
		}, "web", func(t *testing.T, p *hostParams) {
			if p.port != 2300 || p.user != "local" {
				t.Errorf("got %q %d, want local 2300", p.user, p.port)
			}
		}},
		{"system config after user config", map[string]string{
			user:                  "Host web\n  User mine\n",
			"/etc/ssh/ssh_config": "Host *\n  User system\n  Port 2400\n",
		}, "web", func(t *testing.T, p *hostParams) {
			if p.user != "mine" || p.port != 2400 {
				t.Errorf("got %q %d", p.user, p.port)
			}
		}},
		{"match", map[string]string{user: "Match originalhost web user root\n  Port 1000\n" +
			"Match host real.example.org !user nobody\n  Port 2000\nHost web\n  HostName real.example.org\nMatch all\n  User last\n"},
			"root@web", func(t *testing.T, p *hostParams) {
				if p.port != 1000 {
					t.Errorf("port = %d, want 1000", p.port)
				}
			}},
		{"match host uses HostName", map[string]string{user: "Host web\n  HostName real.example.org\nMatch host *.example.org\n  Port 3000\n"},
			"web", func(t *testing.T, p *hostParams) {
				if p.port != 3000 {
					t.Errorf("port = %d, want 3000", p.port)
				}
			}},
		{"match exec with no runner never matches", map[string]string{user: "Match exec \"true\"\n  Port 4000\n"},
			"web", func(t *testing.T, p *hostParams) {
				if p.port != 22 {
					t.Errorf("port = %d, want 22", p.port)
				}
			}},
		{"proxy jump before command", map[string]string{user: "Host web\n  ProxyJump bastion\n  ProxyCommand nc %h %p\n"},
			"web", func(t *testing.T, p *hostParams) {
				if p.proxyJump != "bastion" || p.proxyCommand != "" {
					t.Errorf("jump %q command %q", p.proxyJump, p.proxyCommand)
				}
			}},
		{"proxy command raw with tokens", map[string]string{user: "Host web\n  ProxyCommand ssh -W '%h:%p' \"gw\"  # not a comment\n  ProxyJump ignored\n"},
			"web", func(t *testing.T, p *hostParams) {
				if p.proxyJump != "" || p.proxyCommand != `ssh -W 'web:22' "gw"  # not a comment` {
					t.Errorf("jump %q command %q", p.proxyJump, p.proxyCommand)
				}
			}},
		{"policies", map[string]string{user: "Host *\n  StrictHostKeyChecking accept-new\n  HashKnownHosts yes\n  ConnectTimeout 7\n" +
			"  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile ~/a /abs/b\n  AddressFamily inet6\n  PasswordAuthentication no\n"},
			"web", func(t *testing.T, p *hostParams) {
				if p.strict != "accept-new" || !p.hashKnownHosts || p.connectTimeout.Seconds() != 7 || !p.identitiesOnly ||
					p.identityAgent != "" || !slices.Equal(slashed(p.userKnownHosts), []string{"/home/u/a", "/abs/b"}) || p.family != netaddr.IPv6 || p.passwordAuth {
					t.Errorf("got %+v", p)
				}
			}},
		{"forward agent yes", map[string]string{user: "Host web\n  ForwardAgent yes\n"},
			"web", func(t *testing.T, p *hostParams) {
				if p.forwardAgent != "/tmp/agent.sock" {
					t.Errorf("forwardAgent %q, want $SSH_AUTH_SOCK", p.forwardAgent)
				}
			}},
		{"forward agent path and no", map[string]string{user: "Host web\n  ForwardAgent ~/agent.sock\nHost db\n  ForwardAgent no\n"},
			"web", func(t *testing.T, p *hostParams) {
				if filepath.ToSlash(p.forwardAgent) != "/home/u/agent.sock" {
					t.Errorf("forwardAgent %q, want ~/agent.sock expanded", p.forwardAgent)
				}
			}},
		{"port forwards", map[string]string{user: "Host web\n  LocalForward 8080 db:5432\n  LocalForward [::1]:9090 [::1]:90\n  RemoteForward 2222 localhost:22\n  DynamicForward 1080\n"},
			"web", func(t *testing.T, p *hostParams) {
				want := Forwards{Local: []string{"8080:db:5432", "[::1]:9090:[::1]:90"}, Remote: []string{"2222:localhost:22"}, Dynamic: []string{"1080"}}
				if !slices.Equal(p.forwards.Local, want.Local) || !slices.Equal(p.forwards.Remote, want.Remote) || !slices.Equal(p.forwards.Dynamic, want.Dynamic) {
					t.Errorf("forwards %+v, want %+v", p.forwards, want)
				}
			}},
		{"forward agent default", map[string]string{user: "Host db\n  ForwardAgent no\n"},
			"db", func(t *testing.T, p *hostParams) {
				if p.forwardAgent != "" {
					t.Errorf("forwardAgent %q, want none", p.forwardAgent)
				}
			}},
		{"comments and blank lines", map[string]string{user: "# top\n\n   # indented\nHost web # trailing\n\tUser tabbed\n"},
			"web", func(t *testing.T, p *hostParams) { wantUser(t, p, "tabbed") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parseDestination(tc.dest)
			if err != nil {
				t.Fatal(err)
			}
			p, err := testResolver(tc.files).resolve(d)
			if err != nil {
				t.Fatalf("resolve(%q): %v", tc.dest, err)
			}
			tc.check(t, p)
		})
	}
}

// slashed is paths in slash form (see memFS).
func slashed(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.ToSlash(p)
	}
	return out
}

func wantUser(t *testing.T, p *hostParams, want string) {
	t.Helper()
	if p.user != want {
		t.Errorf("user = %q, want %q", p.user, want)
	}
}

func TestSSHConfigErrors(t *testing.T) {
	const user = "/home/u/.ssh/config"
	tests := []struct {
		name, config, want string
	}{
		{"unterminated quote", "User \"bob\n", "line 1: unterminated quote"},
		{"bad port", "Host *\n Port ssh\n", "line 2: bad Port"},
		{"missing argument", "User\n", "needs an argument"},
		{"host without pattern", "Host\n", "Host needs"},
		{"bad strict", "StrictHostKeyChecking maybe\n", "bad StrictHostKeyChecking"},
		{"include loop", "Include config\n", "nested too deeply"},
		{"unknown match", "Match sometimes\n", "unsupported Match criterion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testResolver(map[string]string{user: tc.config}).resolve(destination{host: "web"})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bootstrap: ") {
				t.Fatalf("resolve = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestMatchPattern(t *testing.T) {
	tests := []struct {
		s, pattern string
		want       bool
	}{
		{"web", "web", true},
		{"web", "*", true},
		{"", "*", true},
		{"web", "w?b", true},
		{"web", "w??b", false},
		{"web1.example.org", "web*.example.*", true},
		{"web.example.org", "*.example.com", false},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*a*a*a*c", false},
		{"WEB", "web", true},
		{"10.0.0.1", "10.0.0.*", true},
	}
	for _, tc := range tests {
		if got := matchPattern(tc.s, tc.pattern); got != tc.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", tc.s, tc.pattern, got, tc.want)
		}
	}
}

func FuzzSSHConfig(f *testing.F) {
	f.Add("Host web *.example.org !bad\n  HostName %h.internal\n  Port 2222\n  User=alice\n", "web")
	f.Add("Include conf.d/*\nMatch host x !user y all\n IdentityFile \"~/a b\"\n", "x")
	f.Add("Host *\n ProxyCommand ssh -W %h:%p gw\n ProxyJump a,b\n", "h")
	f.Add("Host \"unterminated\n", "h")
	f.Fuzz(func(t *testing.T, config, host string) {
		if checkHostName(host) != nil {
			return
		}
		files := map[string]string{
			"/home/u/.ssh/config":          config,
			"/home/u/.ssh/conf.d/included": config, // includes of itself stop at the depth limit
		}
		r := testResolver(files)
		p1, err1 := r.resolve(destination{host: host})
		p2, err2 := r.resolve(destination{host: host})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("non-deterministic: %v vs %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if p1.port <= 0 || p1.port > 65535 || p1.user == "" || p1.hostname == "" || p1.hostname != p2.hostname {
			t.Fatalf("resolve(%q) = %+v", host, p1)
		}
	})
}

// TestSSHConfigFileMissing: a config file named with -F must exist, as
// with ssh -F; the default files need not.
func TestSSHConfigFileMissing(t *testing.T) {
	home := t.TempDir()
	missing := filepath.Join(home, "nope")
	r, err := newResolver(&Config{Home: home, ConfigFile: missing})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.resolve(destination{host: "web"}); err == nil || !strings.Contains(err.Error(), missing+" (-F) does not exist") {
		t.Errorf("resolve with -F %s = %v, want an error naming the file", missing, err)
	}
	r, err = newResolver(&Config{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	r.configFiles = []string{missing}
	if _, err := r.resolve(destination{host: "web"}); err != nil {
		t.Errorf("resolve without -F and no config files: %v", err)
	}
}

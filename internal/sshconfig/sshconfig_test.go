package sshconfig

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

// memFS is an in-memory FS for parser tests. Names are written with
// slashes; on Windows, where the resolver joins paths with backslashes,
// they are compared in slash form, so the same tests run there.
func memFS(files map[string]string) FS {
	return FS{
		ReadFile: func(name string) ([]byte, error) {
			s, ok := files[filepath.ToSlash(name)]
			if !ok {
				return nil, fs.ErrNotExist
			}
			return []byte(s), nil
		},
		Glob: func(pattern string) ([]string, error) {
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
func testResolver(files map[string]string) *Resolver {
	return &Resolver{FS: memFS(files), Home: "/home/u", LocalUser: "local",
		Files: []string{"/home/u/.ssh/config", "/etc/ssh/ssh_config"},
		Dirs:  []string{"/home/u/.ssh", "/etc/ssh"},
		Getenv: func(k string) (string, bool) {
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
		check func(t *testing.T, p *Host)
	}{
		{"defaults", nil, "example.org", func(t *testing.T, p *Host) {
			want := Host{HostName: "example.org", Port: 22, User: "local", StrictHostKeyChecking: "ask", IdentityAgent: "/tmp/agent.sock"}
			if p.HostName != want.HostName || p.Port != want.Port || p.User != want.User || p.StrictHostKeyChecking != want.StrictHostKeyChecking || p.IdentityAgent != want.IdentityAgent {
				t.Errorf("got %+v", p)
			}
			if slashed(p.IdentityFiles)[0] != "/home/u/.ssh/id_rsa" || len(p.UserKnownHosts) != 2 || slashed(p.UserKnownHosts)[0] != "/home/u/.ssh/known_hosts" {
				t.Errorf("identity files %q, known hosts %q", p.IdentityFiles, p.UserKnownHosts)
			}
		}},
		{"first match wins", map[string]string{user: "Host web\n  User alice\n  Port 2200\nHost *\n  User bob\n  Port 22\n  HostName %h.example.org\n"},
			"web", func(t *testing.T, p *Host) {
				if p.User != "alice" || p.Port != 2200 || p.HostName != "web.example.org" {
					t.Errorf("got user %q port %d hostname %q, want alice 2200 web.example.org", p.User, p.Port, p.HostName)
				}
			}},
		{"command line wins", map[string]string{user: "Host web\n  User alice\n  Port 2200\n"},
			"carol@web:2222", func(t *testing.T, p *Host) {
				if p.User != "carol" || p.Port != 2222 {
					t.Errorf("got %q %d", p.User, p.Port)
				}
			}},
		{"wildcards", map[string]string{user: "Host db? !db9 *.internal\n  User wild\n"},
			"db1", func(t *testing.T, p *Host) { wantUser(t, p, "wild") }},
		{"negation excludes", map[string]string{user: "Host db? !db9\n  User wild\n"},
			"db9", func(t *testing.T, p *Host) { wantUser(t, p, "local") }},
		{"negation alone never matches", map[string]string{user: "Host !db9\n  User wild\n"},
			"other", func(t *testing.T, p *Host) { wantUser(t, p, "local") }},
		{"case insensitive host", map[string]string{user: "Host WEB\n  User upper\n"},
			"web", func(t *testing.T, p *Host) { wantUser(t, p, "upper") }},
		{"equals and quotes", map[string]string{user: "Host=web\nUser = \"al ice\"\nIdentityFile='~/my keys/id'\n"},
			"web", func(t *testing.T, p *Host) {
				wantUser(t, p, "al ice")
				if !slices.Equal(slashed(p.IdentityFiles), []string{"/home/u/my keys/id"}) {
					t.Errorf("identityFiles = %q", p.IdentityFiles)
				}
			}},
		{"identity files accumulate with tokens", map[string]string{user: "Host web\n  IdentityFile ~/.ssh/%r_%h\nHost *\n  IdentityFile ~/.ssh/common\n  User bob\n"},
			"web", func(t *testing.T, p *Host) {
				if want := []string{"/home/u/.ssh/bob_web", "/home/u/.ssh/common"}; !slices.Equal(slashed(p.IdentityFiles), want) {
					t.Errorf("identityFiles = %q, want %q", p.IdentityFiles, want)
				}
			}},
		{"include glob relative to ~/.ssh", map[string]string{
			user:                         "Include conf.d/*.conf\nHost *\n  User fallback\n",
			"/home/u/.ssh/conf.d/a.conf": "Host web\n  User from-a\n",
			"/home/u/.ssh/conf.d/b.conf": "Host web\n  User from-b\n  Port 2022\n",
			"/home/u/.ssh/conf.d/c.txt":  "Host web\n  Port 1\n",
		}, "web", func(t *testing.T, p *Host) {
			if p.User != "from-a" || p.Port != 2022 {
				t.Errorf("got %q %d, want from-a 2022", p.User, p.Port)
			}
		}},
		{"include inside a non-matching host block", map[string]string{
			user:                 "Host other\n  Include extra\nHost *\n  User outer\n",
			"/home/u/.ssh/extra": "User inner\n",
		}, "web", func(t *testing.T, p *Host) { wantUser(t, p, "outer") }},
		{"include inside a matching block restores state", map[string]string{
			user:                 "Host web\n  Include extra\n  Port 2300\n",
			"/home/u/.ssh/extra": "Host nomatch\n  User inner\n",
		}, "web", func(t *testing.T, p *Host) {
			if p.Port != 2300 || p.User != "local" {
				t.Errorf("got %q %d, want local 2300", p.User, p.Port)
			}
		}},
		{"system config after user config", map[string]string{
			user:                  "Host web\n  User mine\n",
			"/etc/ssh/ssh_config": "Host *\n  User system\n  Port 2400\n",
		}, "web", func(t *testing.T, p *Host) {
			if p.User != "mine" || p.Port != 2400 {
				t.Errorf("got %q %d", p.User, p.Port)
			}
		}},
		{"match", map[string]string{user: "Match originalhost web user root\n  Port 1000\n" +
			"Match host real.example.org !user nobody\n  Port 2000\nHost web\n  HostName real.example.org\nMatch all\n  User last\n"},
			"root@web", func(t *testing.T, p *Host) {
				if p.Port != 1000 {
					t.Errorf("port = %d, want 1000", p.Port)
				}
			}},
		{"match host uses HostName", map[string]string{user: "Host web\n  HostName real.example.org\nMatch host *.example.org\n  Port 3000\n"},
			"web", func(t *testing.T, p *Host) {
				if p.Port != 3000 {
					t.Errorf("port = %d, want 3000", p.Port)
				}
			}},
		{"match exec with no runner never matches", map[string]string{user: "Match exec \"true\"\n  Port 4000\n"},
			"web", func(t *testing.T, p *Host) {
				if p.Port != 22 {
					t.Errorf("port = %d, want 22", p.Port)
				}
			}},
		{"proxy jump before command", map[string]string{user: "Host web\n  ProxyJump bastion\n  ProxyCommand nc %h %p\n"},
			"web", func(t *testing.T, p *Host) {
				if p.ProxyJump != "bastion" || p.ProxyCommand != "" {
					t.Errorf("jump %q command %q", p.ProxyJump, p.ProxyCommand)
				}
			}},
		{"proxy command raw with tokens", map[string]string{user: "Host web\n  ProxyCommand ssh -W '%h:%p' \"gw\"  # not a comment\n  ProxyJump ignored\n"},
			"web", func(t *testing.T, p *Host) {
				if p.ProxyJump != "" || p.ProxyCommand != `ssh -W 'web:22' "gw"  # not a comment` {
					t.Errorf("jump %q command %q", p.ProxyJump, p.ProxyCommand)
				}
			}},
		{"policies", map[string]string{user: "Host *\n  StrictHostKeyChecking accept-new\n  HashKnownHosts yes\n  ConnectTimeout 7\n" +
			"  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile ~/a /abs/b\n  AddressFamily inet6\n  PasswordAuthentication no\n"},
			"web", func(t *testing.T, p *Host) {
				if p.StrictHostKeyChecking != "accept-new" || !p.HashKnownHosts || p.ConnectTimeout.Seconds() != 7 || !p.IdentitiesOnly ||
					p.IdentityAgent != "" || !slices.Equal(slashed(p.UserKnownHosts), []string{"/home/u/a", "/abs/b"}) || p.Family != netaddr.IPv6 || p.PasswordAuth {
					t.Errorf("got %+v", p)
				}
			}},
		{"forward agent yes", map[string]string{user: "Host web\n  ForwardAgent yes\n"},
			"web", func(t *testing.T, p *Host) {
				if p.ForwardAgent != "/tmp/agent.sock" {
					t.Errorf("forwardAgent %q, want $SSH_AUTH_SOCK", p.ForwardAgent)
				}
			}},
		{"forward agent path and no", map[string]string{user: "Host web\n  ForwardAgent ~/agent.sock\nHost db\n  ForwardAgent no\n"},
			"web", func(t *testing.T, p *Host) {
				if filepath.ToSlash(p.ForwardAgent) != "/home/u/agent.sock" {
					t.Errorf("forwardAgent %q, want ~/agent.sock expanded", p.ForwardAgent)
				}
			}},
		{"port forwards", map[string]string{user: "Host web\n  LocalForward 8080 db:5432\n  LocalForward [::1]:9090 [::1]:90\n  RemoteForward 2222 localhost:22\n  DynamicForward 1080\n"},
			"web", func(t *testing.T, p *Host) {
				want := Forwards{Local: []string{"8080:db:5432", "[::1]:9090:[::1]:90"}, Remote: []string{"2222:localhost:22"}, Dynamic: []string{"1080"}}
				if !slices.Equal(p.Forwards.Local, want.Local) || !slices.Equal(p.Forwards.Remote, want.Remote) || !slices.Equal(p.Forwards.Dynamic, want.Dynamic) {
					t.Errorf("forwards %+v, want %+v", p.Forwards, want)
				}
			}},
		{"forward agent default", map[string]string{user: "Host db\n  ForwardAgent no\n"},
			"db", func(t *testing.T, p *Host) {
				if p.ForwardAgent != "" {
					t.Errorf("forwardAgent %q, want none", p.ForwardAgent)
				}
			}},
		{"comments and blank lines", map[string]string{user: "# top\n\n   # indented\nHost web # trailing\n\tUser tabbed\n"},
			"web", func(t *testing.T, p *Host) { wantUser(t, p, "tabbed") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseDestination(tc.dest)
			if err != nil {
				t.Fatal(err)
			}
			p, err := testResolver(tc.files).Resolve(d)
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

func wantUser(t *testing.T, p *Host, want string) {
	t.Helper()
	if p.User != want {
		t.Errorf("user = %q, want %q", p.User, want)
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
			_, err := testResolver(map[string]string{user: tc.config}).Resolve(Destination{Host: "web"})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "ssh config ") {
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
		p1, err1 := r.Resolve(Destination{Host: host})
		p2, err2 := r.Resolve(Destination{Host: host})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("non-deterministic: %v vs %v", err1, err2)
		}
		if err1 != nil {
			return
		}
		if p1.Port <= 0 || p1.Port > 65535 || p1.User == "" || p1.HostName == "" || p1.HostName != p2.HostName {
			t.Fatalf("resolve(%q) = %+v", host, p1)
		}
	})
}

// TestProxyCommandPlainTokens: tokens that need no quoting are substituted
// as they are, so a ProxyCommand that quotes them itself keeps working.
func TestProxyCommandPlainTokens(t *testing.T) {
	r := testResolver(map[string]string{"/home/u/.ssh/config": "Host target\n  User alice\n  ProxyCommand ssh -W \"%h:%p\" -l %r jump\n"})
	p, err := r.Resolve(Destination{Host: "target"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `ssh -W "target:22" -l alice jump`; p.ProxyCommand != want {
		t.Errorf("ProxyCommand = %q, want %q", p.ProxyCommand, want)
	}
}

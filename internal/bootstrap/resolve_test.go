package bootstrap

import (
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/sshconfig"
)

// memFS is an in-memory sshconfig.FS. Names are written with slashes; on
// Windows, where the resolver joins paths with backslashes, they are
// compared in slash form, so the same tests run there.
func memFS(files map[string]string) sshconfig.FS {
	return sshconfig.FS{
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

// testResolver is newResolver's resolver, quoting as the platform's
// ProxyCommand needs, with ~/.ssh/config = files["/home/u/.ssh/config"]
// and nothing from this machine.
func testResolver(files map[string]string) *resolver {
	return &resolver{Resolver: sshconfig.Resolver{FS: memFS(files), Home: "/home/u", LocalUser: "local",
		Files: []string{"/home/u/.ssh/config", "/etc/ssh/ssh_config"},
		Dirs:  []string{"/home/u/.ssh", "/etc/ssh"},
		Quote: proxyQuote,
		Getenv: func(k string) (string, bool) {
			if k == "SSH_AUTH_SOCK" {
				return "/tmp/agent.sock", true
			}
			return "", false
		}}}
}

// TestResolveErrors: what the resolver refuses is one error line starting
// "bootstrap: " (the package's errors all do), naming the file and line.
func TestResolveErrors(t *testing.T) {
	const user = "/home/u/.ssh/config"
	tests := []struct {
		name, config, want string
	}{
		{"unterminated quote", "User \"bob\n", "ssh config /home/u/.ssh/config line 1: unterminated quote"},
		{"bad port", "Host *\n Port ssh\n", "line 2: bad Port"},
		{"include loop", "Include config\n", "nested too deeply"},
		{"algorithms", "Ciphers aes256-cbc\n", "Ciphers aes256-cbc leaves no cipher"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := testResolver(map[string]string{user: tc.config})
			for _, resolve := range []func(sshconfig.Destination) (*sshconfig.Host, error){r.resolve, r.resolveHop} {
				_, err := resolve(sshconfig.Destination{Host: "web"})
				if err == nil || !strings.Contains(filepath.ToSlash(err.Error()), tc.want) || !strings.HasPrefix(err.Error(), "bootstrap: ") ||
					strings.Count(err.Error(), "bootstrap: ") != 1 || strings.Contains(err.Error(), "\n") {
					t.Errorf("resolve = %v, want one line starting bootstrap: and containing %q", err, tc.want)
				}
			}
		})
	}
	if _, err := (&Config{Destination: "-oProxyCommand=x"}).destination(); err == nil || err.Error() != `bootstrap: bad host name "-oProxyCommand=x"` {
		t.Errorf("destination of -oProxyCommand=x: %v", err)
	}
	if _, err := (&Config{SSHOptions: []string{"Prot=22"}}).cmdline(); err == nil || err.Error() != `bootstrap: ssh option "Prot=22": unknown ssh_config keyword` {
		t.Errorf("cmdline of Prot=22: %v", err)
	}
}

func TestConfigDestination(t *testing.T) {
	tests := []struct {
		dest    string
		sshPort int
		want    sshconfig.Destination
		err     string
	}{
		{dest: "alice@web", sshPort: 2222, want: sshconfig.Destination{User: "alice", Host: "web", Port: 2222}},
		{dest: "ssh://alice@web:2222", sshPort: 2222, want: sshconfig.Destination{User: "alice", Host: "web", Port: 2222}},
		{dest: "[::1]", sshPort: 2222, want: sshconfig.Destination{Host: "::1", Port: 2222}},
		{dest: "web:2200", want: sshconfig.Destination{Host: "web", Port: 2200}},
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
}

// TestKeywordNotes: the security keywords go to stderr whatever the
// verbosity, the others to the log, each once however many hosts set it.
func TestKeywordNotes(t *testing.T) {
	r := testResolver(map[string]string{"/home/u/.ssh/config": "Host *\n  CheckHostIP yes\n  VerifyHostKeyDNS yes\n  Compression yes\n"})
	var stderr, log []string
	for _, host := range []string{"a", "b", "a"} {
		p, err := r.resolve(sshconfig.Destination{Host: host})
		if err != nil {
			t.Fatal(err)
		}
		r.notes.note(p, host, func(s string) { stderr = append(stderr, s) },
			func(f string, args ...any) { log = append(log, f) })
	}
	if len(stderr) != 1 || !strings.Contains(stderr[0], "sets CheckHostIP and VerifyHostKeyDNS, which gosh's built-in SSH client does not honour") {
		t.Errorf("stderr = %q, want one line naming CheckHostIP and VerifyHostKeyDNS", stderr)
	}
	if len(log) != 1 {
		t.Errorf("log = %q, want one line", log)
	}
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
	if _, err := r.resolve(sshconfig.Destination{Host: "web"}); err == nil || !strings.Contains(err.Error(), missing+" (-F) does not exist") {
		t.Errorf("resolve with -F %s = %v, want an error naming the file", missing, err)
	}
	r, err = newResolver(&Config{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	r.Files = []string{missing}
	if _, err := r.resolve(sshconfig.Destination{Host: "web"}); err != nil {
		t.Errorf("resolve without -F and no config files: %v", err)
	}
}

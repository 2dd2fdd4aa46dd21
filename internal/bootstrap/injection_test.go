package bootstrap

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/sshconfig"
)

// TestProxyCommandTokensQuoted: every %-token substituted into a
// ProxyCommand is one word, whatever it holds (here a user name from
// ssh_config, which the command line could not have given): one shell word
// on Unix, one CreateProcess argument on Windows. The ProxyCommand is this
// test binary, which prints the arguments it got (echoArgsEnv).
func TestProxyCommandTokensQuoted(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(echoArgsEnv, "1")
	dir := t.TempDir()
	marker := filepath.Join(dir, "X")
	for _, user := range []string{
		"$(id>" + marker + ")`id>" + marker + "`;id>" + marker,
		`a "b c" d\" e`, `tail\`, `x & echo >` + marker, `%PATH%!x!^`,
	} {
		r := testResolver(map[string]string{"/home/u/.ssh/config": "Host target\n  User " + configWord(user) + "\n  ProxyCommand " + proxyQuote(exe) + " %r %h:%p\n"})
		p, err := r.resolve(sshconfig.Destination{Host: "target"})
		if err != nil {
			t.Fatal(err)
		}
		if p.User != user {
			t.Fatalf("user = %q, want %q", p.User, user)
		}
		c, err := startProxyCommand(p.ProxyCommand, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(c)
		c.Close()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("the ProxyCommand %q ran a command hidden in the user name", p.ProxyCommand)
		}
		if got, want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), []string{user, "target:22"}; !slices.Equal(got, want) {
			t.Errorf("ProxyCommand %q got arguments %q, want %q", p.ProxyCommand, got, want)
		}
	}
}

// configWord quotes s as one ssh_config argument.
func configWord(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

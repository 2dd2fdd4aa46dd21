package main

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/terminfo"
)

// TestMistypedCommand: a first word one edit from a subcommand, or a
// prefix of four letters or more of one, is a mistyped command; words
// that look like host names stay hosts.
func TestMistypedCommand(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer))
	tests := []struct {
		word string
		want string // the suggestion, or "" for none
	}{
		{"sesions", "sessions"},  // a deletion
		{"session", "sessions"},  // the singular
		{"sessiosn", "sessions"}, // a transposition
		{"conect", "connect"},    // a deletion
		{"connetc", "connect"},   // a transposition
		{"cpnnect", "connect"},   // a substitution
		{"connectt", "connect"},  // an insertion
		{"Sessions", "sessions"}, // case
		{"sess", "sessions"},     // a prefix
		{"serv", "server"},       // a prefix
		{"vers", "version"},      // a prefix
		{"hlep", "help"},         // short: a transposition
		{"enviroment", "environment"},
		{"clien", "client"},
		{"sessions", ""}, // the command itself
		{"connect", ""},
		{"server1", ""}, // digits: a host
		{"web", ""},     // far from everything
		{"ses", ""},     // a prefix, but too short
		{"se", ""},      // ambiguous and short
		{"sesion", ""},  // two edits
		{"sessions.example.org", ""},
		{"alice@sesions", ""},
		{"sesions:2222", ""},
		{"-v", ""},
		{"", ""},
		{"ses ions", ""},
		{"sesions\n", ""},
		{"sesiöns", ""},
	}
	for _, tc := range tests {
		err := mistypedCommand(root, []string{tc.word, "lo"})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v; want it dialled as a host", tc.word, err)
		case tc.want != "" && err == nil:
			t.Errorf("%q: dialled as a host; want did you mean %s", tc.word, tc.want)
		case tc.want != "":
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "did you mean "+tc.want+"?") ||
				!strings.Contains(err.Error(), "gosh connect "+tc.word) {
				t.Errorf("%q: %v; want a usage error suggesting %s and gosh connect %s", tc.word, err, tc.want, tc.word)
			}
		}
	}
	if err := mistypedCommand(root, nil); err != nil {
		t.Errorf("no arguments: %v", err)
	}
	for in, want := range map[string]string{"": "", "a": "a", "a b": "a or b", "a b c": "a, b or c"} {
		if got := joinOr(strings.Fields(in)); got != want {
			t.Errorf("joinOr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"abc", "abc", 0},
		{"abc", "acb", 1}, {"ca", "abc", 3}, {"kitten", "sitting", 3},
		{"sesions", "sessions", 1}, {"sessions", "sesions", 1}, {"server1", "server", 1},
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func FuzzMistypedCommand(f *testing.F) {
	for _, s := range []string{"sesions", "server1", "a.b", "", "-x", "ßessions", "\x00", "connect"} {
		f.Add(s)
	}
	root := newRootCmd(strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer))
	f.Fuzz(func(t *testing.T, word string) {
		err := mistypedCommand(root, []string{word})
		if err == nil {
			return
		}
		if strings.IndexFunc(word, notASCIILetter) >= 0 {
			t.Fatalf("%q, not only letters, refused: %v", word, err)
		}
		if d := editDistance(word, word); d != 0 {
			t.Fatalf("editDistance(%q, itself) = %d", word, d)
		}
	})
}

// TestHelpDefaults: no flag of any command says its default twice (its
// text and cobra's "(default …)").
func TestHelpDefaults(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer))
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			one := pflag.NewFlagSet("", pflag.ContinueOnError)
			one.AddFlag(fl)
			line := one.FlagUsages()
			n++
			if k := strings.Count(strings.ToLower(line), "default"); k > 1 {
				t.Errorf("%s --%s says default %d times: %s", c.CommandPath(), fl.Name, k, strings.TrimSpace(line))
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n < 60 {
		t.Errorf("looked at %d flags, want them all (over 60)", n)
	}
}

// TestEnvironmentComplete: gosh help environment lists every MOSH_* and
// GOSH_* variable the sources name (but the test harness's own), and
// nothing else.
func TestEnvironmentComplete(t *testing.T) {
	listed := map[string]bool{}
	for _, g := range environment {
		for _, v := range g.vars {
			listed[v.name] = true
		}
	}
	name := regexp.MustCompile(`"((?:MOSH|GOSH)_[A-Z0-9_]+)"`)
	found := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "e2etest" || d.Name() == "winetest" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range name.FindAllSubmatch(b, -1) {
			found[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for v := range found {
		if !listed[v] {
			t.Errorf("%s is read by gosh but gosh help environment does not list it", v)
		}
	}
	for v := range listed {
		if !found[v] {
			t.Errorf("gosh help environment lists %s, which no source names", v)
		}
	}
	if len(found) < 10 {
		t.Errorf("found %d variables in the sources, want the dozen gosh reads", len(found))
	}
	help := environmentText()
	for v := range listed {
		if !strings.Contains(help, "  "+v+"\n") {
			t.Errorf("the help text lacks %s", v)
		}
	}
}

// TestManEnvironment: gosh(1), as cobra's generator writes it, gets an
// ENVIRONMENT section before SEE ALSO with every variable.
func TestManEnvironment(t *testing.T) {
	dir := t.TempDir()
	root := newRootCmd(strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer))
	root.DisableAutoGenTag = true
	if err := doc.GenManTree(root, &doc.GenManHeader{Title: "GOSH", Section: "1"}, dir); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "gosh.1")
	if err := addManEnvironment(page); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	env, see := strings.Index(s, "\n.SH ENVIRONMENT\n"), strings.Index(s, "\n.SH SEE ALSO")
	if env < 0 || see < 0 || env > see || strings.Count(s, ".SH ENVIRONMENT") != 1 {
		t.Fatalf("gosh.1: ENVIRONMENT at %d, SEE ALSO at %d; want one ENVIRONMENT section before SEE ALSO", env, see)
	}
	for _, g := range environment {
		for _, v := range g.vars {
			if !strings.Contains(s, ".B "+v.name+"\n") {
				t.Errorf("gosh.1 lacks %s", v.name)
			}
		}
	}
	if got := string(withManSection([]byte(".TH X\n.SH NAME\nx"), ".SH E\n")); got != ".TH X\n.SH NAME\nx\n.SH E\n" {
		t.Errorf("a page without SEE ALSO: %q", got)
	}
	if got := roffEscape(".x -y \\z"); got != `\&.x \-y \ez` {
		t.Errorf("roffEscape = %q", got)
	}
}

// TestExplainRefused: a refused SSH connection says what -p is, when -p
// was given and the command line named no SSH port.
func TestExplainRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close()
	_, dialErr := net.Dial("tcp", addr.String())
	var oe *net.OpError
	if !errors.As(dialErr, &oe) {
		t.Fatalf("dialling a closed port: %v", dialErr)
	}
	refused := &bootstrap.DialError{Addr: addr.String(), Port: addr.Port, Err: oe.Err}
	one, rng := netaddr.Ports(2222, 2222), netaddr.Ports(60001, 60010)
	tests := []struct {
		name string
		o    ConnectOptions
		err  error
		want string // in the message; "" for none added
	}{
		{"-p 2222", ConnectOptions{Ports: one}, refused, "(-p 2222 is the server's UDP port, as in mosh; to log in over SSH on another port, use --ssh-port 2222, HOST:2222 or ssh://HOST:2222)"},
		{"-p range", ConnectOptions{Ports: rng}, refused, "(-p 60001:60010 is the server's UDP port, as in mosh; to log in over SSH on another port, use --ssh-port PORT, HOST:PORT or ssh://HOST:PORT)"},
		{"no -p", ConnectOptions{}, refused, ""},
		{"--ssh-port given", ConnectOptions{Ports: one, SSHLogin: SSHLogin{SSHPort: 2200}}, refused, ""},
		{"port in the destination", ConnectOptions{Ports: one, destPort: 2200}, refused, ""},
		{"another error", ConnectOptions{Ports: one}, &bootstrap.DialError{Addr: "h:22", Port: 22, Err: errors.New("no route to host")}, ""},
	}
	for _, tc := range tests {
		got := explainRefused(&tc.o, tc.err)
		if !errors.Is(got, tc.err) {
			t.Errorf("%s: %v does not wrap the error", tc.name, got)
		}
		switch {
		case tc.want == "" && got.Error() != tc.err.Error():
			t.Errorf("%s: %q; want the error as it was", tc.name, got)
		case tc.want != "" && !strings.HasSuffix(got.Error(), tc.want):
			t.Errorf("%s: %q; want it to end %q", tc.name, got, tc.want)
		}
	}
}

// TestServerColors: with TERM unset and WT_SESSION set (Windows
// Terminal), a gosh server is told of 24-bit colour and a stock
// mosh-server of 256 colours; gosh client -c, for mosh's wrapper, says
// 256.
func TestServerColors(t *testing.T) {
	unsetenv(t, "TERM")
	unsetenv(t, "COLORTERM")
	unsetenv(t, "TERM_PROGRAM")
	t.Setenv("WT_SESSION", "0f6e9d7a-1c2b-4e55-9a1f-3b2c8d7e6f10")
	if got := serverColors(&ConnectOptions{Server: bootstrap.DefaultServerCommand}); got != terminfo.TrueColor {
		t.Errorf("colours for gosh server = %d, want %d", got, terminfo.TrueColor)
	}
	if got := serverColors(&ConnectOptions{Server: "mosh-server"}); got != 256 {
		t.Errorf("colours for mosh-server = %d, want 256", got)
	}
	var out bytes.Buffer
	cmd := newClientCmd(func(*ConnectOptions) error { t.Fatal("connected"); return nil })
	cmd.SetArgs([]string{"-c"})
	cmd.SetOut(&out)
	if err := cmd.Execute(); err != nil || strings.TrimSpace(out.String()) != "256" {
		t.Errorf("gosh client -c = %q, %v; want 256", out.String(), err)
	}
	if ti := loadTermInfo(); runtime.GOOS != "windows" && !slices.Contains(ti.Names, "xterm-256color") {
		t.Errorf("the terminal with no TERM in Windows Terminal is %q, want xterm-256color's fallback", ti.Names)
	}
}

// TestIdentityPath: --identity files are made absolute, ~ expanded, and a
// missing one is refused.
func TestIdentityPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	key := filepath.Join(home, "k")
	if err := os.WriteFile(key, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(home)
	for _, in := range []string{"k", "./k", "~/k", key} {
		if got, err := identityPath(in); err != nil || got != key {
			t.Errorf("identityPath(%q) = %q, %v; want %q", in, got, err, key)
		}
	}
	for _, in := range []string{"nokey", home} {
		if _, err := identityPath(in); err == nil {
			t.Errorf("identityPath(%q): no error", in)
		}
	}
	if got, err := identityPath("%d/.ssh/id_%r"); err != nil || got != "%d/.ssh/id_%r" {
		t.Errorf("identityPath with tokens = %q, %v; want it left to the bootstrap", got, err)
	}
}

// TestSessionsSSHFlags: gosh sessions takes the same SSH options.
func TestSessionsSSHFlags(t *testing.T) {
	var got *SessionsOptions
	cmd := newSessionsCmd(func(o *SessionsOptions) error { got = o; return nil })
	err := execQuiet(cmd, []string{"--ssh-port", "2222", "--jump", "gw", "--ssh-option", "User=bob", "h"})
	if err != nil || got == nil || got.SSHPort != 2222 || got.Jump != "gw" || !slices.Equal(got.SSHOptions, []string{"User=bob"}) {
		t.Fatalf("gosh sessions with SSH options = %+v, %v", got, err)
	}
	cmd = newSessionsCmd(func(o *SessionsOptions) error { t.Fatal("ran"); return nil })
	if err := execQuiet(cmd, []string{"--ssh-port", "2222", "h:22"}); err == nil || !strings.Contains(err.Error(), "names SSH port 22") {
		t.Errorf("gosh sessions with two SSH ports: %v", err)
	}
}

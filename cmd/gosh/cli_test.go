package main

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/daemon"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
)

// parseConnect runs "gosh connect" with args and returns the options its
// runF captured (nil if runF was not reached) and the error.
func parseConnect(t *testing.T, args ...string) (*ConnectOptions, error) {
	t.Helper()
	var got *ConnectOptions
	err := execQuiet(newConnectCmd(func(o *ConnectOptions) error { got = o; return nil }), args)
	return got, err
}

// execQuiet runs cmd with args as the command line does (flag errors are
// usage errors), its output discarded.
func execQuiet(cmd *cobra.Command, args []string) error {
	cmd.SetFlagErrorFunc(flagError)
	cmd.SetArgs(append([]string{}, args...)) // never nil: cobra would read os.Args
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestConnectFlags(t *testing.T) {
	unsetenv(t, "MOSH_PREDICTION_DISPLAY")
	unsetenv(t, "MOSH_PREDICTION_OVERWRITE")
	tests := []struct {
		name string
		args []string
		want ConnectOptions // only the fields compared below
	}{
		{"host", []string{"alice@example.net"},
			ConnectOptions{Destination: "alice@example.net", Server: "gosh server", BindServer: "ssh"}},
		{"command after the host, as mosh", []string{"h", "tmux", "attach", "-d"},
			ConnectOptions{Destination: "h", Command: []string{"tmux", "attach", "-d"}, Server: "gosh server", BindServer: "ssh"}},
		{"dash before the host, as mosh", []string{"-a", "--", "h", "ls"},
			ConnectOptions{Destination: "h", Command: []string{"ls"}, Predict: predict.Always, Server: "gosh server", BindServer: "ssh"}},
		{"mosh's other flags", []string{"--family=prefer-inet6", "-o", "--experimental-remote-ip=remote", "--no-ssh-pty", "h"},
			ConnectOptions{Destination: "h", Family: netaddr.PreferIPv6, PredictOverwrite: true, RemoteIP: bootstrap.RemoteIPRemote, NoSSHPTY: true, Server: "gosh server", BindServer: "ssh"}},
		{"command after dash", []string{"h", "--", "tmux", "attach"},
			ConnectOptions{Destination: "h", Command: []string{"tmux", "attach"}, Server: "gosh server", BindServer: "ssh"}},
		{"local", []string{"--local"},
			ConnectOptions{Local: true, Server: "gosh server", BindServer: "ssh"}},
		{"local with command", []string{"--local", "--", "sh"},
			ConnectOptions{Local: true, Command: []string{"sh"}, Server: "gosh server", BindServer: "ssh"}},
		{"direct", []string{"--direct", "127.0.0.1", "60001"},
			ConnectOptions{Direct: true, DirectHost: "127.0.0.1", DirectPort: 60001, Server: "gosh server", BindServer: "ssh"}},
		{"server and ssh", []string{"--server=mosh-server", "--ssh=ssh -p 22", "h"},
			ConnectOptions{Destination: "h", Server: "mosh-server", SSH: "ssh -p 22", BindServer: "ssh"}},
		{"predict", []string{"--predict=never", "--predict-overwrite", "h"},
			ConnectOptions{Destination: "h", Predict: predict.Never, PredictOverwrite: true, Server: "gosh server", BindServer: "ssh"}},
		{"always short", []string{"-a", "h"},
			ConnectOptions{Destination: "h", Predict: predict.Always, Server: "gosh server", BindServer: "ssh"}},
		{"family and port", []string{"-6", "-p", "60001:60010", "h"},
			ConnectOptions{Destination: "h", Family: netaddr.IPv6, Ports: netaddr.Ports(60001, 60010), Server: "gosh server", BindServer: "ssh"}},
		{"verbose", []string{"-vv", "h"},
			ConnectOptions{Destination: "h", Verbose: 2, Server: "gosh server", BindServer: "ssh"}},
		{"resume the newest", []string{"--resume"},
			ConnectOptions{Resume: true, Server: "gosh server", BindServer: "ssh"}},
		{"resume an ID", []string{"--resume", "3fa2c1d0"},
			ConnectOptions{Resume: true, ResumeID: "3fa2c1d0", Server: "gosh server", BindServer: "ssh"}},
		{"resume for a host", []string{"--resume", "alice@box"},
			ConnectOptions{Resume: true, Destination: "alice@box", Server: "gosh server", BindServer: "ssh"}},
		{"new", []string{"--new", "h"},
			ConnectOptions{New: true, Destination: "h", Server: "gosh server", BindServer: "ssh"}},
		{"Mosh's pacing", []string{"--pacing=mosh", "h"},
			ConnectOptions{Destination: "h", Pacing: ssp.PacingMosh, Server: "gosh server", BindServer: "ssh"}},
		{"ssh port and a UDP port", []string{"--ssh-port", "2222", "-p", "60001", "h"},
			ConnectOptions{Destination: "h", SSHLogin: SSHLogin{SSHPort: 2222}, Ports: netaddr.Ports(60001, 60001), Server: "gosh server", BindServer: "ssh"}},
		{"ssh URL", []string{"ssh://alice@h:2222"},
			ConnectOptions{Destination: "ssh://alice@h:2222", destPort: 2222, Server: "gosh server", BindServer: "ssh"}},
		{"ssh URL and the same --ssh-port", []string{"--ssh-port=2222", "ssh://[::1]:2222"},
			ConnectOptions{Destination: "ssh://[::1]:2222", destPort: 2222, SSHLogin: SSHLogin{SSHPort: 2222}, Server: "gosh server", BindServer: "ssh"}},
		{"IPv6 literal with a port", []string{"[::1]:2200"},
			ConnectOptions{Destination: "[::1]:2200", destPort: 2200, Server: "gosh server", BindServer: "ssh"}},
		{"IPv6 literal", []string{"root@[::1]"},
			ConnectOptions{Destination: "root@[::1]", Server: "gosh server", BindServer: "ssh"}},
		{"jump and ssh options", []string{"--jump", "gw,alice@gw2:2200", "--ssh-option", "User=bob", "--ssh-option", "ServerAliveInterval 30", "h"},
			ConnectOptions{Destination: "h", SSHLogin: SSHLogin{Jump: "gw,alice@gw2:2200", SSHOptions: []string{"User=bob", "ServerAliveInterval 30"}}, Server: "gosh server", BindServer: "ssh"}},
		{"ssh options with --ssh", []string{"--ssh=ssh", "--ssh-port=2222", "--jump=gw", "h"},
			ConnectOptions{Destination: "h", SSH: "ssh", SSHLogin: SSHLogin{SSHPort: 2222, Jump: "gw"}, Server: "gosh server", BindServer: "ssh"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConnect(t, tc.args...)
			if err != nil {
				t.Fatalf("connect %q: %v", tc.args, err)
			}
			got.Stdin, got.Stdout, got.Stderr, got.ctx = nil, nil, nil, nil
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("connect %q:\n got %+v\nwant %+v", tc.args, *got, tc.want)
			}
		})
	}
}

func TestConnectPredictFromEnv(t *testing.T) {
	t.Setenv("MOSH_PREDICTION_DISPLAY", "always")
	t.Setenv("MOSH_PREDICTION_OVERWRITE", "yes")
	got, err := parseConnect(t, "h")
	if err != nil {
		t.Fatal(err)
	}
	if got.Predict != predict.Always || !got.PredictOverwrite {
		t.Errorf("Predict, PredictOverwrite = %v, %v; want always, true", got.Predict, got.PredictOverwrite)
	}
	for _, bad := range []string{"sometimes", ""} {
		t.Setenv("MOSH_PREDICTION_DISPLAY", bad)
		if _, err := parseConnect(t, "h"); err == nil || !strings.Contains(err.Error(), "MOSH_PREDICTION_DISPLAY") {
			t.Errorf("MOSH_PREDICTION_DISPLAY=%q gave %v, want an error naming it", bad, err)
		}
	}
	if got, err := parseConnect(t, "--predict=never", "h"); err != nil || got.Predict != predict.Never {
		t.Errorf("--predict=never with a bad MOSH_PREDICTION_DISPLAY = %v, %v; want never (the flag wins)", got, err)
	}
}

func TestConnectBadArgs(t *testing.T) {
	unsetenv(t, "MOSH_PREDICTION_DISPLAY")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no host", nil, "missing host"},
		{"local and direct", []string{"--local", "--direct"}, "cannot be combined"},
		{"direct one arg", []string{"--direct", "127.0.0.1"}, "exactly HOST PORT"},
		{"direct bad port", []string{"--direct", "127.0.0.1", "x"}, "bad UDP port"},
		{"direct port 0", []string{"--direct", "127.0.0.1", "0"}, "bad UDP port"},
		{"bad predict", []string{"--predict=sometimes", "h"}, "unknown prediction mode"},
		{"bad upload", []string{"--upload=sometimes", "h"}, "bad upload mode"},
		{"bad pacing", []string{"--pacing=fast", "h"}, "unknown pacing"},
		{"resume and local", []string{"--resume", "--local"}, "--resume cannot be combined"},
		{"resume and new", []string{"--resume", "--new", "h"}, "--resume cannot be combined"},
		{"resume two args", []string{"--resume", "h", "ls"}, "one session ID or host"},
		{"bad transport", []string{"--transport=quic", "h"}, "unknown transport"},
		{"bad -L", []string{"-L", "8080:db", "h"}, "bad -L"},
		{"bad -D", []string{"-D", "x", "h"}, "bad -D"},
		{"-L with mosh-server", []string{"-L", "8080:db:5432", "--server=mosh-server", "h"}, "need a gosh server"},
		{"bad -R", []string{"-R", "8080", "h"}, "bad -R"},
		{"tcp with --ssh", []string{"--transport=tcp", "--ssh=ssh", "h"}, "needs the built-in SSH client"},
		{"tcp with --direct", []string{"--transport=tcp", "--direct", "127.0.0.1", "60001"}, "needs the built-in SSH client"},
		{"a and n", []string{"-a", "-n", "h"}, "cannot be combined"},
		{"4 and 6", []string{"-4", "-6", "h"}, "cannot be combined"},
		{"bad port range", []string{"-p", "9:8", "h"}, "greater than high port"},
		{"unknown flag", []string{"--bogus", "h"}, "unknown flag"},
		{"bad ssh port", []string{"--ssh-port", "ssh", "h"}, `bad port "ssh"`},
		{"ssh port 0", []string{"--ssh-port", "0", "h"}, `bad port "0"`},
		{"two SSH ports", []string{"--ssh-port", "2222", "h:2200"}, "h:2200 names SSH port 2200, and --ssh-port says 2222"},
		{"two SSH ports in a URL", []string{"--ssh-port", "2222", "ssh://h:2200"}, "names SSH port 2200"},
		{"bad destination", []string{"h;rm"}, `bad host name "h;rm"`},
		{"bad destination port", []string{"h:ssh"}, `bad port "ssh"`},
		{"ssh URL with a path", []string{"ssh://h/x"}, "bad ssh:// destination"},
		{"missing identity", []string{"--identity", "/nonexistent/key", "h"}, "--identity /nonexistent/key: no such key file"},
		{"bad jump", []string{"--jump", "gw,-oProxyCommand=x", "h"}, "--jump: jump host"},
		{"unknown ssh option", []string{"--ssh-option", "Prot=22", "h"}, "unknown ssh_config keyword"},
		{"ssh option Host", []string{"--ssh-option", "Host=x", "h"}, "works only in a file"},
		{"bad ssh option value", []string{"--ssh-option", "Port=x", "h"}, "bad Port"},
		{"ssh options with --local", []string{"--ssh-port", "22", "--local"}, "not with --local or --direct"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConnect(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("connect %q: err = %v, want one containing %q", tc.args, err, tc.want)
			}
			if _, ok := err.(*usageError); !ok {
				t.Errorf("connect %q: err is %T, want *usageError", tc.args, err)
			}
			if got != nil {
				t.Errorf("connect %q reached runF", tc.args)
			}
		})
	}
}

func parseServer(t *testing.T, args ...string) (*ServerOptions, error) {
	t.Helper()
	var got *ServerOptions
	cmd := newServerCmd(func(o *ServerOptions) error { got = o; return nil })
	for _, c := range append(cmd.Commands(), cmd) {
		c.SetFlagErrorFunc(flagError)
	}
	cmd.SetArgs(append([]string{}, args...)) // never nil: cobra would read os.Args
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return got, err
}

func TestServerFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want ServerOptions
	}{
		{"plain", []string{"new"}, ServerOptions{}},
		{"mosh wrapper style", []string{"new", "-c", "256", "-s", "-l", "LANG=C.UTF-8", "-l", "LC_ALL=C.UTF-8"},
			ServerOptions{Options: daemon.Options{Colors: 256, BindSSH: true, Locale: []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8"}}}},
		{"ip and port", []string{"new", "-i", "127.0.0.1", "-p", "60001"},
			ServerOptions{Options: daemon.Options{BindIP: netip.MustParseAddr("127.0.0.1"), Ports: netaddr.Ports(60001, 60001)}}},
		{"range", []string{"new", "-p", "60001:60010"}, ServerOptions{Options: daemon.Options{Ports: netaddr.Ports(60001, 60010)}}},
		{"kernel port", []string{"new", "-p", "0"}, ServerOptions{Options: daemon.Options{Ports: netaddr.AnyPort}}},
		{"command", []string{"new", "-v", "--", "tmux", "attach", "-d"},
			ServerOptions{Options: daemon.Options{Verbose: 1, Command: []string{"tmux", "attach", "-d"}}}},
		{"ignored at", []string{"new", "-@", "x"}, ServerOptions{}},
		{"pacing", []string{"new", "--pacing", "mosh"}, ServerOptions{Options: daemon.Options{Pacing: ssp.PacingMosh}}},
		{"scrollback", []string{"new", "--scrollback", "500"}, ServerOptions{Options: daemon.Options{Scrollback: 500}}},
		{"no scrollback", []string{"new", "--scrollback", "0"}, ServerOptions{Options: daemon.Options{Scrollback: session.NoScrollback}}},
		{"forwarding policy", []string{"new", "--allow-tcp-forwarding=local", "--gateway-ports", "clientspecified", "--allow-agent-forwarding=no"},
			ServerOptions{Options: daemon.Options{Forwarding: session.ForwardPolicy{TCP: session.TCPLocal, Gateway: session.GatewayClientSpecified, Agent: session.AgentNo}}}},
	}
	for _, v := range forwardPolicyVars {
		unsetenv(t, v.env)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseServer(t, tc.args...)
			if err != nil {
				t.Fatalf("server %q: %v", tc.args, err)
			}
			got.Stdin, got.Stdout, got.Stderr, got.ctx = nil, nil, nil, nil
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("server %q:\n got %+v\nwant %+v", tc.args, *got, tc.want)
			}
		})
	}
}

func TestServerBadArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no new", nil, "missing subcommand"},
		{"bad colors", []string{"new", "-c", "lots"}, "bad number of colors"},
		{"port too big", []string{"new", "-p", "70000"}, "outside valid range"},
		{"port range from 0", []string{"new", "-p", "0:5"}, "low port 0"},
		{"port range reversed", []string{"new", "-p", "6:5"}, "greater than high port"},
		{"bad locale", []string{"new", "-l", "LANG"}, "NAME=VALUE"},
		{"bad address", []string{"new", "-i", "localhost"}, "bad local address"},
		{"s and i", []string{"new", "-s", "-i", "::1"}, "cannot be combined"},
		{"stray argument", []string{"new", "x"}, "unexpected argument"},
		{"bad pacing", []string{"new", "--pacing=fast"}, "unknown pacing"},
		{"bad gateway ports", []string{"new", "--gateway-ports=maybe"}, `bad value "maybe" (want no, clientspecified, yes)`},
		{"unknown flag", []string{"new", "-Z"}, "unknown shorthand flag"},
		{"negative scrollback", []string{"new", "--scrollback", "-1"}, "bad line count \"-1\""},
		{"huge scrollback", []string{"new", "--scrollback", "99999999999"}, "want 0 (none) to 1000000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseServer(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("server %q: err = %v, want one containing %q", tc.args, err, tc.want)
			}
			if _, ok := err.(*usageError); !ok {
				t.Errorf("server %q: err is %T, want *usageError", tc.args, err)
			}
			if got != nil {
				t.Errorf("server %q reached runF", tc.args)
			}
		})
	}
}

// TestForwardPolicyEnv: the GOSH_ variables set what the flags leave at
// their defaults; where both are given, the stricter applies; a bad value
// is a usage error naming the variable.
func TestForwardPolicyEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want session.ForwardPolicy
	}{
		{"env alone", map[string]string{"GOSH_GATEWAY_PORTS": "yes", "GOSH_ALLOW_TCP_FORWARDING": "remote"}, nil,
			session.ForwardPolicy{TCP: session.TCPRemote, Gateway: session.GatewayYes}},
		{"stricter env", map[string]string{"GOSH_GATEWAY_PORTS": "no", "GOSH_ALLOW_AGENT_FORWARDING": "no"},
			[]string{"--gateway-ports=yes", "--allow-agent-forwarding=yes"}, session.ForwardPolicy{Agent: session.AgentNo}},
		{"stricter flag", map[string]string{"GOSH_ALLOW_TCP_FORWARDING": "local"}, []string{"--allow-tcp-forwarding=remote"},
			session.ForwardPolicy{TCP: session.TCPNo}},
		{"empty is unset", map[string]string{"GOSH_GATEWAY_PORTS": ""}, []string{"--gateway-ports=clientspecified"},
			session.ForwardPolicy{Gateway: session.GatewayClientSpecified}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range forwardPolicyVars {
				unsetenv(t, v.env)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			got, err := parseServer(t, append([]string{"new"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if got.Forwarding != tc.want {
				t.Errorf("policy %+v, want %+v", got.Forwarding, tc.want)
			}
		})
	}
	t.Setenv("GOSH_GATEWAY_PORTS", "sometimes")
	_, err := parseServer(t, "new")
	if _, ok := err.(*usageError); !ok || !strings.Contains(fmt.Sprint(err), `GOSH_GATEWAY_PORTS: bad value "sometimes"`) {
		t.Errorf("a bad GOSH_GATEWAY_PORTS: %v", err)
	}
}

// TestExitStatus checks the exit statuses and the one-line error of the
// whole program.
func TestExitStatus(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStderr string
	}{
		{[]string{"version"}, exitOK, ""},
		{[]string{"--help"}, exitOK, ""},
		{[]string{"connect", "--help"}, exitOK, ""},
		{[]string{"connect"}, exitUsage, "gosh connect: missing host"},
		{[]string{"--bogus"}, exitUsage, "gosh connect: unknown flag: --bogus"},
		{[]string{"--version"}, exitOK, ""},
		{[]string{"connect", "--nope"}, exitUsage, "gosh connect: unknown flag: --nope"},
		{[]string{"server", "new", "-p", "x"}, exitUsage, "gosh server new: invalid argument \"x\" for \"-p, --port\" flag: bad UDP port \"x\""},
		{[]string{"version", "extra"}, exitUsage, "unknown command or argument"},
		{[]string{"-V"}, exitOK, ""},
		{[]string{"-v"}, exitUsage, "gosh connect: missing host"},
		{[]string{"sesions", "lo"}, exitUsage, `gosh: unknown command "sesions"; did you mean sessions? (for a host of that name: gosh connect sesions)`},
		{[]string{"conect", "h"}, exitUsage, "did you mean connect?"},
		{[]string{"serv"}, exitUsage, "did you mean server?"},
		{[]string{"help", "environment"}, exitOK, ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tc.wantCode, stderr.String())
			}
			if tc.wantStderr == "" {
				if stderr.Len() != 0 {
					t.Errorf("stderr = %q, want empty", stderr.String())
				}
				return
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tc.wantStderr)
			}
			if n := strings.Count(stderr.String(), "\n"); n != 1 {
				t.Errorf("stderr has %d lines, want 1: %q", n, stderr.String())
			}
		})
	}
}

// TestRootHelp: gosh --help and gosh help start with the forms of the
// command line, the main one first (gosh HOST), as mosh --help and ssh
// do, and still list the subcommands; a subcommand's help keeps its own
// usage line.
func TestRootHelp(t *testing.T) {
	help := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != exitOK || stderr.Len() != 0 {
			t.Fatalf("gosh %s: exit status %d, stderr %q", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	const start = "Usage:\n  gosh [options] [user@]host[:port] [--] [COMMAND...]\n  gosh [command]\n\n"
	out := help("--help")
	if !strings.HasPrefix(out, start) {
		t.Errorf("gosh --help starts %q, want %q", out[:min(len(out), 120)], start)
	}
	for _, want := range []string{"gosh [options] HOST is gosh connect [options] HOST", "Available Commands:",
		"\n  connect ", "\n  sessions ", "\n  server ", "\n  version ", "-V, --version"} {
		if !strings.Contains(out, want) {
			t.Errorf("gosh --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "gosh [flags]") {
		t.Errorf("gosh --help still shows gosh [flags]:\n%s", out)
	}
	if again := help("help"); again != out {
		t.Errorf("gosh help differs from gosh --help:\n%s", again)
	}
	if sub := help("connect", "--help"); !strings.Contains(sub, "Usage:\n  gosh connect [options] [user@]host[:port] [--] [COMMAND...]") ||
		strings.Contains(sub, "gosh [command]") {
		t.Errorf("gosh connect --help:\n%s", sub)
	}
}

// TestConnectNoTerminal: gosh connect with a standard input that is not a
// terminal (a script, < /dev/null) says so in one line before it logs in
// or starts anything, and points to ssh for a command run without one.
func TestConnectNoTerminal(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "off") // runConnect leaves the test's limit alone
	t.Setenv("MOSH_KEY", "AAAAAAAAAAAAAAAAAAAAAA")
	const msg = "gosh: connect: standard input is not a terminal, and a gosh session needs one"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"connect", "--ssh-port", "1", "127.0.0.1", "--", "echo", "hi"}, msg + "; to run a command without a terminal, use ssh 127.0.0.1 COMMAND"},
		{[]string{"--ssh-port", "1", "alice@127.0.0.1"}, msg + "; to run a command without a terminal, use ssh alice@127.0.0.1 COMMAND"},
		{[]string{"connect", "--direct", "127.0.0.1", "9"}, msg},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdin, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer stdout.Close()
			var stderr bytes.Buffer
			code := run(context.Background(), tc.args, stdin, stdout, &stderr)
			if code != exitError || stderr.String() != tc.want+"\n" {
				t.Errorf("gosh %s < /dev/null: exit status %d, stderr %q; want %d and %q",
					strings.Join(tc.args, " "), code, stderr.String(), exitError, tc.want)
			}
		})
	}
}

// unsetenv removes name from the environment for the test.
func unsetenv(t *testing.T, name string) {
	t.Setenv(name, "") // restores the old value after the test
	os.Unsetenv(name)
}

// TestClientCommand: gosh client takes mosh-client's command line, and a
// gosh invoked as gosh-client or mosh-client is gosh client.
func TestClientCommand(t *testing.T) {
	var got *ConnectOptions
	cmd := newClientCmd(func(o *ConnectOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"-#", "host -- ls", "192.0.2.1", "60001"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err != nil || got == nil || !got.Direct || got.DirectHost != "192.0.2.1" || got.DirectPort != 60001 {
		t.Fatalf("gosh client -# … 192.0.2.1 60001 = %+v, %v", got, err)
	}
	var out bytes.Buffer
	cmd = newClientCmd(func(*ConnectOptions) error { t.Fatal("connected"); return nil })
	cmd.SetArgs([]string{"-c"})
	cmd.SetOut(&out)
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("COLORTERM", "")
	if err := cmd.Execute(); err != nil || strings.TrimSpace(out.String()) != "256" {
		t.Errorf("gosh client -c printed %q, %v; want 256", out.String(), err)
	}
	for argv0, want := range map[string]string{"/usr/bin/gosh-client": "client", "mosh-client": "client", "gosh": "x"} {
		if got := asInvoked(argv0, []string{"x"}); got[0] != want {
			t.Errorf("asInvoked(%q) = %q, want it to start with %q", argv0, got, want)
		}
	}
}

// TestBenchTypingBadArgs: bad link, workload and transport flags give one
// usage error each, before anything runs.
func TestBenchTypingBadArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown link", []string{"--link", "carrier-pigeon"}, "carrier-pigeon"},
		{"bad rate", []string{"--rate", "fast"}, "--rate"},
		{"bad loss", []string{"--loss", "1.5"}, "--loss"},
		{"trace and delay", []string{"--trace", "cellular", "--delay", "10ms"}, "do not go together"},
		{"missing trace", []string{"--trace", "/nonexistent/trace"}, "neither a built-in trace"},
		{"missing workload", []string{"--workload", "/nonexistent/keys.json"}, "neither a built-in workload"},
		{"unknown transport", []string{"--with", "telnet"}, "unknown transport"},
		{"no runs", []string{"--runs", "0"}, "--runs must be 1 to 1000"},
		{"stray argument", []string{"now"}, "unknown command or argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := newBenchCmd(func(*BenchOptions) error { t.Fatal("reached micro"); return nil })
			for _, c := range cmd.Commands() {
				c.SetFlagErrorFunc(flagError)
			}
			cmd.SetArgs(append([]string{"typing"}, tc.args...))
			cmd.SetOut(new(bytes.Buffer))
			cmd.SetErr(new(bytes.Buffer))
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.ExecuteContext(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("bench typing %q: err = %v, want one containing %q", tc.args, err, tc.want)
			}
			if _, ok := err.(*usageError); !ok {
				t.Errorf("bench typing %q: err is %T, want *usageError", tc.args, err)
			}
		})
	}
}

// TestBenchPaperBadArgs: an experiment --only does not know and a
// negative --runs give one usage error each, naming what is wanted,
// before anything runs.
func TestBenchPaperBadArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown experiment", []string{"--only", "evdo,carrier-pigeon"}, `--only "carrier-pigeon" is not an experiment: want some of evdo, loss50, cs244-3g, cs244-wifi, flood, roaming`},
		{"negative runs", []string{"--runs", "-1"}, "--runs must be 1 to 1000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := newBenchCmd(func(*BenchOptions) error { t.Fatal("reached micro"); return nil })
			for _, c := range cmd.Commands() {
				c.SetFlagErrorFunc(flagError)
			}
			cmd.SetArgs(append([]string{"paper"}, tc.args...))
			cmd.SetOut(new(bytes.Buffer))
			cmd.SetErr(new(bytes.Buffer))
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.ExecuteContext(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("bench paper %q: err = %v, want one containing %q", tc.args, err, tc.want)
			}
			if _, ok := err.(*usageError); !ok {
				t.Errorf("bench paper %q: err is %T, want *usageError", tc.args, err)
			}
		})
	}
}

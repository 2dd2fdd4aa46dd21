package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/daemon"
	"github.com/gosh-term/gosh/internal/relay"
)

// relayTestTimeout bounds every wait of the relay tests.
const relayTestTimeout = 10 * time.Second

func parseServerRelay(t *testing.T, args ...string) (*RelayOptions, error) {
	t.Helper()
	var got *RelayOptions
	err := execQuiet(newServerRelayCmd(func(o *RelayOptions) error { got = o; return nil }), args)
	return got, err
}

func TestServerRelayFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want RelayOptions
	}{
		{"port", []string{"--port", "60001"}, RelayOptions{Port: 60001}},
		{"host", []string{"--port=60001", "--host", "10.0.0.2"}, RelayOptions{Port: 60001, Host: netip.MustParseAddr("10.0.0.2")}},
		{"IPv6 host", []string{"--host", "2001:db8::2", "--port", "65535"}, RelayOptions{Port: 65535, Host: netip.MustParseAddr("2001:db8::2")}},
		{"verbose", []string{"-v", "--port", "1"}, RelayOptions{Port: 1, Verbose: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseServerRelay(t, tc.args...)
			if err != nil {
				t.Fatalf("server relay %q: %v", tc.args, err)
			}
			got.Stdin, got.Stdout, got.Stderr, got.ctx = nil, nil, nil, nil
			if *got != tc.want {
				t.Errorf("server relay %q:\n got %+v\nwant %+v", tc.args, *got, tc.want)
			}
		})
	}
}

// TestServerRelayBadArgs runs the whole program: a bad command line is a
// usage error (status 2), a target not on this host a failure (status 1),
// each with one line on stderr.
func TestServerRelayBadArgs(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"no port", nil, exitUsage, "gosh server relay: missing --port"},
		{"port 0", []string{"--port", "0"}, exitUsage, `gosh server relay: invalid argument "0" for "--port" flag`},
		{"port too big", []string{"--port", "65536"}, exitUsage, "outside valid range"},
		{"port not a number", []string{"--port", "ssh"}, exitUsage, `bad port "ssh"`},
		{"host not numeric", []string{"--port", "60001", "--host", "localhost"}, exitUsage, "bad local address"},
		{"stray argument", []string{"--port", "60001", "x"}, exitUsage, "unknown command or argument"},
		{"unknown flag", []string{"--port", "60001", "--udp"}, exitUsage, "unknown flag: --udp"},
		{"another host", []string{"--port", "60001", "--host", "192.0.2.1"}, exitError, "gosh server relay: relay: target 192.0.2.1:60001 is not an address of this host"},
		{"unspecified host", []string{"--port", "60001", "--host", "0.0.0.0"}, exitError, "gosh server relay: relay: target 0.0.0.0:60001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"server", "relay"}, tc.args...)
			code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("gosh %q: exit status %d, want %d (stderr %q)", args, code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("gosh %q: stderr = %q, want one line containing %q", args, stderr.String(), tc.wantStderr)
			}
			if stdout.Len() != 0 {
				t.Errorf("gosh %q: stdout = %q, want nothing", args, stdout.String())
			}
		})
	}
}

func TestRelayHost(t *testing.T) {
	tests := []struct {
		sshConnection string
		want          string
	}{
		{"192.0.2.9 51000 10.0.0.2 22", "10.0.0.2"},
		{"2001:db8::9 51000 2001:db8::2 22", "2001:db8::2"},
		{"::ffff:192.0.2.9 51000 ::ffff:10.0.0.2 22", "10.0.0.2"},
		{"", "127.0.0.1"},
		{"192.0.2.9 51000 10.0.0.2", "127.0.0.1"},
		{"192.0.2.9 51000 server 22", "127.0.0.1"},
	}
	for _, tc := range tests {
		if got := relayHost(tc.sshConnection); got.String() != tc.want {
			t.Errorf("relayHost(%q) = %v, want %s", tc.sshConnection, got, tc.want)
		}
	}
}

// startRelayEcho starts a UDP server on 127.0.0.1 that sends every
// datagram back, stopped when the test ends.
func startRelayEcho(t *testing.T) uint16 {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, relay.MaxDatagram)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err == nil {
				conn.WriteToUDPAddrPort(buf[:n], from)
			}
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		<-done
	})
	return conn.LocalAddr().(*net.UDPAddr).AddrPort().Port()
}

// TestServerRelayRun runs "gosh server relay" in-process between two
// pipes, as SSH runs it: after the version frames, frames on stdin reach a
// UDP echo server on 127.0.0.1 and come back on stdout, and the end of
// stdin ends it with status 0.
func TestServerRelayRun(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		sshConnection string // "" unsets SSH_CONNECTION
	}{
		{"host flag", []string{"--host", "127.0.0.1"}, "192.0.2.9 51000 192.0.2.1 22"},
		{"SSH_CONNECTION", nil, "192.0.2.9 51000 127.0.0.1 22"},
		{"no SSH_CONNECTION", nil, ""},
	}
	if runtime.GOOS != "linux" {
		t.Skip("the echo server is no session, and only Linux tells that its port is this user's")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sshConnection == "" {
				unsetenv(t, "SSH_CONNECTION")
			} else {
				t.Setenv("SSH_CONNECTION", tc.sshConnection)
			}
			port := startRelayEcho(t)
			stdin, in := relayPipe(t)
			out, stdout := relayPipe(t)
			var stderr bytes.Buffer
			args := append([]string{"server", "relay", "--port", fmt.Sprint(port)}, tc.args...)
			code := make(chan int, 1)
			go func() { code <- run(context.Background(), args, stdin, stdout, &stderr) }()

			frames := relay.NewReader(out)
			if _, err := in.Write(relay.AppendHello(nil)); err != nil {
				t.Fatal(err)
			}
			if err := frames.ReadHello("gosh server relay"); err != nil {
				t.Fatalf("the relay's version frame: %v", err)
			}
			for _, d := range []string{"hello", strings.Repeat("x", 1400), "bye"} {
				if err := relay.WriteFrame(in, []byte(d)); err != nil {
					t.Fatal(err)
				}
				got, err := frames.Next()
				if err != nil || string(got) != d {
					t.Fatalf("echo of a %d-byte datagram = %d bytes, %v", len(d), len(got), err)
				}
			}
			in.Close()
			select {
			case c := <-code:
				if c != exitOK || stderr.Len() != 0 {
					t.Errorf("gosh %q after stdin ended: exit status %d, stderr %q; want 0 and nothing", args, c, stderr.String())
				}
			case <-time.After(relayTestTimeout):
				t.Fatalf("gosh %q still running %v after stdin ended", args, relayTestTimeout)
			}
		})
	}
}

// relayPipe returns an OS pipe whose reads fail after relayTestTimeout,
// closed when the test ends.
func relayPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	// Bound every read. Windows pipes take no deadline: there the pipes
	// are closed instead when the time is up.
	if err := r.SetReadDeadline(time.Now().Add(relayTestTimeout)); err != nil {
		timer := time.AfterFunc(relayTestTimeout, func() { r.Close(); w.Close() })
		t.Cleanup(func() { timer.Stop() })
	}
	return r, w
}

// TestRelayAllow: the relay's port policy allows a port of one of the
// user's gosh sessions (as the daemons answer) or of the user's own UDP
// sockets, and nothing else, with one line saying so.
func TestRelayAllow(t *testing.T) {
	target := netip.MustParseAddrPort("127.0.0.1:60001")
	sessions := func(list []daemon.Session, err error) func(context.Context) ([]daemon.Session, error) {
		return func(ctx context.Context) ([]daemon.Session, error) {
			if _, ok := ctx.Deadline(); !ok {
				t.Error("the daemons are asked without a deadline")
			}
			return list, err
		}
	}
	refuse := func(netip.AddrPort) error { return errors.New("not yours") }
	allow := func(netip.AddrPort) error { return nil }
	for _, tc := range []struct {
		name     string
		sessions func(context.Context) ([]daemon.Session, error)
		owned    func(netip.AddrPort) error
		want     string // "" for allowed
	}{
		{"a session's port", sessions([]daemon.Session{{ID: "0123abcd", Port: 60002}, {ID: "89abcdef", Port: 60001}}, nil), refuse, ""},
		{"a session whose loop did not answer", sessions([]daemon.Session{{ID: "0123abcd", Port: 60001, Err: "the session did not answer"}}, nil), refuse, ""},
		{"a socket of the user's", sessions(nil, nil), allow, ""},
		{"no session there", sessions([]daemon.Session{{ID: "0123abcd", Port: 60002}, {ID: "89abcdef", Err: "no answer"}}, nil), refuse,
			"relay: port 60001 is not the port of one of your sessions on this host (gosh sessions lists them)"},
		{"no daemons to ask", sessions(nil, errors.New("daemon: gosh server runs on Linux, macOS and the BSDs, not on this system")), refuse,
			"relay: port 60001 is not one of your sessions' (daemon: gosh server runs on Linux, macOS and the BSDs, not on this system)"},
	} {
		err := relayAllow(tc.sessions, tc.owned)(context.Background(), target)
		if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || err.Error() != tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestServerRelayOldClient: a client that predates the version frame
// (its first frame is a datagram) is refused with one line on stderr,
// which the client's end shows as the stream's end.
func TestServerRelayOldClient(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the echo server is no session, and only Linux tells that its port is this user's")
	}
	port := startRelayEcho(t)
	var stdin, stdout, stderr bytes.Buffer
	relay.WriteFrame(&stdin, make([]byte, 40))
	code := run(context.Background(), []string{"server", "relay", "--host", "127.0.0.1", "--port", fmt.Sprint(port)}, &stdin, &stdout, &stderr)
	want := "gosh server relay: relay: the client sent no version frame: it is an older gosh; install this gosh's version (relay version 1) at both ends\n"
	if code != exitError || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), exitError, want)
	}
	if err := relay.NewReader(&stdout).ReadHello("gosh server relay"); err != nil {
		t.Errorf("the relay's output does not start with its version frame: %v", err)
	}
}

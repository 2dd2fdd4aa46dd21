package bootstrap

import (
	"errors"
	"net"
	"slices"
	"testing"
)

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

//go:build unix

package daemon

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
)

// agentSocket is the socket a session's program finds in SSH_AUTH_SOCK
// when the client forwards its agent (gosh connect -A): a Unix socket in
// a directory of its own that only the user can enter (0700), removed
// with it when the session ends.
type agentSocket struct {
	ln   *net.UnixListener
	dir  string
	path string
}

// listenAgent makes the directory and the socket, under $XDG_RUNTIME_DIR
// when set (a per-user tmpfs), else the temporary directory.
func listenAgent() (*agentSocket, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = os.TempDir()
	}
	dir, err := os.MkdirTemp(base, "gosh-agent-") // mode 0700
	if err != nil {
		return nil, fmt.Errorf("daemon: agent socket: %w", err)
	}
	path := filepath.Join(dir, "agent.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("daemon: agent socket: %w", err)
	}
	return &agentSocket{ln: ln, dir: dir, path: path}, nil
}

// Accept waits for a program's connection (session.Listener).
func (a *agentSocket) Accept() (io.ReadWriteCloser, error) { return a.ln.AcceptUnix() }

// Close closes the socket and removes its directory.
func (a *agentSocket) Close() error {
	err := a.ln.Close()
	os.RemoveAll(a.dir)
	return err
}

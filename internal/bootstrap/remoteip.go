package bootstrap

import "github.com/gosh-term/gosh/internal/enum"

// RemoteIP is how the client finds the server's address to send UDP to
// (mosh's --experimental-remote-ip).
type RemoteIP int

// The remote-IP modes.
const (
	// RemoteIPProxy uses the address the SSH connection reached (the
	// default). When no direct TCP connection says it (ProxyJump,
	// ProxyCommand, a system ssh), the host name is resolved here,
	// preferring the address the server reports in SSH_CONNECTION.
	RemoteIPProxy RemoteIP = iota
	// RemoteIPLocal resolves the host name on this machine.
	RemoteIPLocal
	// RemoteIPRemote uses the server's own address as it sees it
	// (SSH_CONNECTION on the remote), for hosts behind address
	// translation that SSH reaches by another name.
	RemoteIPRemote
)

var remoteIPNames = enum.Names[RemoteIP]{
	List: []string{RemoteIPProxy: "proxy", RemoteIPLocal: "local", RemoteIPRemote: "remote"},
	Type: "mode",
	Bad:  "bad remote IP mode %[1]q (want proxy, local or remote)",
}

// String returns the mode's name: "proxy", "local" or "remote".
func (m RemoteIP) String() string { return remoteIPNames.String(m) }

// Set parses a mode name into m (flag.Value).
func (m *RemoteIP) Set(s string) error { return remoteIPNames.Set(m, s) }

// Type names the flag's value type in usage messages (pflag.Value).
func (m *RemoteIP) Type() string { return remoteIPNames.Type }

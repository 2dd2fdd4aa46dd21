package bootstrap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinels callers can test with errors.Is.
var (
	// ErrUnknownHost means the host's key is not in known_hosts and was not
	// accepted (StrictHostKeyChecking=yes, BatchMode, or the user said no).
	ErrUnknownHost = errors.New("bootstrap: host key not known")
	// ErrHostKeyMismatch means known_hosts has a different key of the same
	// type for the host, or the key is marked @revoked.
	ErrHostKeyMismatch = errors.New("bootstrap: host key mismatch")
	// ErrAuth means every authentication method failed.
	ErrAuth = errors.New("bootstrap: authentication failed")
	// ErrNoConnectLine means the server command ended without printing a
	// MOSH CONNECT line.
	ErrNoConnectLine = errors.New("bootstrap: no MOSH CONNECT line from the server")
	// ErrNoBinary means the remote needs a gosh binary for a platform this
	// client has none for.
	ErrNoBinary = errors.New("bootstrap: no gosh binary for the remote platform")
	// ErrNoPrompt means a question had to be asked but no terminal is
	// available (or BatchMode is set).
	ErrNoPrompt = errors.New("bootstrap: cannot ask: no terminal")
)

// UnknownHostError reports a host key that is not known and was refused.
type UnknownHostError struct {
	Host        string // the known_hosts name, e.g. "[127.0.0.1]:2222"
	KeyType     string // e.g. "ssh-ed25519"
	Fingerprint string // "SHA256:…"
	Reason      string // why it was refused
}

func (e *UnknownHostError) Error() string {
	return fmt.Sprintf("bootstrap: host key verification failed: %s key %s for %s is not known (%s)",
		e.KeyType, e.Fingerprint, e.Host, e.Reason)
}

// Is makes errors.Is(err, ErrUnknownHost) true.
func (e *UnknownHostError) Is(target error) bool { return target == ErrUnknownHost }

// HostKeyMismatchError reports that the server's key differs from the
// recorded one (possible man-in-the-middle) or is revoked.
type HostKeyMismatchError struct {
	Host        string
	KeyType     string
	Fingerprint string   // of the key the server sent
	Known       []string // "file:line" of the conflicting known_hosts entries
	Revoked     bool
}

func (e *HostKeyMismatchError) Error() string {
	if e.Revoked {
		return fmt.Sprintf("bootstrap: host key verification failed: the %s key %s of %s is revoked (by %s)",
			e.KeyType, e.Fingerprint, e.Host, strings.Join(e.Known, ", "))
	}
	hint := ""
	if len(e.Known) > 0 {
		file := e.Known[0]
		if i := strings.LastIndexByte(file, ':'); i > 0 {
			file = file[:i]
		}
		hint = fmt.Sprintf("; if you know the key was changed, remove the old one with: ssh-keygen -f %s -R %s",
			shellQuote(file), shellQuote(e.Host))
	}
	return fmt.Sprintf("bootstrap: WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED for %s: it sent %s key %s, "+
		"which does not match %s (someone may be intercepting the connection); refusing to connect%s",
		e.Host, e.KeyType, e.Fingerprint, strings.Join(e.Known, ", "), hint)
}

// Is makes errors.Is(err, ErrHostKeyMismatch) true.
func (e *HostKeyMismatchError) Is(target error) bool { return target == ErrHostKeyMismatch }

// HostKeyPolicyError reports a host key that ssh_config's settings refuse
// whatever known_hosts says (RequiredRSASize, an unreadable
// RevokedHostKeys file).
type HostKeyPolicyError struct {
	Host        string
	KeyType     string
	Fingerprint string
	Reason      string
}

func (e *HostKeyPolicyError) Error() string {
	return fmt.Sprintf("bootstrap: host key verification failed: refusing the %s key %s of %s: %s",
		e.KeyType, e.Fingerprint, e.Host, e.Reason)
}

// AuthError reports that the server accepted none of the methods tried.
type AuthError struct {
	User, Host string
	Methods    []string // the methods tried, in order ("publickey", "password", …)
	// Locked are encrypted key files that were not offered because their
	// passphrase could not be asked (no terminal, or BatchMode).
	Locked []string
	Err    error // from golang.org/x/crypto/ssh
}

func (e *AuthError) Error() string {
	tried := "none"
	if len(e.Methods) > 0 {
		tried = strings.Join(e.Methods, ", ")
	}
	hint := ""
	if len(e.Locked) > 0 {
		hint = fmt.Sprintf("; the key %s is encrypted and there is no terminal to ask for its passphrase: "+
			"add it to your agent (ssh-add %s) or run gosh from a terminal", e.Locked[0], shellQuote(e.Locked[0]))
	}
	return fmt.Sprintf("bootstrap: authentication failed for %s@%s (tried: %s)%s", e.User, e.Host, tried, hint)
}

// Is makes errors.Is(err, ErrAuth) true.
func (e *AuthError) Is(target error) bool { return target == ErrAuth }

// Unwrap returns the underlying ssh error.
func (e *AuthError) Unwrap() error { return e.Err }

// DialError reports a failure to reach the SSH server (resolution,
// unreachable network, refused connection, timeout, proxy failure).
type DialError struct {
	Addr string // host:port, or the proxy
	// Port is the TCP port of a direct connection to the SSH server; 0
	// through a proxy.
	Port int
	Err  error
}

func (e *DialError) Error() string {
	return fmt.Sprintf("bootstrap: cannot reach %s: %v", e.Addr, e.Err)
}

// Unwrap returns the network error.
func (e *DialError) Unwrap() error { return e.Err }

// ServerError reports that the remote server command failed before
// printing its MOSH CONNECT line.
type ServerError struct {
	Command    string // the remote command line
	Server     string // the server command the user chose (Config.ServerCommand), if any
	Stderr     string // what it wrote on stderr (and non-protocol stdout), capped
	ExitStatus int    // -1 when unknown (e.g. killed by a signal or timed out)
	// NoUpload names what kept gosh from copying itself to the remote
	// ("--upload=never", "--ssh"), or is empty.
	NoUpload string
	Err      error // *ssh.ExitError, *exec.ExitError, ErrNoConnectLine, …
}

func (e *ServerError) Error() string {
	status := "no exit status"
	if e.ExitStatus >= 0 {
		status = fmt.Sprintf("exit status %d", e.ExitStatus)
	}
	msg := lastLine(e.Stderr)
	if msg == "" {
		msg = "no output"
	}
	hint := ""
	if e.ExitStatus == 127 { // the shell's "command not found"
		prog := firstWord(e.Server)
		if prog == "" {
			prog = firstWord(e.Command)
		}
		switch {
		case prog != firstWord(DefaultServerCommand):
			hint = fmt.Sprintf("; is %q installed on the remote? Install it, or drop --server to let gosh copy itself there", prog)
		case e.NoUpload == "--ssh":
			hint = "; gosh is not installed on the remote, and it cannot copy itself there through --ssh: " +
				"install it there, drop --ssh, or use --server=mosh-server on hosts with Mosh"
		case e.NoUpload != "":
			hint = fmt.Sprintf("; gosh is not installed on the remote: install it there, drop %s to let gosh copy itself there, "+
				"or use --server=mosh-server on hosts with Mosh", e.NoUpload)
		default:
			hint = "; gosh is not installed on the remote: install it there, or use --server=mosh-server on hosts with Mosh"
		}
	}
	return fmt.Sprintf("bootstrap: remote server did not start (%s): %s%s", status, msg, hint)
}

// Unwrap returns the underlying error.
func (e *ServerError) Unwrap() error { return e.Err }

// NoBinaryError reports that an upload was needed but no binary for the
// remote platform was found.
type NoBinaryError struct {
	GOOS, GOARCH string
	Looked       []string // the paths tried
}

func (e *NoBinaryError) Error() string {
	return fmt.Sprintf("bootstrap: the remote has no usable gosh and there is no gosh binary for %s/%s "+
		"(looked in %s); build one (GOOS=%s GOARCH=%s go build -o %s ./cmd/gosh), install gosh on the remote, "+
		"or use --server=mosh-server",
		e.GOOS, e.GOARCH, strings.Join(e.Looked, ", "), e.GOOS, e.GOARCH, lastOr(e.Looked, "gosh"))
}

// Is makes errors.Is(err, ErrNoBinary) true.
func (e *NoBinaryError) Is(target error) bool { return target == ErrNoBinary }

func lastOr(s []string, def string) string {
	if len(s) > 0 {
		return s[len(s)-1]
	}
	return def
}

// lastLine returns the last non-blank line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// firstWord is the program of a remote command line, past "exec" and
// environment assignments.
func firstWord(command string) string {
	for _, w := range strings.Fields(command) {
		if w != "exec" && w != "env" && !strings.Contains(w, "=") {
			return strings.Trim(w, `'"`)
		}
	}
	return command
}

// RefusedPort reports whether err is an SSH connection that the host
// refused (nothing listens on the port), from the built-in client or a
// system ssh, and the port refused.
func RefusedPort(err error) (int, bool) {
	var de *DialError
	if errors.As(err, &de) && de.Port != 0 && isRefused(de.Err) {
		return de.Port, true
	}
	var sf *sshFailedError
	if errors.As(err, &sf) {
		return refusedInSSHOutput(sf.output)
	}
	return 0, false
}

// refusedInSSHOutput finds ssh's "connect to host H port N: Connection
// refused" in its output.
func refusedInSSHOutput(out string) (int, bool) {
	const tail = ": Connection refused"
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		before, ok := strings.CutSuffix(line, tail)
		if !ok {
			continue
		}
		i := strings.LastIndex(before, " port ")
		if i < 0 {
			continue
		}
		if port, err := strconv.Atoi(before[i+len(" port "):]); err == nil && port > 0 && port <= 65535 {
			return port, true
		}
	}
	return 0, false
}

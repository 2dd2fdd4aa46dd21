package bootstrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/sshconfig"
)

// Relayer opens streams to the server's UDP port over SSH, for the
// UDP-blocked fallback: each runs "gosh server relay" on the server's
// host, which moves length-prefixed datagrams between the SSH channel and
// the port (internal/relay). The first stream uses the connection the
// bootstrap logged in with; later ones log in again, with the agent and
// keys, and with what Open's prompter answers (the session asks on its
// notification bar, as it runs on the terminal by then).
//
// A Relayer is safe for concurrent use.
type Relayer struct {
	dialer  *dialer // prompts nothing, writes nothing to the terminal
	dest    sshconfig.Destination
	command string
	logf    logf.Func

	mu     sync.Mutex
	kept   *sshConn // the bootstrap's connection until the first Open
	closed bool
}

// newRelayer keeps the bootstrap's connection c for the first stream.
func newRelayer(d *dialer, dest sshconfig.Destination, c *sshConn, remoteGosh string, port uint16, a ServerArgs) *Relayer {
	quiet := *d
	quiet.prompt, quiet.stderr = nil, io.Discard
	return &Relayer{dialer: &quiet, dest: dest, kept: c, command: relayScript(remoteGosh, port, a.Bind), logf: d.logf}
}

// Open starts a relay and returns its stream: what is written goes to the
// relay's standard input, what is read comes from its standard output.
// Closing the stream ends the relay and its SSH connection. A new login
// asks prompt, if not nil, what the agent and keys cannot answer (a
// password, a passphrase); with nil it asks nothing.
func (r *Relayer) Open(ctx context.Context, prompt Prompter) (io.ReadWriteCloser, error) {
	r.mu.Lock()
	c, closed := r.kept, r.closed
	r.kept = nil
	r.mu.Unlock()
	if closed {
		return nil, errors.New("bootstrap: relay: closed")
	}
	if c == nil {
		d := *r.dialer
		d.prompt = prompt
		var err error
		if c, err = d.connect(ctx, r.dest, 0, ""); err != nil {
			return nil, err
		}
	}
	s, err := openRelay(c.client, r.command)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("bootstrap: relay: %w", err)
	}
	s.conn = c
	r.logf.Printf("bootstrap: relay started: %s", r.command)
	return s, nil
}

// Close closes the kept connection, if no stream took it; streams already
// open stay open.
func (r *Relayer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.kept != nil {
		r.kept.Close()
		r.kept = nil
	}
	return nil
}

// relayStream is one running relay.
type relayStream struct {
	sess   *ssh.Session
	in     io.WriteCloser
	out    io.Reader
	stderr *tailBuffer
	conn   *sshConn
	once   sync.Once
}

// openRelay starts command in a session of client.
func openRelay(client *ssh.Client, command string) (*relayStream, error) {
	sess, err := client.NewSession()
	if err != nil {
		return nil, err
	}
	in, err := sess.StdinPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	s := &relayStream{sess: sess, in: in, out: out, stderr: &tailBuffer{max: 512}}
	sess.Stderr = s.stderr
	if err := sess.Start(command); err != nil {
		sess.Close()
		return nil, err
	}
	return s, nil
}

// Read reads the relay's output. At its end, the relay's last words on
// stderr, if any, are the error.
func (s *relayStream) Read(p []byte) (int, error) {
	n, err := s.out.Read(p)
	if err == io.EOF {
		if why := s.stderr.lastLine(); why != "" {
			err = fmt.Errorf("bootstrap: relay: the remote said: %s", why)
		}
	}
	return n, err
}

// Write writes to the relay's input.
func (s *relayStream) Write(p []byte) (int, error) { return s.in.Write(p) }

// Close ends the relay and the SSH connection. The connection is closed
// first: on a connection whose network went away, closing the channel
// first would wait behind a write the connection never takes, and Close
// must not block the session loop that calls it. The channel's input is
// not closed on its own (an EOF could no longer be sent anyway): x/crypto's
// CloseWrite may not run beside a Write, which the relay's writer
// goroutine may be in.
func (s *relayStream) Close() error {
	s.once.Do(func() {
		s.conn.Close()
		s.sess.Close()
	})
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// bytes returns a copy of what it keeps.
func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.b)
}

// lastLine returns the last non-empty line written, trimmed.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.b), []byte("\n"))
	return strings.TrimSpace(string(lines[len(lines)-1]))
}

// relayScript is the remote command of a relay to the server's port:
// "server relay" of the gosh that started the server (remoteGosh), or,
// for a custom server command such as a stock mosh-server, of a gosh on
// PATH or uploaded earlier. bind is ServerArgs.Bind: a numeric address
// the server was bound to is where the relay sends; otherwise the relay's
// default (the address the SSH connection reached, which a server bound
// with -s or to every address listens on).
func relayScript(remoteGosh string, port uint16, bind string) string {
	args := " server relay --port " + strconv.Itoa(int(port))
	if ip, err := netip.ParseAddr(bind); err == nil {
		args += " --host " + shellQuote(ip.String())
	}
	var s strings.Builder
	if remoteGosh != "" {
		s.WriteString("exec " + shellQuote(remoteGosh) + args)
	} else {
		s.WriteString(`if command -v gosh >/dev/null 2>&1; then exec gosh` + args + `; fi; `)
		s.WriteString(`for f in ` + uploadDirExpr() + `/*/gosh; do [ -x "$f" ] && exec "$f"` + args + `; done; `)
		s.WriteString(`echo 'the relay needs gosh on the remote (none on PATH or uploaded)' >&2; exit 127`)
	}
	return "exec sh -c " + shellQuote(s.String())
}

package sshlink

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"golang.org/x/crypto/ssh"
)

// Client is one SSH session with a pseudo-terminal and a shell, as an
// interactive ssh opens it. Stdin, Stdout, Resize and Close may be used
// from different goroutines.
type Client struct {
	// Stdin is what the user types.
	Stdin io.Writer
	// Stdout is the remote terminal's output. A terminal has no separate
	// error stream: the program's stderr arrives here too. Read it
	// continually, or the SSH flow-control window fills and stalls the
	// program.
	Stdout io.Reader

	conn *ssh.Client
	sess *ssh.Session

	closeOnce sync.Once
	closeErr  error
}

// Dial runs the SSH handshake over conn, authenticating with the "none"
// method and accepting whatever host key the server shows (both ends are
// in this process; see the package doc), then opens a session with a
// pseudo-terminal of type term and size cols×rows, and starts the shell.
// Dial owns conn and closes it on failure. To bound the handshake, set a
// deadline on conn before and clear it after.
func Dial(conn net.Conn, term string, cols, rows int) (*Client, error) {
	c, err := dial(conn, term, cols, rows)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("sshlink: %w", err)
	}
	return c, nil
}

func dial(conn net.Conn, term string, cols, rows int) (*Client, error) {
	cfg := &ssh.ClientConfig{
		User:            sshUser,
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), // the server is ours, in this process
	}
	cc, chans, reqs, err := ssh.NewClientConn(conn, conn.RemoteAddr().String(), cfg)
	if err != nil {
		return nil, err
	}
	client := ssh.NewClient(cc, chans, reqs)
	c, err := openShell(client, term, cols, rows)
	if err != nil {
		client.Close()
		return nil, err
	}
	return c, nil
}

// openShell opens the session, asks for the terminal and starts the shell.
func openShell(client *ssh.Client, term string, cols, rows int) (*Client, error) {
	sess, err := client.NewSession()
	if err != nil {
		return nil, err
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := sess.RequestPty(term, rows, cols, ssh.TerminalModes{}); err != nil {
		return nil, err
	}
	if err := sess.Shell(); err != nil {
		return nil, err
	}
	return &Client{Stdin: stdin, Stdout: stdout, conn: client, sess: sess}, nil
}

// Resize tells the remote terminal its new size.
func (c *Client) Resize(cols, rows int) error {
	if err := c.sess.WindowChange(rows, cols); err != nil {
		return fmt.Errorf("sshlink: resize: %w", err)
	}
	return nil
}

// Wait waits for the remote program to exit, and returns nil if it
// reported exit status 0 (the server always does; see [Server]).
func (c *Client) Wait() error { return c.sess.Wait() }

// Close ends the connection and with it the session and every forwarded
// connection. Pending reads of Stdout return io.EOF, and pending writes
// fail. It is idempotent, and returns even when the network carries
// nothing more.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		// The connection first: closing the session sends a message, which
		// waits for any write under way, and a write blocked on a full TCP
		// send buffer of a connection that moves nothing would never end.
		// Closing the connection fails that write.
		if err := c.conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			c.closeErr = fmt.Errorf("sshlink: %w", err)
		}
		_ = c.sess.Close() // io.EOF: the connection is gone
	})
	return c.closeErr
}

// DialTCP opens a direct-tcpip channel to addr, as ssh -L does for each
// connection.
func (c *Client) DialTCP(addr string) (net.Conn, error) { return c.conn.Dial("tcp", addr) }

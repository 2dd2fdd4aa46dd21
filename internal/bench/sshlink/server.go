package sshlink

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/gosh-term/gosh/internal/logf"
)

// ServerConfig says what a [Server] runs in each session's terminal.
type ServerConfig struct {
	// Argv is the program and its arguments; Argv[0] is looked up in
	// PATH. Empty runs the user's login shell.
	Argv []string
	// Env is the program's environment. A session adds TERM from its
	// pty-req and the variables of its "env" requests.
	Env []string
	// Dir is the program's working directory; empty means the server's.
	Dir string
	// Logf receives errors that end a connection or session; nil
	// discards them.
	Logf logf.Func
	// Forward, if not nil, serves direct-tcpip channels (ssh -L): it
	// connects to "host:port".
	Forward func(hostPort string) (io.ReadWriteCloser, error)
	// Output, if not nil, is called with each piece of a session's
	// program output as it is read, before it is sent to the client (a
	// benchmark's record of what the program drew). It must not keep the
	// slice; nil records nothing.
	Output func(p []byte)
}

// Server is an in-process SSH server that runs [ServerConfig]'s program
// in a pseudo-terminal for every session's shell. Anyone may log in (it
// accepts the "none" authentication method): it serves one benchmark's
// client inside the same process. When a program exits the session
// reports exit status 0, whatever the program returned: internal/pty does
// not report exit codes.
type Server struct {
	l       net.Listener
	cfg     ServerConfig
	sshCfg  *ssh.ServerConfig
	hostKey ssh.PublicKey
	logf    logf.Func

	wg        sync.WaitGroup // the accept loop and the connections
	closeOnce sync.Once

	mu     sync.Mutex // guards following
	conns  map[net.Conn]struct{}
	closed bool
}

// StartServer generates an ed25519 host key and serves SSH on l until
// [Server.Close]. The server owns l. Where internal/pty is unavailable
// (Windows) it returns an error wrapping [errors.ErrUnsupported].
func StartServer(l net.Listener, cfg ServerConfig) (*Server, error) {
	if ptyErr != nil {
		return nil, ptyErr
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sshlink: generating host key: %w", err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("sshlink: host key: %w", err)
	}
	sshCfg := &ssh.ServerConfig{NoClientAuth: true}
	sshCfg.AddHostKey(signer)
	s := &Server{
		l:       l,
		cfg:     cfg,
		sshCfg:  sshCfg,
		hostKey: signer.PublicKey(),
		logf:    cfg.Logf,
		conns:   map[net.Conn]struct{}{},
	}
	s.wg.Add(1)
	go s.acceptLoop()
	return s, nil
}

// HostKey returns the server's public host key.
func (s *Server) HostKey() ssh.PublicKey { return s.hostKey }

// Close stops listening, drops every connection, hangs up every program
// and waits for all of it. It is idempotent.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		err = s.l.Close()
		s.wg.Wait()
	})
	return err
}

// acceptLoop serves each connection on its own goroutine.
func (s *Server) acceptLoop() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.logf.Printf("sshlink: accept: %v", err)
			}
			return
		}
		if !s.track(c) {
			c.Close()
			return
		}
		s.wg.Add(1)
		go s.serveConn(c)
	}
}

// track records c so that Close can drop it; it reports false if the
// server is already closed.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) forget(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}

// serveConn runs the SSH handshake on c and then its session channels,
// until the connection ends.
func (s *Server) serveConn(c net.Conn) {
	defer s.wg.Done()
	defer s.forget(c)
	defer c.Close()
	sc, chans, reqs, err := ssh.NewServerConn(c, s.sshCfg)
	if err != nil {
		s.logf.Printf("sshlink: handshake: %v", err)
		return
	}
	defer sc.Close()
	var sessions sync.WaitGroup
	defer sessions.Wait()
	gone := make(chan struct{}) // closed when the connection is gone
	defer close(gone)
	sessions.Add(1)
	go func() {
		defer sessions.Done()
		ssh.DiscardRequests(reqs)
	}()
	for nc := range chans {
		if nc.ChannelType() == "direct-tcpip" && s.cfg.Forward != nil {
			sessions.Add(1)
			go func() {
				defer sessions.Done()
				s.serveDirect(nc, gone)
			}()
			continue
		}
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "only session channels")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			s.logf.Printf("sshlink: accepting a session: %v", err)
			continue
		}
		sessions.Add(1)
		go func() {
			defer sessions.Done()
			s.serveSession(ch, creqs)
		}()
	}
}

// serveDirect serves a direct-tcpip channel (ssh -L; RFC 4254 section
// 7.2) with cfg.Forward, copying both ways until either end closes. Once
// the connection is gone it closes the destination: a copy blocked in a
// write to it (a destination that reads no more) or a read from it would
// never end otherwise, and the server's Close waits for it.
func (s *Server) serveDirect(nc ssh.NewChannel, gone <-chan struct{}) {
	var req struct {
		Host     string
		Port     uint32
		OrigHost string
		OrigPort uint32
	}
	if err := ssh.Unmarshal(nc.ExtraData(), &req); err != nil {
		_ = nc.Reject(ssh.ConnectionFailed, "bad direct-tcpip request")
		return
	}
	dst, err := s.cfg.Forward(net.JoinHostPort(req.Host, strconv.Itoa(int(req.Port))))
	if err != nil {
		_ = nc.Reject(ssh.ConnectionFailed, err.Error())
		return
	}
	ch, reqs, err := nc.Accept()
	if err != nil {
		dst.Close()
		return
	}
	go ssh.DiscardRequests(reqs)
	ended := make(chan struct{})
	defer close(ended)
	go func() {
		select {
		case <-gone:
			dst.Close()
		case <-ended:
		}
	}()
	done := make(chan struct{})
	go func() {
		io.Copy(ch, dst)
		ch.CloseWrite()
		close(done)
	}()
	io.Copy(dst, ch)
	dst.Close()
	<-done
	ch.Close()
}

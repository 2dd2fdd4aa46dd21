//go:build unix

package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// Every session daemon listens on a control socket, <dir>/<id>.sock in
// the user's control directory ([ControlDir]), through which gosh server
// list, attach and kill (run by the same user, typically over SSH) reach
// its session loop. The directory is the user's alone (0700), and every
// connection's peer credentials are checked, so only the session's user
// can ask for a new key; the key travels only over the socket, never to
// a file.

// Control socket timeouts (variables for the tests).
var (
	// controlReadTimeout bounds the wait for a request line.
	controlReadTimeout = 3 * time.Second
	// controlLoopTimeout bounds the wait for the session loop's answer.
	controlLoopTimeout = 3 * time.Second
)

// Control socket bounds.
const (
	// controlWriteTimeout bounds writing the reply.
	controlWriteTimeout = 2 * time.Second
	// controlClientTimeout bounds a client's whole exchange; it exceeds
	// the daemon's own bounds, so a slow loop is reported by the daemon.
	controlClientTimeout = 10 * time.Second
	// controlCloseGrace is how long closing waits for replies being
	// written (the answer to a kill) before it cuts the connections.
	controlCloseGrace = time.Second
	// maxControlConns bounds the connections served at once; more are
	// closed unanswered.
	maxControlConns = 4
	// maxCommandLen bounds the command a daemon reports.
	maxCommandLen = 200
)

// checkPeerUID refuses a peer of another user than want.
func checkPeerUID(peer, want int) error {
	if peer != want {
		return fmt.Errorf("refused a connection from uid %d", peer)
	}
	return nil
}

// newSessionID returns a random session id.
func newSessionID() string {
	var b [sessionIDLen / 2]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// commandName is what a session runs, for the list: its command, else
// the login shell's name.
func commandName(cfg *config) string {
	s := strings.Join(cfg.Options.Command, " ")
	if s == "" {
		s = "login shell"
		if sh, ok := lookupEnv(cfg.Env, "SHELL"); ok && sh != "" {
			s = filepath.Base(sh)
		}
	}
	if len(s) > maxCommandLen {
		s = s[:maxCommandLen]
	}
	return s
}

// controlServer is a daemon's control socket: it accepts the user's
// connections and passes their requests to the session loop.
type controlServer struct {
	ln    *net.UnixListener
	path  string
	uid   int     // the only peer uid served
	facts Session // what the daemon knows without the loop
	reqs  chan session.ControlRequest
	logf  logf.Func

	done      chan struct{} // closed by Close
	closeOnce sync.Once
	sem       chan struct{} // one token per connection served
	wg        sync.WaitGroup
	mu        sync.Mutex
	conns     map[*net.UnixConn]bool // being served
}

// listenControl makes the session's control socket in [ControlDir], under
// a new session id (facts.ID is set to it). The socket is made under a
// temporary name and linked into place once it listens, so that a
// listed socket that refuses connections is a stale one.
func listenControl(facts Session, logf logf.Func) (*controlServer, error) {
	return listenControlFor(os.Getuid(), facts, logf)
}

// listenControlFor is listenControl serving only peers of uid.
func listenControlFor(uid int, facts Session, logf logf.Func) (*controlServer, error) {
	dir, note, err := controlDirNote()
	if err != nil {
		return nil, err
	}
	if note != "" {
		logf.Printf("%s", note)
	}
	for range 8 {
		id := newSessionID()
		path := filepath.Join(dir, id+".sock")
		tmp := filepath.Join(dir, "."+id+".new")
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
		if errors.Is(err, syscall.EADDRINUSE) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("daemon: control socket: %w", err)
		}
		ln.SetUnlinkOnClose(false)
		err = os.Link(tmp, path) // fails if the id is taken
		os.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			ln.Close()
			continue
		}
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("daemon: control socket: %w", err)
		}
		facts.ID = id
		c := &controlServer{ln: ln, path: path, uid: uid, facts: facts, logf: logf,
			reqs: make(chan session.ControlRequest), done: make(chan struct{}),
			sem: make(chan struct{}, maxControlConns), conns: map[*net.UnixConn]bool{}}
		c.wg.Add(1)
		go c.accept()
		return c, nil
	}
	return nil, errors.New("daemon: control socket: no free session id")
}

// Requests delivers the requests for the session loop
// (session.ServerConfig.Control).
func (c *controlServer) Requests() <-chan session.ControlRequest { return c.reqs }

// Close removes the socket and ends every connection: it waits up to
// controlCloseGrace for replies being written.
func (c *controlServer) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.ln.Close()
		os.Remove(c.path)
		waited := make(chan struct{})
		go func() { c.wg.Wait(); close(waited) }()
		select {
		case <-waited:
			return
		case <-time.After(controlCloseGrace):
		}
		c.mu.Lock()
		for conn := range c.conns {
			conn.Close()
		}
		c.mu.Unlock()
		<-waited
	})
	return nil
}

// accept serves connections until Close, at most maxControlConns at once.
func (c *controlServer) accept() {
	defer c.wg.Done()
	for {
		conn, err := c.ln.AcceptUnix()
		if err != nil {
			select {
			case <-c.done:
				return
			case <-time.After(100 * time.Millisecond): // out of descriptors: do not spin
			}
			continue
		}
		select {
		case c.sem <- struct{}{}:
		default:
			conn.Close()
			continue
		}
		c.mu.Lock()
		c.conns[conn] = true
		c.mu.Unlock()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.serve(conn)
			c.mu.Lock()
			delete(c.conns, conn)
			c.mu.Unlock()
			conn.Close()
			<-c.sem
		}()
	}
}

// serve answers one connection: the peer's uid must be ours; then one
// request line, one reply line.
func (c *controlServer) serve(conn *net.UnixConn) {
	if err := c.checkPeer(conn); err != nil {
		c.logf.Printf("control socket: %v", err)
		return
	}
	conn.SetReadDeadline(time.Now().Add(controlReadTimeout))
	line, err := readLine(conn, maxControlLine)
	if err != nil {
		return // slow, silent or too long: nothing to answer
	}
	var reply controlReply
	if req, err := parseControlRequest(line); err != nil {
		reply.Session = c.facts
		reply.Err = err.Error()
	} else {
		reply = c.ask(req)
	}
	b, err := json.Marshal(reply)
	if err != nil {
		return
	}
	conn.SetWriteDeadline(time.Now().Add(controlWriteTimeout))
	conn.Write(append(b, '\n'))
}

// checkPeer checks the connection's peer credentials.
func (c *controlServer) checkPeer(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	uid, perr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, perr = peerUID(int(fd)) }); err != nil {
		return err
	}
	if perr != nil {
		return fmt.Errorf("reading the peer's credentials: %w", perr)
	}
	return checkPeerUID(uid, c.uid)
}

// ask passes req to the session loop and builds the reply from its
// answer.
func (c *controlServer) ask(req controlRequest) controlReply {
	reply := controlReply{Session: c.facts}
	op := map[string]session.ControlOp{opInfo: session.ControlInfo, opAttach: session.ControlAttach, opKill: session.ControlKill}[req.Op]
	ch := make(chan session.ControlReply, 1)
	timer := time.NewTimer(controlLoopTimeout)
	defer timer.Stop()
	select {
	case c.reqs <- session.ControlRequest{Op: op, From: req.From, Reply: ch}:
	case <-timer.C:
		reply.Err = "the session did not answer"
		return reply
	case <-c.done:
		reply.Err = "the session is ending"
		return reply
	}
	var ans session.ControlReply
	select {
	case ans = <-ch:
	case <-timer.C:
		reply.Err = "the session did not answer"
		return reply
	case <-c.done:
		select {
		case ans = <-ch: // the loop answered, then ended (a kill)
		default:
			reply.Err = "the session ended"
			return reply
		}
	}
	reply.Session = c.withInfo(ans.Info)
	switch {
	case ans.Err != nil:
		reply.Err = ans.Err.Error()
	case op == session.ControlAttach && ans.Key.IsZero():
		reply.Err = "the session made no key"
	case op == session.ControlAttach:
		reply.Key = ans.Key.Base64()
	}
	return reply
}

// withInfo is the daemon's facts with the loop's.
func (c *controlServer) withInfo(in session.SessionInfo) Session {
	s := c.facts
	if !in.Started.IsZero() {
		s.Started = in.Started
	}
	s.LastContact, s.Client = in.LastContact, in.Client
	s.Cols, s.Rows, s.Attached = in.Cols, in.Rows, in.Attached
	return s
}

// ListSessions asks every session daemon of this user on this host about
// its session, oldest first. A socket whose daemon is gone (the
// connection is refused) is removed; a daemon that does not answer is
// listed with only its id and Err.
func ListSessions(ctx context.Context) ([]Session, error) {
	var paths []string
	for _, dir := range controlDirs() {
		if checkControlDir(dir) != nil {
			continue // not there, or not one this user's daemons could use
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("daemon: %w", err)
		}
		for _, e := range entries {
			if id, ok := strings.CutSuffix(e.Name(), ".sock"); ok && ValidSessionID(id) {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
	}
	type result struct {
		s    Session
		keep bool
	}
	results := make([]result, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Go(func() {
			id := strings.TrimSuffix(filepath.Base(path), ".sock")
			s, _, err := askPath(ctx, path, controlRequest{Op: opInfo})
			switch {
			case err == nil:
				results[i] = result{s, true}
			case errors.Is(err, ErrNoSession):
			default:
				results[i] = result{Session{ID: id, Err: err.Error()}, true}
			}
		})
	}
	wg.Wait()
	var out []Session
	for _, r := range results {
		if r.keep {
			out = append(out, r.s)
		}
	}
	slices.SortStableFunc(out, func(a, b Session) int { return a.Started.Compare(b.Started) })
	return out, nil
}

// AttachSession asks session id to rekey for a new client (from is where
// that client logged in from, shown to the previous client) and returns
// the session's facts and the new key.
func AttachSession(ctx context.Context, id, from string) (Session, sspcrypto.Key, error) {
	s, key, err := askID(ctx, id, controlRequest{Op: opAttach, From: from})
	if err == nil && key.IsZero() {
		err = fmt.Errorf("daemon: session %s answered without a key", id)
	}
	return s, key, err
}

// KillSession ends session id.
func KillSession(ctx context.Context, id string) (Session, error) {
	s, _, err := askID(ctx, id, controlRequest{Op: opKill})
	return s, err
}

// askID sends req to session id; a refused request is an error.
func askID(ctx context.Context, id string, req controlRequest) (Session, sspcrypto.Key, error) {
	if !ValidSessionID(id) {
		return Session{}, sspcrypto.Key{}, ErrNoSession
	}
	for _, dir := range controlDirs() {
		if checkControlDir(dir) != nil {
			continue
		}
		path := filepath.Join(dir, id+".sock")
		if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != fs.ModeSocket {
			continue
		}
		s, key, err := askPath(ctx, path, req)
		if errors.Is(err, ErrNoSession) {
			continue
		}
		if err == nil && s.Err != "" {
			err = fmt.Errorf("daemon: session %s: %s", id, s.Err)
		}
		return s, key, err
	}
	return Session{}, sspcrypto.Key{}, ErrNoSession
}

// askPath sends req to the daemon listening at path and reads its reply.
// A socket nobody listens on is removed, and reported as ErrNoSession.
func askPath(ctx context.Context, path string, req controlRequest) (Session, sspcrypto.Key, error) {
	ctx, cancel := context.WithTimeout(ctx, controlClientTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if errors.Is(err, syscall.ECONNREFUSED) {
		os.Remove(path) // its daemon is gone
		return Session{}, sspcrypto.Key{}, ErrNoSession
	}
	if errors.Is(err, fs.ErrNotExist) {
		return Session{}, sspcrypto.Key{}, ErrNoSession
	}
	if err != nil {
		return Session{}, sspcrypto.Key{}, fmt.Errorf("daemon: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	b, err := json.Marshal(req)
	if err != nil {
		return Session{}, sspcrypto.Key{}, err
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return Session{}, sspcrypto.Key{}, fmt.Errorf("daemon: %w", err)
	}
	line, err := readLine(conn, maxControlLine)
	if err != nil {
		if ctx.Err() != nil {
			err = errors.New("no answer")
		}
		return Session{}, sspcrypto.Key{}, fmt.Errorf("daemon: the session's daemon: %w", err)
	}
	return parseControlReply(line)
}

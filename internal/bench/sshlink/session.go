package sshlink

import (
	"errors"
	"io"
	"sync"

	"golang.org/x/crypto/ssh"
)

// The payloads of the session requests the server handles (RFC 4254
// sections 6.2, 6.4, 6.7 and 6.10).
type (
	ptyRequest struct {
		Term                      string
		Cols, Rows, Width, Height uint32
		Modes                     string // ignored: internal/pty sets its own
	}
	envRequest struct {
		Name, Value string
	}
	windowChange struct {
		Cols, Rows, Width, Height uint32
	}
	exitStatus struct {
		Status uint32
	}
)

// session is one session channel on the server. It is not safe for
// concurrent use: only serveSession's goroutine touches it, and the
// copiers get what they need as arguments.
type session struct {
	srv        *Server
	ch         ssh.Channel
	term       string
	cols, rows int
	env        []string
	prog       program        // nil until the shell starts
	copiers    sync.WaitGroup // the two copy goroutines, once prog runs
}

// serveSession answers the channel's requests until it closes (the client
// closed it, the program exited and closed it, or the connection died),
// then hangs up the program and waits for its copiers.
func (s *Server) serveSession(ch ssh.Channel, reqs <-chan *ssh.Request) {
	ss := &session{srv: s, ch: ch, cols: defaultCols, rows: defaultRows}
	for req := range reqs {
		ok := ss.handle(req)
		if req.WantReply {
			_ = req.Reply(ok, nil)
		}
		if ok && req.Type == "shell" {
			ss.startCopiers()
		}
	}
	ss.ch.Close()
	if ss.prog != nil {
		ss.prog.Close()
	}
	ss.copiers.Wait()
}

// handle applies one request and reports whether it succeeded. A shell
// starts the program, whose copiers serveSession starts after replying.
func (ss *session) handle(req *ssh.Request) bool {
	switch req.Type {
	case "pty-req":
		var p ptyRequest
		if ssh.Unmarshal(req.Payload, &p) != nil {
			return false
		}
		ss.term = p.Term
		ss.resize(int(p.Cols), int(p.Rows))
		return true
	case "window-change":
		var w windowChange
		if ssh.Unmarshal(req.Payload, &w) != nil {
			return false
		}
		ss.resize(int(w.Cols), int(w.Rows))
		return true
	case "env":
		var e envRequest
		if ssh.Unmarshal(req.Payload, &e) != nil {
			return false
		}
		ss.env = append(ss.env, e.Name+"="+e.Value)
		return true
	case "shell":
		return ss.startShell()
	}
	return false
}

// resize records the terminal size, and passes it on to a running program.
func (ss *session) resize(cols, rows int) {
	if cols <= 0 || rows <= 0 {
		return
	}
	ss.cols, ss.rows = cols, rows
	if ss.prog != nil {
		if err := ss.prog.Resize(cols, rows); err != nil {
			ss.srv.logf.Printf("sshlink: resize: %v", err)
		}
	}
}

// startShell starts the program unless one already runs.
func (ss *session) startShell() bool {
	if ss.prog != nil {
		return false
	}
	cfg := ss.srv.cfg
	env := append([]string(nil), cfg.Env...)
	if ss.term != "" {
		env = append(env, "TERM="+ss.term)
	}
	env = append(env, ss.env...)
	p, err := startProgram(programSpec{argv: cfg.Argv, env: env, dir: cfg.Dir, cols: ss.cols, rows: ss.rows})
	if err != nil {
		ss.srv.logf.Printf("sshlink: %v", err)
		return false
	}
	ss.prog = p
	return true
}

// startCopiers copies the channel into the program and the program's
// output into the channel. When the output ends (the program exited), the
// output copier sends exit-status and closes the channel, which ends
// serveSession's loop.
func (ss *session) startCopiers() {
	ch, prog, logf := ss.ch, ss.prog, ss.srv.logf
	var out io.Reader = prog
	if see := ss.srv.cfg.Output; see != nil {
		out = observed{prog, see}
	}
	ss.copiers.Add(2)
	go func() {
		defer ss.copiers.Done()
		_, _ = io.Copy(prog, ch) // ends when the channel closes or prog is closed
	}()
	go func() {
		defer ss.copiers.Done()
		if _, err := io.Copy(ch, out); err != nil && !errors.Is(err, io.EOF) {
			logf.Printf("sshlink: program output: %v", err) // io.EOF: the channel closed first
		}
		// internal/pty does not report the exit code; 0 stands for
		// "exited".
		_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(exitStatus{Status: 0}))
		ch.Close()
	}()
}

// observed is a reader whose reads are also shown to see.
type observed struct {
	r   io.Reader
	see func([]byte)
}

func (o observed) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if n > 0 {
		o.see(p[:n])
	}
	return n, err
}

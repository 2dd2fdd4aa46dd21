//go:build unix

package e2etest

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/connectline"
)

// Server is a detached session server (gosh server new or mosh-server new)
// that a test started.
type Server struct {
	Port uint16
	Key  string // the 22-character key, for MOSH_KEY
	PID  int    // the detached daemon
	// Session is the session's ID from gosh's detach notice ("" from
	// mosh-server).
	Session string

	log string // the file of the daemon's standard error
}

// StartServer runs argv (e.g. gosh server new -i 127.0.0.1 -p 0 -- sh),
// reads its CONNECT line and the daemon's pid, and kills the daemon (and
// its process group) when the test ends.
func StartServer(t testing.TB, env []string, argv ...string) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	// stderr is a file, not a pipe: a verbose daemon keeps it open and
	// logs there after its starter exited, and the log is shown when the
	// test fails.
	logPath := filepath.Join(t.TempDir(), "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, logFile
	err = cmd.Run()
	stderr, _ := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("%v: %v\nstdout: %s\nstderr: %s", argv, err, stdout.Bytes(), stderr)
	}
	s := &Server{log: logPath}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if port, key, ok := connectline.Parse(line); ok {
			s.Port, s.Key = port, key.Base64()
		}
	}
	if s.Port == 0 {
		t.Fatalf("%v printed no MOSH CONNECT line:\nstdout: %q\nstderr: %q", argv, stdout.Bytes(), stderr)
	}
	for _, line := range strings.Split(string(stderr), "\n") {
		if d, ok := connectline.ParseDetached(line); ok {
			s.PID, s.Session = d.PID, d.Session
		}
	}
	if s.PID <= 0 {
		t.Fatalf("%v did not report its daemon's pid:\n%s", argv, stderr)
	}
	t.Cleanup(func() {
		if t.Failed() && s.Alive() {
			// A Go daemon (gosh) writes every goroutine's stack to its
			// log on SIGQUIT: where it was stuck, if it was.
			_ = syscall.Kill(s.PID, syscall.SIGQUIT)
			s.WaitExit(2 * time.Second)
		}
		s.Kill()
		if t.Failed() {
			t.Logf("%s's log:\n%s", filepath.Base(argv[0]), s.Log())
		}
	})
	return s
}

// Log returns what the daemon wrote to its standard error so far: its
// start, and its log when it runs verbose (-v).
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// Alive reports whether the daemon is still running.
func (s *Server) Alive() bool {
	return syscall.Kill(s.PID, 0) == nil && !zombie(s.PID)
}

// Kill ends the daemon if it is still running.
func (s *Server) Kill() {
	if s.Alive() {
		_ = syscall.Kill(s.PID, syscall.SIGKILL)
	}
}

// WaitExit waits up to timeout for the daemon to exit by itself.
func (s *Server) WaitExit(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !s.Alive() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// zombie reports whether pid has exited but not been reaped (a daemon's
// parent is init, which reaps it soon).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Split(bufio.ScanWords)
	for i := 0; sc.Scan(); i++ {
		if i == 2 {
			return sc.Text() == "Z"
		}
	}
	return false
}

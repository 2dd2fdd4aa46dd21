//go:build unix

package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// controlEnv points the control directory at a new temporary directory
// (both candidates: $XDG_RUNTIME_DIR/gosh and $TMPDIR/gosh-<uid>) and
// returns ControlDir's choice.
func controlEnv(t *testing.T) string {
	t.Helper()
	rt, tmp := t.TempDir(), t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("TMPDIR", tmp)
	return filepath.Join(rt, "gosh")
}

// shortTimeouts makes the daemon's read and loop timeouts short.
func shortTimeouts(t *testing.T) {
	r, l := controlReadTimeout, controlLoopTimeout
	controlReadTimeout, controlLoopTimeout = 300*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { controlReadTimeout, controlLoopTimeout = r, l })
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestControlDir(t *testing.T) {
	want := controlEnv(t)
	dir, err := ControlDir()
	if err != nil || dir != want {
		t.Fatalf("ControlDir() = %q, %v; want %q", dir, err, want)
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("control directory: %v, %v; want a 0700 directory", fi.Mode(), err)
	}
	if again, err := ControlDir(); err != nil || again != dir {
		t.Errorf("second ControlDir() = %q, %v", again, err)
	}

	// Without a usable $XDG_RUNTIME_DIR: the temporary directory's.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, rt := range []string{"", "relative", filepath.Join(tmp, "missing")} {
		t.Setenv("XDG_RUNTIME_DIR", rt)
		dir, err := ControlDir()
		if want := filepath.Join(tmp, "gosh-"+strconv.Itoa(os.Getuid())); err != nil || dir != want {
			t.Errorf("XDG_RUNTIME_DIR=%q: ControlDir() = %q, %v; want %q", rt, dir, err, want)
		}
	}
}

// TestControlDirSquatted: when the usual control directory is not a 0700
// directory of the user's (another user made it first, or it is a link,
// a file, or open to others), the sockets go to a random-named directory
// of the user's, with a note saying why; the daemons and gosh sessions
// find each other there, and the squatter's directory is left alone.
// Both with $XDG_RUNTIME_DIR (its gosh) and without (gosh-<uid> in the
// temporary directory, the name another user can guess).
func TestControlDirSquatted(t *testing.T) {
	cases := []struct {
		name string
		make func(dir string) error
		want string
	}{
		{"open to others", func(dir string) error { return os.Mkdir(dir, 0o777) }, "mode"},
		{"sticky", func(dir string) error {
			if err := os.Mkdir(dir, 0o700); err != nil {
				return err
			}
			return os.Chmod(dir, 0o700|os.ModeSticky)
		}, "mode"},
		{"a file", func(dir string) error { return os.WriteFile(dir, nil, 0o600) }, "not a directory"},
		{"a symbolic link", func(dir string) error {
			target := filepath.Join(filepath.Dir(dir), "elsewhere")
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
			return os.Symlink(target, dir)
		}, "not a directory"},
		{"another user's", func(dir string) error {
			if os.Getuid() != 0 {
				return errSkip
			}
			if err := os.Mkdir(dir, 0o700); err != nil {
				return err
			}
			return os.Chown(dir, 65534, 65534)
		}, "owned by uid 65534, not by this user"},
	}
	for _, xdg := range []bool{true, false} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/xdg=%v", tc.name, xdg), func(t *testing.T) {
				squatted := controlEnv(t)
				if !xdg {
					t.Setenv("XDG_RUNTIME_DIR", "")
					squatted = filepath.Join(os.TempDir(), "gosh-"+strconv.Itoa(os.Getuid()))
				}
				switch err := tc.make(squatted); {
				case errors.Is(err, errSkip):
					t.Skip("making a directory of another user's needs root")
				case err != nil:
					t.Fatal(err)
				}
				before, _ := os.Lstat(squatted)
				dir, note, err := controlDirNote()
				if err != nil || dir == squatted || filepath.Dir(dir) != os.TempDir() || checkControlDir(dir) != nil {
					t.Fatalf("controlDirNote() = %q, %v; want a 0700 directory of ours in %s", dir, err, os.TempDir())
				}
				if !strings.Contains(note, squatted) || !strings.Contains(note, tc.want) || !strings.Contains(note, dir) {
					t.Errorf("note %q does not name %s, why (%q) and %s", note, squatted, tc.want, dir)
				}
				if again, err := ControlDir(); again != dir || err != nil {
					t.Errorf("second ControlDir() = %q, %v; want %q again", again, err, dir)
				}

				c, err := listenControl(Session{PID: os.Getpid(), Port: 60001, Started: time.Now()}, t.Logf)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if filepath.Dir(c.path) != dir {
					t.Errorf("socket %s, want it in %s", c.path, dir)
				}
				startFakeLoop(t, c.Requests())
				list, err := ListSessions(testContext(t))
				if err != nil || len(list) != 1 || list[0].ID != c.facts.ID {
					t.Fatalf("ListSessions = %+v, %v; want the session %s", list, err, c.facts.ID)
				}
				if _, key, err := AttachSession(testContext(t), c.facts.ID, "local"); err != nil || key.IsZero() {
					t.Errorf("AttachSession = %v, %v", key, err)
				}
				if after, _ := os.Lstat(squatted); after == nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
					t.Errorf("the squatted %s was changed", squatted)
				}
			})
		}
	}
}

// TestControlDirOthersRandom: a random-named directory another user made
// under the pattern (or one open to others) is never used or read.
func TestControlDirOthersRandom(t *testing.T) {
	controlEnv(t)
	t.Setenv("XDG_RUNTIME_DIR", "")
	fixed := filepath.Join(os.TempDir(), "gosh-"+strconv.Itoa(os.Getuid()))
	if err := os.Symlink("/", fixed); err != nil {
		t.Fatal(err)
	}
	open := fixed + ".aaaaaa" // sorts first
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	// A socket planted there must not be asked.
	planted, err := net.Listen("unix", filepath.Join(open, "0123abcd.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer planted.Close()
	dir, err := ControlDir()
	if err != nil || dir == open || dir == fixed {
		t.Fatalf("ControlDir() = %q, %v; want a new random-named directory", dir, err)
	}
	list, err := ListSessions(testContext(t))
	if err != nil || len(list) != 0 {
		t.Errorf("ListSessions = %+v, %v; want nothing (the planted socket is in a directory open to others)", list, err)
	}
	if _, _, err := AttachSession(testContext(t), "0123abcd", "local"); !errors.Is(err, ErrNoSession) {
		t.Errorf("AttachSession to the planted socket: %v, want ErrNoSession", err)
	}
}

// TestControlDirUnusable: with no directory to be had at all, ControlDir
// says why in one line.
func TestControlDirUnusable(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root can make directories in a read-only directory")
	}
	controlEnv(t)
	t.Setenv("XDG_RUNTIME_DIR", "")
	tmp := os.TempDir()
	fixed := filepath.Join(tmp, "gosh-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(fixed, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o500)
	defer os.Chmod(tmp, 0o700)
	_, err := ControlDir()
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "mode 0755") || !strings.Contains(err.Error(), "no other could be made") {
		t.Errorf("ControlDir() = %v; want one line saying the directory's mode and that no other could be made", err)
	}
}

// errSkip is a case that cannot be made here.
var errSkip = errors.New("skip")

func TestCheckPeerUID(t *testing.T) {
	if err := checkPeerUID(1000, 1000); err != nil {
		t.Errorf("same uid refused: %v", err)
	}
	for _, peer := range []int{0, 999, 1001, -1} {
		if err := checkPeerUID(peer, 1000); err == nil {
			t.Errorf("peer uid %d accepted for uid 1000", peer)
		}
	}
}

func TestPeerUID(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw, _ := s.(*net.UnixConn).SyscallConn()
	var uid int
	raw.Control(func(fd uintptr) { uid, err = peerUID(int(fd)) })
	if err != nil || uid != os.Getuid() {
		t.Errorf("peerUID = %d, %v; want %d", uid, err, os.Getuid())
	}
}

// fakeLoop answers control requests as the session loop does, until a
// kill or the test's end.
type fakeLoop struct {
	mu    sync.Mutex
	key   sspcrypto.Key
	froms []string
	ops   []session.ControlOp
	done  chan struct{}
}

func startFakeLoop(t *testing.T, reqs <-chan session.ControlRequest) *fakeLoop {
	l := &fakeLoop{done: make(chan struct{})}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); <-l.done })
	info := session.SessionInfo{Started: time.Unix(1700000000, 0), LastContact: time.Unix(1700000100, 0),
		Client: netip.MustParseAddrPort("192.0.2.7:5555"), Cols: 100, Rows: 30, Attached: true}
	go func() {
		defer close(l.done)
		for {
			select {
			case r := <-reqs:
				l.mu.Lock()
				l.ops = append(l.ops, r.Op)
				rep := session.ControlReply{Info: info}
				if r.Op == session.ControlAttach {
					l.froms = append(l.froms, r.From)
					l.key, _ = sspcrypto.NewKey(nil)
					rep.Key = l.key
				}
				l.mu.Unlock()
				r.Reply <- rep
				if r.Op == session.ControlKill {
					return
				}
			case <-stop:
				return
			}
		}
	}()
	return l
}

// TestControlRoundTrip walks one socket through its whole life (list,
// attach, refused attaches, kill, removal); it is long because each step
// depends on the one before.
func TestControlRoundTrip(t *testing.T) {
	dir := controlEnv(t)
	ctx := testContext(t)
	c, err := listenControl(Session{PID: os.Getpid(), Command: "bash", Port: 60001, Started: time.Now()}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id := c.facts.ID
	if !ValidSessionID(id) || c.path != filepath.Join(dir, id+".sock") {
		t.Fatalf("socket %s for id %q", c.path, id)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("control directory holds %d entries, want the socket only", len(entries))
	}
	loop := startFakeLoop(t, c.Requests())

	list, err := ListSessions(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("ListSessions = %+v, %v; want one session", list, err)
	}
	s := list[0]
	if s.ID != id || s.PID != os.Getpid() || s.Command != "bash" || s.Port != 60001 || s.Cols != 100 || s.Rows != 30 ||
		!s.Attached || s.Client.String() != "192.0.2.7:5555" || !s.Started.Equal(time.Unix(1700000000, 0)) || s.Err != "" {
		t.Errorf("listed %+v", s)
	}

	s, key, err := AttachSession(ctx, id, "198.51.100.9")
	loop.mu.Lock()
	want, froms := loop.key, loop.froms
	loop.mu.Unlock()
	if err != nil || !key.Equal(want) || s.ID != id || len(froms) != 1 || froms[0] != "198.51.100.9" {
		t.Errorf("AttachSession = %+v, %v, %v; loop made %v for %q", s, key, err, want, froms)
	}
	if _, _, err := AttachSession(ctx, id, "\x1b[2J"); err == nil || !strings.Contains(err.Error(), "from") {
		t.Errorf("attach from an escape sequence: %v", err)
	}
	if _, _, err := AttachSession(ctx, "00000000", "local"); !errors.Is(err, ErrNoSession) {
		t.Errorf("attach to a missing session: %v, want ErrNoSession", err)
	}
	if _, _, err := AttachSession(ctx, "../../x", "local"); !errors.Is(err, ErrNoSession) {
		t.Errorf("attach to a path: %v, want ErrNoSession", err)
	}

	if _, err := KillSession(ctx, id); err != nil {
		t.Errorf("KillSession: %v", err)
	}
	<-loop.done
	loop.mu.Lock()
	ops := loop.ops
	loop.mu.Unlock()
	if want := []session.ControlOp{session.ControlInfo, session.ControlAttach, session.ControlKill}; !equalOps(ops, want) {
		t.Errorf("loop got %v, want %v", ops, want)
	}
	c.Close()
	if _, err := os.Lstat(c.path); !os.IsNotExist(err) {
		t.Errorf("socket left behind after Close: %v", err)
	}
	if list, err := ListSessions(ctx); err != nil || len(list) != 0 {
		t.Errorf("ListSessions after the end = %+v, %v; want none", list, err)
	}
}

func equalOps(a, b []session.ControlOp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestControlLoopSilent: a loop that does not answer leaves the request
// answered with the daemon's own facts and an error, in bounded time.
func TestControlLoopSilent(t *testing.T) {
	controlEnv(t)
	shortTimeouts(t)
	c, err := listenControl(Session{PID: os.Getpid(), Command: "top", Port: 60002, Started: time.Now()}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := ListSessions(testContext(t))
	if err != nil || len(list) != 1 || list[0].Command != "top" || list[0].Port != 60002 || list[0].Err == "" {
		t.Errorf("ListSessions = %+v, %v; want the daemon's facts and an error", list, err)
	}
	if _, _, err := AttachSession(testContext(t), c.facts.ID, "local"); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("AttachSession to a silent loop: %v", err)
	}
}

// TestControlPeerRefused: a peer of another uid is cut off before it can
// ask anything (the server is told to serve another uid than ours).
func TestControlPeerRefused(t *testing.T) {
	controlEnv(t)
	c, err := listenControlFor(os.Getuid()+1, Session{PID: os.Getpid(), Started: time.Now()}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	loop := startFakeLoop(t, c.Requests())
	if _, _, err := AttachSession(testContext(t), c.facts.ID, "local"); err == nil {
		t.Error("attach from another uid succeeded")
	}
	loop.mu.Lock()
	defer loop.mu.Unlock()
	if len(loop.ops) != 0 {
		t.Errorf("the loop got %v from a refused peer", loop.ops)
	}
}

func TestControlStaleSocket(t *testing.T) {
	dir := controlEnv(t)
	if _, err := ControlDir(); err != nil {
		t.Fatal(err)
	}
	stale := func(id string) string {
		path := filepath.Join(dir, id+".sock")
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		ln.Close() // the socket file stays, nobody listens: a killed daemon's
		return path
	}
	a, b := stale("0123abcd"), stale("89abcdef")
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, nil, 0o600)
	list, err := ListSessions(testContext(t))
	if err != nil || len(list) != 0 {
		t.Errorf("ListSessions = %+v, %v; want none", list, err)
	}
	if _, err := os.Lstat(a); !os.IsNotExist(err) {
		t.Errorf("stale socket not removed by the list: %v", err)
	}
	if _, err := os.Lstat(other); err != nil {
		t.Errorf("a file that is no socket was removed: %v", err)
	}
	if _, _, err := AttachSession(testContext(t), "89abcdef", "local"); !errors.Is(err, ErrNoSession) {
		t.Errorf("attach to a stale socket: %v, want ErrNoSession", err)
	}
	if _, err := os.Lstat(b); !os.IsNotExist(err) {
		t.Errorf("stale socket not removed by attach: %v", err)
	}
}

// TestControlBadInput: garbage, overlong and slow clients get no key and
// do not stop the socket from serving others; more connections than
// maxControlConns at once are cut off. It is long because the last
// request checks the socket after all the bad ones.
func TestControlBadInput(t *testing.T) {
	controlEnv(t)
	shortTimeouts(t)
	c, err := listenControl(Session{PID: os.Getpid(), Started: time.Now()}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	loop := startFakeLoop(t, c.Requests())
	exchange := func(send []byte, closeWrite bool) []byte {
		conn, err := net.Dial("unix", c.path)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		conn.Write(send)
		if closeWrite {
			conn.(*net.UnixConn).CloseWrite()
		}
		b, _ := io.ReadAll(conn)
		return b
	}
	for _, bad := range []string{"garbage\n", `{"op":"attach"}` + "\n", `{"op":"attach","from":"a b"}` + "\n",
		`{"op":"info","key":"x"}` + "\n", `{"op":"info"} {"op":"kill"}` + "\n", "\x00\xff\n"} {
		reply := exchange([]byte(bad), false)
		s, key, err := parseControlReply(reply)
		if err != nil || s.Err == "" || !key.IsZero() {
			t.Errorf("request %q: reply %q (%v); want an error reply", bad, reply, err)
		}
	}
	if reply := exchange(bytes.Repeat([]byte("x"), 3*maxControlLine), false); len(reply) != 0 {
		t.Errorf("overlong request answered %q", reply)
	}
	if reply := exchange([]byte(`{"op":"info"}`), true); len(reply) != 0 { // no newline
		t.Errorf("unterminated request answered %q", reply)
	}

	// Slow clients hold every slot; one more is cut off at once.
	waitSlots(t, c, 0)
	var slow []net.Conn
	for range maxControlConns {
		conn, err := net.Dial("unix", c.path)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		slow = append(slow, conn)
	}
	waitSlots(t, c, maxControlConns)
	start := time.Now()
	if reply := exchange([]byte(`{"op":"info"}`+"\n"), false); len(reply) != 0 || time.Since(start) > controlReadTimeout {
		t.Errorf("connection over the limit answered %q after %v", reply, time.Since(start))
	}
	for _, conn := range slow {
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if b, _ := io.ReadAll(conn); len(b) != 0 {
			t.Errorf("slow client answered %q", b)
		}
	}
	// Once they are cut off, requests are served again.
	if _, _, err := AttachSession(testContext(t), c.facts.ID, "local"); err != nil {
		t.Errorf("attach after the bad clients: %v", err)
	}
	loop.mu.Lock()
	defer loop.mu.Unlock()
	if len(loop.ops) != 1 {
		t.Errorf("the loop got %v; want only the last attach", loop.ops)
	}
}

// waitSlots waits until n connections are being served.
func waitSlots(t *testing.T, c *controlServer, n int) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); len(c.sem) != n; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d connections served, want %d", len(c.sem), n)
		}
	}
}

func TestReadLine(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"a\n", "a\n", true},
		{"a\nb\n", "a\n", true},
		{"", "", false},
		{"abc", "", false},
		{strings.Repeat("x", 15) + "\n", strings.Repeat("x", 15) + "\n", true},
		{strings.Repeat("x", 16) + "\n", "", false},
	} {
		got, err := readLine(iotest{strings.NewReader(tc.in)}, 16)
		if string(got) != tc.want || (err == nil) != tc.ok {
			t.Errorf("readLine(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// iotest reads one byte at a time.
type iotest struct{ r io.Reader }

func (r iotest) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return r.r.Read(p)
}

func FuzzControlRequest(f *testing.F) {
	for _, s := range []string{
		`{"op":"info"}`, `{"op":"attach","from":"192.0.2.7"}`, `{"op":"attach","from":"fe80::1%eth0"}`,
		`{"op":"kill"}` + "\n", `{"op":"attach","from":"local"}`, `{"op":"kill","from":"x"}`,
		`{"op":"attach","from":"\u001b]0;x\u0007"}`, `{"op":"nope"}`, `{"op":"info"}{}`, `[]`, `null`, "",
		`{"op":"info","op":"kill"}`, `{"OP":"info"}`, `{"op":"info","extra":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := parseControlRequest(line)
		if err != nil {
			return
		}
		switch r.Op {
		case opInfo, opKill:
			if r.From != "" {
				t.Fatalf("%q: from %q accepted with %s", line, r.From, r.Op)
			}
		case opAttach:
			if !validFrom(r.From) {
				t.Fatalf("%q: bad from %q accepted", line, r.From)
			}
		default:
			t.Fatalf("%q: op %q accepted", line, r.Op)
		}
		// What is accepted survives the trip through the wire.
		b, _ := json.Marshal(r)
		if again, err := parseControlRequest(b); err != nil || again != r {
			t.Fatalf("%q → %s → %+v, %v", line, b, again, err)
		}
	})
}

func FuzzControlReply(f *testing.F) {
	k, _ := sspcrypto.NewKey(nil)
	for _, s := range []string{
		`{"id":"0123abcd","pid":42,"command":"bash","port":60001,"started":"2024-01-02T03:04:05Z","attached":false}`,
		`{"id":"0123abcd","pid":42,"command":"bash","port":60001,"started":"2024-01-02T03:04:05Z","last_contact":"2024-01-02T03:05:05Z","client":"192.0.2.7:5555","cols":80,"rows":24,"attached":true,"key":"` + k.Base64() + `"}`,
		`{"id":"0123abcd","pid":42,"command":"","port":0,"started":"0001-01-01T00:00:00Z","attached":false,"error":"the session did not answer"}`,
		`{"id":"../x","pid":1}`, `{"id":"0123abcd","pid":1,"key":"short"}`, `{"id":"0123abcd","pid":1,"client":"nope"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s, key, err := parseControlReply(line)
		if err != nil {
			return
		}
		if !ValidSessionID(s.ID) || s.PID <= 0 {
			t.Fatalf("%q: accepted %+v", line, s)
		}
		if !key.IsZero() {
			if _, err := sspcrypto.ParseKey(key.Base64()); err != nil {
				t.Fatalf("%q: key does not survive: %v", line, err)
			}
		}
	})
}

//go:build unix

package ssp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// goshCapsForInterop is a non-zero gosh_caps value: the interop tests
// prove that stock Mosh accepts instructions carrying field 8.
const goshCapsForInterop = 0x1

// needCommands fails (not skips) when a reference peer is missing.
func needCommands(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			t.Fatalf("%s not found (%v): the interop tests need the stock Mosh peer and tmux; run `make deps`", name, err)
		}
	}
}

var (
	connectLine  = regexp.MustCompile(`(?m)^MOSH CONNECT (\d+) ([A-Za-z0-9/+]{22})\s*$`)
	detachedLine = regexp.MustCompile(`\[mosh-server detached, pid = (\d+)\]`)
)

// startMoshServer runs `mosh-server new` on 127.0.0.1 and returns its
// port and key; the daemon it forks is killed by pid at cleanup.
func startMoshServer(t *testing.T) (netip.AddrPort, sspcrypto.Key) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mosh-server", "new", "-p", "0", "-i", "127.0.0.1", "--", "/bin/sh")
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "PS1=$ ")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mosh-server: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	if m := detachedLine.FindSubmatch(stderr.Bytes()); m != nil {
		pid, _ := strconv.Atoi(string(m[1]))
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	} else {
		t.Fatalf("no daemon pid in mosh-server's stderr: %s", stderr.Bytes())
	}
	m := connectLine.FindSubmatch(stdout.Bytes())
	if m == nil {
		t.Fatalf("no MOSH CONNECT line in %q", stdout.Bytes())
	}
	port, _ := strconv.Atoi(string(m[1]))
	key, err := sspcrypto.ParseKey(string(m[2]))
	if err != nil {
		t.Fatal(err)
	}
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port)), key
}

// loop is a minimal session loop for the interop tests: one owner
// goroutine, one timer armed from NextDeadline, datagrams from the Conn.
type loop[L ssp.State[L], R ssp.State[R]] struct {
	t    *testing.T
	tr   *ssp.Transport[L, R]
	conn *ssp.Conn
	drop []error
}

// run ticks, sends and receives until done() or the timeout.
func (l *loop[L, R]) run(timeout time.Duration, done func() bool) bool {
	end := time.Now().Add(timeout)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		now := time.Now()
		out, err := l.tr.Tick(now)
		if err != nil {
			l.t.Fatalf("Tick: %v", err)
		}
		if to, ok := l.tr.RemoteAddr(); ok {
			for _, d := range out {
				if err := l.conn.WriteTo(d, to); err != nil {
					l.t.Logf("WriteTo: %v", err)
				}
			}
		}
		if done() {
			return true
		}
		if !now.Before(end) {
			return false
		}
		wait := end.Sub(now)
		if next := l.tr.NextDeadline(); !next.IsZero() {
			wait = min(wait, max(next.Sub(now), 0))
		}
		timer.Reset(min(wait, 50*time.Millisecond)) // also re-check done() now and then
		select {
		case d := <-l.conn.Datagrams():
			if err := l.tr.Receive(d.At, d.Data, d.From); err != nil {
				l.drop = append(l.drop, err)
			}
		case <-timer.C:
		}
	}
}

// TestInteropGoshClientStockServer: a gosh SSP client with a minimal
// user-input state drives a stock mosh-server: it sends a resize and the
// keys of a shell command, and the host diffs it receives show the
// command's output. Its instructions carry gosh_caps (field 8), which
// stock Mosh must ignore. Finally the client shuts the session down.
func TestInteropGoshClientStockServer(t *testing.T) {
	needCommands(t, "mosh-server")
	addr, key := startMoshServer(t)
	conn, err := ssp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	user := ssptest.NewUserInput()
	user.Resize(80, 24)
	tr, err := ssp.NewTransport(ssp.Config{Key: key, Remote: addr, LocalCaps: goshCapsForInterop, Logf: t.Logf},
		user, ssptest.NewHost(80, 24), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l := &loop[*ssptest.UserInput, *ssptest.Host]{t: t, tr: tr, conn: conn}

	if !l.run(10*time.Second, func() bool { return tr.RemoteNum() > 0 && tr.SentStateAcked() > 0 }) {
		t.Fatalf("mosh-server never answered (stats %+v, drops %v)", tr.Stats(), l.drop)
	}
	tr.Current().Keys([]byte("echo gosh-ssp-ok\r"))
	// Once echoed by the terminal as typed, once printed by the shell.
	ok := l.run(10*time.Second, func() bool {
		return bytes.Count(tr.Remote().Output(), []byte("gosh-ssp-ok")) >= 2
	})
	out := tr.Remote().Output()
	if !ok {
		t.Fatalf("the host output %q does not show both the typed command and its output gosh-ssp-ok (stats %+v, drops %v)", out, tr.Stats(), l.drop)
	}
	t.Logf("host output: %q (%d times gosh-ssp-ok), echo ack %d", out, bytes.Count(out, []byte("gosh-ssp-ok")), tr.Remote().EchoAck())
	if tr.PeerCaps() != 0 {
		t.Errorf("stock mosh-server has PeerCaps %#x", tr.PeerCaps())
	}
	if w, h := tr.Remote().Size(); w != 80 || h != 24 {
		t.Errorf("host size %dx%d", w, h)
	}
	if len(l.drop) > 0 {
		t.Errorf("dropped datagrams from mosh-server: %v", l.drop)
	}

	tr.StartShutdown(time.Now())
	if !l.run(5*time.Second, func() bool { return tr.ShutdownAcknowledged() || tr.ShutdownAckTimedOut(time.Now()) }) || !tr.ShutdownAcknowledged() {
		t.Errorf("mosh-server did not acknowledge the shutdown")
	}
}

// tmux runs a tmux command on the test's private server.
func tmux(t *testing.T, sock string, args ...string) string {
	t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// TestInteropStockClientGoshServer: a stock mosh-client, running in a
// private tmux server, accepts a gosh SSP server's datagrams: it displays
// a screen diff the test sends, sends its window size and keystrokes,
// and acknowledges the server's shutdown.
func TestInteropStockClientGoshServer(t *testing.T) {
	needCommands(t, "mosh-client", "tmux")
	conn, err := ssp.Listen(ssp.ListenConfig{Addr: netip.MustParseAddr("127.0.0.1"), Ports: netaddr.AnyPort})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	host := ssptest.NewHost(80, 24)
	tr, err := ssp.NewTransport(ssp.Config{Key: key, Server: true, LocalCaps: goshCapsForInterop, Logf: t.Logf,
		MaxDatagram: ssp.DatagramBudget(conn.LocalAddr().Addr())}, host, ssptest.NewUserInput(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	l := &loop[*ssptest.Host, *ssptest.UserInput]{t: t, tr: tr, conn: conn}

	dir, err := os.MkdirTemp("", "gosh-ssp-tmux") // short: socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	t.Cleanup(func() {
		exec.Command("tmux", "-S", sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	client := fmt.Sprintf("env MOSH_KEY=%s LANG=C.UTF-8 MOSH_PREDICTION_DISPLAY=never mosh-client 127.0.0.1 %d; sleep 60",
		key.Base64(), conn.LocalAddr().Port())
	tmux(t, sock, "new-session", "-d", "-x", "80", "-y", "24", client)

	// The client's first state carries its window size.
	resized := func() bool {
		for _, e := range tr.Remote().Events() {
			if e.Resize {
				return true
			}
		}
		return false
	}
	if !l.run(10*time.Second, resized) {
		t.Fatalf("no resize from mosh-client (stats %+v, drops %v)", tr.Stats(), l.drop)
	}
	ev := tr.Remote().Events()[0]
	if !ev.Resize || ev.Width != 80 || ev.Height != 24 {
		t.Errorf("first client event %+v, want a resize to 80x24", ev)
	}

	host.Write([]byte("\x1b[5;3Hhello from a gosh SSP server\x1b[6;3Hgosh-ssp-ok"))
	screen := ""
	shown := l.run(10*time.Second, func() bool {
		screen = tmux(t, sock, "capture-pane", "-p")
		return strings.Contains(screen, "hello from a gosh SSP server") && strings.Contains(screen, "gosh-ssp-ok")
	})
	if !shown {
		t.Fatalf("mosh-client does not show the diff; screen:\n%s\n(stats %+v, drops %v)", screen, tr.Stats(), l.drop)
	}
	t.Logf("mosh-client screen:\n%s", screen)

	tmux(t, sock, "send-keys", "-l", "typed")
	keys := func() string {
		var b strings.Builder
		for _, e := range tr.Remote().Events() {
			if !e.Resize {
				b.WriteByte(e.Byte)
			}
		}
		return b.String()
	}
	if !l.run(10*time.Second, func() bool { return strings.Contains(keys(), "typed") }) {
		t.Errorf("keystrokes from mosh-client: %q, want \"typed\"", keys())
	}
	if tr.PeerCaps() != 0 {
		t.Errorf("stock mosh-client has PeerCaps %#x", tr.PeerCaps())
	}
	if len(l.drop) > 0 {
		t.Errorf("dropped datagrams from mosh-client: %v", l.drop)
	}

	tr.StartShutdown(time.Now())
	if !l.run(5*time.Second, func() bool { return tr.ShutdownAcknowledged() || tr.ShutdownAckTimedOut(time.Now()) }) || !tr.ShutdownAcknowledged() {
		t.Errorf("mosh-client did not acknowledge the shutdown")
	}
	exited := l.run(5*time.Second, func() bool {
		screen = tmux(t, sock, "capture-pane", "-p")
		return strings.Contains(screen, "[mosh is exiting.]")
	})
	if !exited || strings.Contains(screen, "did not shut down cleanly") {
		t.Errorf("mosh-client did not exit cleanly; screen:\n%s", screen)
	}
}

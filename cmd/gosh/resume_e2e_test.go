//go:build linux

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// nonceLog records the sequence number of every datagram a relay sees
// from the client, and counts those seen twice (a nonce reused).
type nonceLog struct {
	sess  *sspcrypto.Session
	mu    sync.Mutex
	seen  map[uint64]bool
	dups  []uint64
	bad   int
	total int
}

func newNonceLog(t testing.TB, key string) *nonceLog {
	k, err := sspcrypto.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := sspcrypto.NewSession(k)
	if err != nil {
		t.Fatal(err)
	}
	return &nonceLog{sess: sess, seen: map[uint64]bool{}}
}

func (n *nonceLog) see(d []byte) {
	_, seq, _, err := n.sess.Open(nil, d)
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.bad++
		return
	}
	n.total++
	if n.seen[seq] {
		n.dups = append(n.dups, seq)
	}
	n.seen[seq] = true
}

// killClient SIGKILLs the gosh client running in tm's pane and waits for
// the pane's shell to report it.
func killClient(t testing.TB, tm *e2etest.Tmux) {
	t.Helper()
	pid := e2etest.ChildPID(t, tm.PanePID(), "gosh")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tm.WaitForText(10*time.Second, "client-exit=137")
}

// resumeClient starts gosh connect --resume in a new tmux window with the
// saved sessions of state, and returns it and how long the whole screen
// took to show want.
func resumeClient(t testing.TB, state, want string) (*e2etest.Tmux, time.Duration) {
	t.Helper()
	env := append(append([]string{}, localeEnv...), "XDG_STATE_HOME="+state)
	start := time.Now()
	tm := e2etest.NewTmux(t, 80, 24, env, clientWrapper(t.TempDir(), goshBin+" connect --resume")...)
	tm.WaitForText(10*time.Second, want)
	return tm, time.Since(start)
}

// TestE2EResumeAfterKill: the client is killed with SIGKILL at random
// points while it sends, five times, and each time gosh connect --resume
// continues the same shell with the whole screen; every nonce the server
// was ever sent under the key is unique.
func TestE2EResumeAfterKill(t *testing.T) {
	t.Parallel()
	server := startGoshServer(t)
	relay := e2etest.NewRelay(t, relayTarget(server))
	nonces := newNonceLog(t, server.Key)
	relay.SetUpHook(nonces.see)
	state := t.TempDir()
	env := append(append([]string{}, localeEnv...), "XDG_STATE_HOME="+state)
	tm := e2etest.NewTmux(t, 80, 24, env, clientWrapper(t.TempDir(), goshClientVia(server, relay))...)
	tm.WaitForText(10*time.Second, prompt)
	tm.Send("MARK=kept-$((40+2))\r")

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	var took []time.Duration
	for i := range 5 {
		tm.Send(fmt.Sprintf("echo round-%d-$((%d*2))\r", i, i))
		tm.WaitForText(10*time.Second, fmt.Sprintf("round-%d-%d", i, i*2))
		// Keys and output in flight when the kill comes.
		tm.Send("seq 1 300 | tail -3; echo typing-while-killed")
		time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
		killClient(t, tm)
		var d time.Duration
		tm, d = resumeClient(t, state, fmt.Sprintf("round-%d-%d", i, i*2))
		took = append(took, d)
		tm.SendKey("C-u")
		tm.WaitFor(10*time.Second, "a prompt", func(s []string) bool { return strings.HasPrefix(s[lastNonEmpty(s)], prompt) })
	}
	tm.Send("echo mark=$MARK\r")
	tm.WaitForText(10*time.Second, "mark=kept-42")
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")

	nonces.mu.Lock()
	defer nonces.mu.Unlock()
	if len(nonces.dups) > 0 || nonces.bad > 0 {
		t.Fatalf("%d of %d datagrams reused a sequence number (%v); %d did not open", len(nonces.dups), nonces.total, nonces.dups[:min(5, len(nonces.dups))], nonces.bad)
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	t.Logf("%d datagrams, all nonces unique; resumed to the whole screen in %v (sorted)", nonces.total, took)
}

// TestE2EResumeGone: resuming a session whose server has ended says so
// in one line within a few seconds, the server's host having answered
// that nothing listens on the session's port any more, rather than after
// the connect timeout and the shutdown's (25 s); the record is forgotten.
func TestE2EResumeGone(t *testing.T) {
	t.Parallel()
	server := startGoshServer(t)
	state := t.TempDir()
	env := append(append([]string{}, localeEnv...), "XDG_STATE_HOME="+state)
	tm := e2etest.NewTmux(t, 80, 24, env, clientWrapper(t.TempDir(), goshClient(server))...)
	tm.WaitForText(10*time.Second, prompt)
	killClient(t, tm)
	server.Kill()
	if !server.WaitExit(10 * time.Second) {
		t.Fatal("the server did not exit")
	}
	start := time.Now()
	tm = e2etest.NewTmux(t, 100, 24, env, clientWrapper(t.TempDir(), goshBin+" connect --resume")...)
	tm.WaitForText(10*time.Second, "client-exit=1")
	took := time.Since(start)
	screen := strings.Join(tm.Screen(), "\n")
	if !strings.Contains(screen, "has ended: nothing listens on its UDP port") {
		t.Errorf("gosh connect --resume of an ended session printed:\n%s", screen)
	}
	tm = e2etest.NewTmux(t, 100, 24, env, clientWrapper(t.TempDir(), goshBin+" connect --resume")...)
	tm.WaitForText(10*time.Second, "no detached session to resume")
	t.Logf("an ended session was known so in %v:\n%s", took, screen)
}

// TestE2EResumeStockServer: a stock mosh-server's session cannot be
// resumed: --resume says so in one line and starts a new session instead.
func TestE2EResumeStockServer(t *testing.T) {
	t.Parallel()
	server := startMoshServer(t)
	state := t.TempDir()
	env := append(append([]string{}, localeEnv...), "XDG_STATE_HOME="+state)
	tm := e2etest.NewTmux(t, 80, 24, env, clientWrapper(t.TempDir(), goshClient(server))...)
	tm.WaitForText(10*time.Second, prompt)
	killClient(t, tm)
	again := e2etest.NewTmux(t, 200, 24, env, "sh", "-c", goshBin+" connect --resume -F /dev/null --connect-timeout 2s 2>&1; echo client-exit=$?; sleep 600")
	again.WaitForText(10*time.Second, "is with a stock mosh-server, which cannot resume a session; starting a new one")
}

// BenchmarkResumeAfterKill is issue 14's resume figure: the client is
// killed with SIGKILL and gosh connect --resume brings the whole screen
// back; the time from starting it to the screen, median and worst of the
// runs (a fresh tmux and process each time, over loopback).
//
//	go test -run '^$' -bench ResumeAfterKill -benchtime 20x ./cmd/gosh
func BenchmarkResumeAfterKill(b *testing.B) {
	argv := append([]string{goshBin, "server", "new", "-i", "127.0.0.1", "-p", "0", "--"}, shellArgv...)
	server := e2etest.StartServer(b, localeEnv, argv...)
	state := b.TempDir()
	env := append(append([]string{}, localeEnv...), "XDG_STATE_HOME="+state)
	tm := e2etest.NewTmux(b, 80, 24, env, clientWrapper(b.TempDir(), goshClient(server))...)
	tm.WaitForText(10*time.Second, prompt)
	var took []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tm.Send(fmt.Sprintf("echo run-%d-$((%d+1))\r", i, i))
		want := fmt.Sprintf("run-%d-%d", i, i+1)
		tm.WaitForText(10*time.Second, want)
		killClient(b, tm)
		var d time.Duration
		tm, d = resumeClient(b, state, want)
		took = append(took, d)
	}
	b.StopTimer()
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "ms-max")
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2EDirectSessionID: a client started with gosh connect --direct
// never sees gosh server new's detach notice, yet its saved session is
// known by the ID gosh server list shows (the server tells it, protocol
// 12.4): after the client is killed, gosh connect --resume ID resumes the
// same shell.
func TestE2EDirectSessionID(t *testing.T) {
	t.Parallel()
	runtime := t.TempDir()
	server := startGoshServer(t, "XDG_RUNTIME_DIR="+runtime)
	id := server.Session
	if id == "" {
		t.Fatal("gosh server new named no session")
	}
	state := t.TempDir()
	env := append(append([]string{}, localeEnv...), "XDG_STATE_HOME="+state)
	tm := e2etest.NewTmux(t, 80, 24, env, clientWrapper(t.TempDir(), goshClient(server))...)
	tm.WaitForText(10*time.Second, prompt)
	tm.Send("MARK=direct-$((6*7)); echo set-$MARK\r")
	tm.WaitForText(10*time.Second, "set-direct-42")
	killClient(t, tm)

	list := exec.Command(goshBin, "server", "list")
	list.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtime)
	out, err := list.CombinedOutput()
	if err != nil || !strings.Contains(string(out), id) {
		t.Fatalf("gosh server list = %v, %q; want session %s", err, out, id)
	}
	again := e2etest.NewTmux(t, 80, 24, env, clientWrapper(t.TempDir(), goshBin+" connect --resume "+id)...)
	again.WaitForText(10*time.Second, "set-direct-42") // the whole screen
	again.Send("echo mark=$MARK\r")
	again.WaitForText(10*time.Second, "mark=direct-42")
	again.Send("exit\r")
	again.WaitForText(10*time.Second, "client-exit=0")
}

//go:build linux

package main

// Session-level measurements, beside stock Mosh in the same run. They are
// benchmarks (go test -bench Session ./cmd/gosh), not timed tests: they
// report figures and assert nothing about speed.

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// peer is one client/server pairing.
type peer struct {
	name   string
	server func(t testing.TB) *e2etest.Server
	client func(s *e2etest.Server) []string
}

func peers() []peer {
	return []peer{
		{"gosh", func(t testing.TB) *e2etest.Server { return startServerTB(t, goshBin, "server", "new") },
			func(s *e2etest.Server) []string {
				return []string{goshBin, "connect", "--direct", "127.0.0.1", strconv.Itoa(int(s.Port))}
			}},
		{"mosh", func(t testing.TB) *e2etest.Server { return startServerTB(t, "mosh-server", "new") },
			func(s *e2etest.Server) []string {
				return []string{"mosh-client", "127.0.0.1", strconv.Itoa(int(s.Port))}
			}},
	}
}

func startServerTB(t testing.TB, argv ...string) *e2etest.Server {
	t.Helper()
	e2etest.RequireCommands(t, argv[0])
	full := append(append(argv, "-i", "127.0.0.1", "-p", "0", "--"), shellArgv...)
	return e2etest.StartServer(t, localeEnv, full...)
}

// connect starts the client in a terminal the test times.
func connect(b *testing.B, p peer, s *e2etest.Server) *e2etest.Term {
	env := append([]string{"MOSH_KEY=" + s.Key}, localeEnv...)
	return e2etest.StartTerm(b, 80, 24, env, p.client(s)...)
}

// BenchmarkSessionConnect measures the time from starting the client
// (gosh connect --direct, or mosh-client) to the shell prompt on its
// screen, against an already running server.
func BenchmarkSessionConnect(b *testing.B) {
	for _, p := range peers() {
		b.Run(p.name, func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := p.server(b)
				b.StartTimer()
				start := time.Now()
				tm := connect(b, p, s)
				at := tm.WaitForText(10*time.Second, prompt)
				total += at.Sub(start)
				b.StopTimer()
				tm.Type("exit\r")
				_ = tm.Wait(10 * time.Second)
				tm.Close()
				s.Kill()
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-prompt")
		})
	}
}

// BenchmarkSessionIdleRSS reports the server daemon's resident memory with
// one connected, idle session.
func BenchmarkSessionIdleRSS(b *testing.B) {
	for _, p := range peers() {
		b.Run(p.name, func(b *testing.B) {
			var total float64
			for i := 0; i < b.N; i++ {
				s := p.server(b)
				tm := connect(b, p, s)
				tm.WaitForText(10*time.Second, prompt)
				tm.Type("echo idle\r")
				tm.WaitForText(10*time.Second, "idle\n")
				time.Sleep(2 * time.Second)
				total += float64(procRSS(b, s.PID))
				tm.Type("exit\r")
				_ = tm.Wait(10 * time.Second)
				tm.Close()
				s.Kill()
			}
			b.ReportMetric(total/float64(b.N), "server-RSS-KiB")
		})
	}
}

// BenchmarkSessionSeq reports the server daemon's CPU time for running
// seq 1 3000000 to the end in a session, and the wall time until the
// client shows the end.
func BenchmarkSessionSeq(b *testing.B) {
	for _, p := range peers() {
		b.Run(p.name, func(b *testing.B) {
			var cpu float64
			var wall time.Duration
			for i := 0; i < b.N; i++ {
				s := p.server(b)
				tm := connect(b, p, s)
				tm.WaitForText(10*time.Second, prompt)
				before := procCPU(b, s.PID)
				start := time.Now()
				tm.Type("seq 1 3000000; echo seq-$((1000+1))-done\r")
				at := tm.WaitForText(120*time.Second, "seq-1001-done")
				time.Sleep(500 * time.Millisecond) // let the server finish its last frames
				cpu += procCPU(b, s.PID) - before
				wall += at.Sub(start)
				tm.Type("exit\r")
				_ = tm.Wait(10 * time.Second)
				tm.Close()
				s.Kill()
			}
			b.ReportMetric(cpu/float64(b.N), "server-cpu-s")
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
		})
	}
}

// floodFor is how long BenchmarkSessionFloodInterrupt floods before Ctrl-C.
const floodFor = 2 * time.Second

// BenchmarkSessionFloodInterrupt reports how long after Ctrl-C the prompt
// is back on the client's screen while seq floods the terminal for
// floodFor (the Mosh paper's Ctrl-C test), and the server's CPU time from
// the command to the prompt.
func BenchmarkSessionFloodInterrupt(b *testing.B) {
	for _, p := range peers() {
		b.Run(p.name, func(b *testing.B) {
			var back time.Duration
			var cpu float64
			for i := 0; i < b.N; i++ {
				s := p.server(b)
				tm := connect(b, p, s)
				tm.WaitForText(10*time.Second, prompt)
				before := procCPU(b, s.PID)
				tm.Type("seq 1 100000000\r")
				tm.Watch(func(screen []string) bool { // flooding
					return strings.TrimSpace(screen[len(screen)-2]) != "" && !strings.HasPrefix(screen[lastNonEmpty(screen)], prompt)
				})(10*time.Second, "the flood")
				time.Sleep(floodFor)
				start := time.Now()
				tm.Type("\x03")
				at := tm.Watch(func(screen []string) bool {
					i := lastNonEmpty(screen)
					return strings.HasPrefix(screen[i], prompt) && strings.Contains(strings.Join(screen, "\n"), "^C")
				})(10*time.Second, "the prompt after Ctrl-C")
				back += at.Sub(start)
				cpu += procCPU(b, s.PID) - before
				tm.Type("exit\r")
				_ = tm.Wait(10 * time.Second)
				tm.Close()
				s.Kill()
			}
			b.ReportMetric(float64(back.Milliseconds())/float64(b.N), "ms-to-prompt")
			b.ReportMetric(cpu/float64(b.N), "server-cpu-s")
		})
	}
}

// procRSS is a process's resident set size in KiB.
func procRSS(t testing.TB, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(rest)[0])
			return n
		}
	}
	t.Fatalf("no VmRSS for pid %d", pid)
	return 0
}

// procCPU is a process's user+system CPU time in seconds.
func procCPU(t testing.TB, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // clock ticks; USER_HZ is 100 on Linux
}

// BenchmarkHostileServerRSS plays a compromised server (it has the key)
// against gosh connect --direct and stock mosh-client over loopback UDP:
// it resizes the client to 1024×512 and sends states 2, 3, … each diffed
// from state 1 with a full-screen change, never raising throwaway_num. It
// reports the client's RSS after 12 and 36 states (a receiver that keeps
// every state the peer may still diff from grows with the count; a
// bounded one does not).
func BenchmarkHostileServerRSS(b *testing.B) {
	clients := []struct {
		name string
		argv func(port int) []string
	}{
		{"gosh", func(port int) []string {
			return []string{goshBin, "connect", "--direct", "127.0.0.1", strconv.Itoa(port)}
		}},
		{"mosh", func(port int) []string { return []string{"mosh-client", "127.0.0.1", strconv.Itoa(port)} }},
	}
	for _, c := range clients {
		for _, states := range []int{12, 36} {
			b.Run(fmt.Sprintf("%s/states=%d", c.name, states), func(b *testing.B) {
				e2etest.RequireCommands(b, c.argv(1)[0])
				var rss float64
				for i := 0; i < b.N; i++ {
					rss += float64(hostileServerRSS(b, c.argv, states)) / 1024
				}
				b.ReportMetric(rss/float64(b.N), "client-RSS-MiB")
			})
		}
	}
}

// hostileServerRSS runs the attack once and returns the client's RSS in
// KiB.
func hostileServerRSS(b *testing.B, argv func(port int) []string, states int) int {
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		b.Fatal(err)
	}
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer pc.Close()
	env := append([]string{"MOSH_KEY=" + key.Base64()}, localeEnv...)
	tm := e2etest.StartTerm(b, 80, 24, env, argv(pc.LocalAddr().(*net.UDPAddr).Port)...)
	defer tm.Close()
	buf := make([]byte, 4096)
	pc.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, client, err := pc.ReadFromUDP(buf)
	if err != nil {
		b.Fatalf("no datagram from the client: %v", err)
	}
	f, err := e2etest.NewForger(key, sspcrypto.ToClient)
	if err != nil {
		b.Fatal(err)
	}
	send := func(in ssp.Instruction) {
		for _, d := range f.Instruction(in) {
			pc.WriteToUDP(d, client)
			time.Sleep(100 * time.Microsecond)
		}
	}
	base := statesync.NewComplete(80, 24)
	one := base.Clone()
	one.Resize(vt.MaxCols, vt.MaxRows)
	send(ssp.Instruction{OldNum: 0, NewNum: 1, Diff: one.Diff(base)})
	for n := 2; n < states+2; n++ {
		next := one.Clone()
		next.Feed([]byte(fmt.Sprintf("\x1b[4%dm\x1b[2J", n%8)), nil)
		send(ssp.Instruction{OldNum: 1, NewNum: uint64(n), Diff: next.Diff(one)})
		time.Sleep(50 * time.Millisecond) // let the client apply it
	}
	time.Sleep(time.Second)
	return procRSS(b, tm.PID())
}

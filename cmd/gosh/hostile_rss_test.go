//go:build linux && !race

package main

// Peak memory of the real binaries under a hostile peer that has the
// session key: a Go server (internal/e2etest.Forger) against gosh connect
// --direct in a pseudo-terminal, and a Go client against gosh server new,
// one attack at a time. Each run reads the victim's peak resident set
// (VmHWM) and CPU time from /proc; stock mosh-client and mosh-server take
// the attacks that reach them (states, resize storms, line floods: they
// ignore gosh channels and scrollback), and are stopped past moshCap.

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/stream"
	"github.com/gosh-term/gosh/internal/vt"
)

// hostileRSSCeiling is the most a gosh process may hold, at its peak,
// under any one attack (issue: a hostile peer must not cost either side
// more than 96 MiB).
const hostileRSSCeiling = 96 << 10 // KiB

// moshCap stops a stock Mosh process that passes it: its figure is then
// "over moshCap", which is all the comparison needs.
const moshCap = 1 << 20 // KiB

// The gosh_caps bits a hostile gosh peer claims (docs/protocol.md 12.2,
// 12.3, 12.6).
const (
	capChannels   = 1 << 32
	capScrollback = 1 << 33
	capStream     = 1 << 36
)

// hostile is the attacker's end of one run: its socket, the victim's
// address, its forger, and the victim's pid, watched for moshCap.
type hostile struct {
	pc      *net.UDPConn
	to      *net.UDPAddr
	f       *e2etest.Forger
	caps    uint64
	pid     int
	stopped atomic.Bool   // the victim passed the cap and was killed
	why     func() string // what the victim said, should it end
}

// send sends an instruction, fragment by fragment, giving the victim's
// socket time to take them.
func (h *hostile) send(in ssp.Instruction) {
	in.GoshCaps = h.caps
	for i, d := range h.f.Instruction(in) {
		if h.stopped.Load() {
			return
		}
		h.pc.WriteToUDP(d, h.to)
		if i%8 == 7 {
			time.Sleep(500 * time.Microsecond)
		}
	}
}

// watch kills the victim if its resident set passes limit (KiB), until
// done is closed.
func (h *hostile) watch(limit int, done <-chan struct{}) {
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if rss, _ := procMem(h.pid); rss > limit {
				h.stopped.Store(true)
				syscall.Kill(h.pid, syscall.SIGKILL)
				return
			}
		}
	}()
}

// procMem returns a process's resident set and its peak (VmRSS, VmHWM),
// in KiB; 0 once it is gone.
func procMem(pid int) (rss, hwm int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			rss, _ = strconv.Atoi(strings.Fields(rest)[0])
		}
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			hwm, _ = strconv.Atoi(strings.Fields(rest)[0])
		}
	}
	return rss, hwm
}

// clientAttacks are what a compromised server does to a client.
var clientAttacks = []struct {
	key, name string
	mosh      bool // stock mosh-client takes it too
	run       func(h *hostile)
}{
	{"states", "states: 300 screens of 1024x512, each diffed from an old one", true, func(h *hostile) {
		one := screenStates(h)
		for n := 2; n < 302 && !h.stopped.Load(); n++ {
			next := one.Clone()
			next.Feed(fmt.Appendf(nil, "\x1b[4%dm\x1b[2J", n%8), nil)
			h.send(ssp.Instruction{OldNum: 1, NewNum: uint64(n), Diff: next.Diff(one)})
			time.Sleep(10 * time.Millisecond)
		}
	}},
	{"resize", "resize storm: 300 sizes up to 1024x512, with 1 MiB OSC strings", true, func(h *hostile) {
		one := screenStates(h)
		osc := []byte("\x1b]52;c;" + strings.Repeat("QUFB", 256<<10) + "\x07\x1b]0;" + strings.Repeat("t", 1<<20) + "\x07")
		for i := range 300 {
			if h.stopped.Load() {
				return
			}
			next := one.Clone()
			next.Resize(1+i*11%vt.MaxCols, 1+i*7%vt.MaxRows)
			if i%3 == 0 {
				next.Resize(vt.MaxCols, vt.MaxRows)
			}
			if i%25 == 0 {
				next.Feed(osc, nil)
			}
			h.send(ssp.Instruction{OldNum: 1, NewNum: uint64(i + 2), Diff: next.Diff(one)})
			time.Sleep(5 * time.Millisecond)
		}
	}},
	{"opens", "channel opens: 20 states of 50,000 the client refuses, never acknowledged", false, func(h *hostile) {
		const service = "tcp:127.0.0.1:22"
		per := statesync.MaxChannelBacklog/(statesync.ChannelMessageCost+len(service)) - 1000
		prev, id := statesync.NewComplete(80, 24), uint32(1)
		for n := range 20 {
			next := prev.Clone()
			next.TrimChannels(next.ChannelTotal())
			for range per {
				next.PushChannel(statesync.ChannelMsg{ID: id, Kind: statesync.ChannelOpen, Data: []byte(service)})
				id += 2
			}
			h.send(ssp.Instruction{OldNum: uint64(n), NewNum: uint64(n + 1), ThrowawayNum: uint64(n), Diff: next.Diff(prev)})
			prev = next
			time.Sleep(200 * time.Millisecond)
		}
	}},
	{"scrollback", "scrollback: 20 states of 40,000 lines, faster than the terminal takes them", true, func(h *hostile) {
		text := []byte(strings.Repeat("x", 40))
		per := statesync.MaxScrollBacklog/(statesync.ScrollLineCost+len(text)) - 100
		prev, line := statesync.NewComplete(80, 24), uint64(0)
		for n := range 20 {
			if h.stopped.Load() {
				return
			}
			next := prev.Clone()
			next.TrimScroll(next.ScrollTotal())
			for range per {
				next.PushScroll(vt.ScrollLine{Line: line, Text: text, Width: 80})
				line++
			}
			h.send(ssp.Instruction{OldNum: uint64(n), NewNum: uint64(n + 1), ThrowawayNum: uint64(n), Diff: next.Diff(prev)})
			prev = next
			time.Sleep(50 * time.Millisecond)
		}
	}},
	{"bombs", "zlib bombs, maximal fragment sets, unknown bases", true, bombs},
}

// screenStates sends state 1, the largest screen, and returns it.
func screenStates(h *hostile) *statesync.Complete {
	base := statesync.NewComplete(80, 24)
	one := base.Clone()
	one.Resize(vt.MaxCols, vt.MaxRows)
	h.send(ssp.Instruction{OldNum: 0, NewNum: 1, Diff: one.Diff(base)})
	time.Sleep(50 * time.Millisecond)
	return one
}

// bombs are the attacks on the transport itself, either side.
func bombs(h *hostile) {
	bomb := e2etest.Deflate(make([]byte, 64<<20))
	for range 3 {
		for _, d := range h.f.Compressed(bomb) {
			h.pc.WriteToUDP(d, h.to)
		}
		time.Sleep(10 * time.Millisecond)
	}
	id, body := h.f.NextID(), make([]byte, 1000)
	for n := range ssp.MaxFragmentNum + 1 {
		h.pc.WriteToUDP(h.f.Fragment(ssp.Fragment{ID: id, Num: uint16(n), Final: n == ssp.MaxFragmentNum, Body: body}), h.to)
		if n%64 == 63 {
			time.Sleep(time.Millisecond)
		}
	}
	for i := range 5000 {
		h.send(ssp.Instruction{OldNum: 1<<40 + uint64(i), NewNum: 1<<41 + uint64(i), Diff: []byte{1, 2, 3}})
	}
}

// serverAttacks are what a compromised client does to a server.
var serverAttacks = []struct {
	key, name string
	mosh      bool // stock mosh-server takes it too
	run       func(h *hostile)
}{
	{"states", "states: 30 of 4 MiB of keys, each diffed from an old one", true, func(h *hostile) {
		one := userStates(h)
		keys := make([]byte, ssp.MaxInflated-4<<10) // an instruction inflates to at most MaxInflated
		for i := range 30 {
			if h.stopped.Load() {
				return
			}
			next := one.Clone()
			keys[0] = byte(i)
			next.PushKeys(keys)
			h.send(ssp.Instruction{OldNum: 1, NewNum: uint64(i + 2), Diff: next.Diff(one)})
			time.Sleep(50 * time.Millisecond)
		}
	}},
	{"resize", "resize storm: 300 sizes, every third 1024x512", true, func(h *hostile) {
		one := userStates(h)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 300 {
			if h.stopped.Load() {
				return
			}
			next := one.Clone()
			if i%3 == 0 {
				next.PushResize(vt.MaxCols, vt.MaxRows)
			} else {
				next.PushResize(1+rng.IntN(4000), 1+rng.IntN(4000))
			}
			h.send(ssp.Instruction{OldNum: 1, NewNum: uint64(i + 2), Diff: next.Diff(one)})
			time.Sleep(5 * time.Millisecond)
		}
	}},
	{"opens", "channel opens: 20 states of 50,000 the server refuses, never acknowledged", false, func(h *hostile) {
		const service = "agent" // a server offers it only to its own program
		per := statesync.MaxChannelBacklog/(statesync.ChannelMessageCost+len(service)) - 1000
		prev, id, num := statesync.NewUserStream(), uint32(2), uint64(0)
		send := func(next *statesync.UserStream) {
			h.send(ssp.Instruction{OldNum: num, NewNum: num + 1, ThrowawayNum: num, Diff: next.Diff(prev)})
			prev, num = next, num+1
		}
		for range 20 {
			next := prev.Clone()
			next.Subtract(next)
			for range per {
				next.PushChannel(statesync.ChannelMsg{ID: id, Kind: statesync.ChannelOpen, Data: []byte(service)})
				id += 2
			}
			send(next)
			time.Sleep(200 * time.Millisecond)
			next = prev.Clone()
			next.Subtract(next)
			next.PushResize(80, 24) // a state the server subtracts the opens with
			send(next)
			time.Sleep(50 * time.Millisecond)
		}
	}},
	{"bombs", "zlib bombs, maximal fragment sets, unknown bases", true, bombs},
	{"stream", "the stream: 4 MiB never deliverable, runs of one byte, acks of what was never sent", false, streamFlood},
}

// streamFlood attacks a server's stream (docs/protocol.md 12.5): every
// byte of its window but the first, in full packets and again in runs
// of one byte, so that it holds the most it can and can deliver none,
// with acknowledgements of packets it never sent.
func streamFlood(h *hostile) {
	h.caps |= capStream
	userStates(h)
	pn := uint64(0)
	aux := func(p stream.Packet) {
		p.Number = pn
		pn++
		b, _ := p.AppendBinary(nil)
		pt, _ := (&ssp.Packet{Timestamp: ssp.NoTimestamp, TimestampReply: ssp.NoTimestamp, Payload: append([]byte{0x80, 0}, b...)}).AppendBinary(nil)
		h.pc.WriteToUDP(h.f.Plaintext(pt), h.to)
		if pn%8 == 7 {
			time.Sleep(500 * time.Microsecond)
		}
	}
	chunk := make([]byte, 1100)
	for off := uint64(1); off+uint64(len(chunk)) <= stream.Window && !h.stopped.Load(); off += uint64(len(chunk)) {
		aux(stream.Packet{HasData: true, Data: stream.Data{Offset: off, Bytes: chunk},
			HasAck: true, Ack: stream.Ack{Largest: 1 << 40, Ranges: []stream.Span{{Lo: 0, Hi: 1 << 40}}}})
	}
	for off := uint64(1); off < 2*8192 && !h.stopped.Load(); off += 2 {
		aux(stream.Packet{HasData: true, Data: stream.Data{Offset: off, Bytes: chunk[:1]}})
	}
}

// userStates sends state 1, one key, and returns it.
func userStates(h *hostile) *statesync.UserStream {
	one := statesync.NewUserStream()
	one.PushKeys([]byte("x"))
	h.send(ssp.Instruction{OldNum: 0, NewNum: 1, Diff: one.Diff(statesync.NewUserStream())})
	time.Sleep(50 * time.Millisecond)
	return one
}

// rssResult is one attack's figures for one victim.
type rssResult struct {
	hwm    int     // peak resident set, KiB
	cpu    float64 // CPU seconds over the attack
	capped bool    // stopped at moshCap
	ended  bool    // a stock Mosh process the attack ended
}

func (r rssResult) String() string {
	switch {
	case r.capped:
		return fmt.Sprintf("> %d MiB (stopped)", moshCap>>10)
	case r.ended:
		return "exited under the attack"
	}
	return fmt.Sprintf("%d MiB, %.1f s CPU", r.hwm>>10, r.cpu)
}

// attackClient runs attack against a client started by argv (given the
// attacker's UDP port), and returns its figures.
func attackClient(t *testing.T, argv func(port int) []string, gosh bool, attack func(*hostile)) rssResult {
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	pc.SetReadBuffer(4 << 20)
	env := append([]string{"MOSH_KEY=" + key.Base64()}, localeEnv...)
	tm := e2etest.StartTerm(t, 80, 24, env, argv(pc.LocalAddr().(*net.UDPAddr).Port)...)
	defer tm.Close()
	buf := make([]byte, 4096)
	pc.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, client, err := pc.ReadFromUDP(buf)
	if err != nil {
		t.Fatalf("no datagram from the client: %v", err)
	}
	pc.SetReadDeadline(time.Time{})
	go func() { // read what the client sends, as a server would
		for {
			if _, _, err := pc.ReadFromUDP(buf); err != nil {
				return
			}
		}
	}()
	f, err := e2etest.NewForger(key, sspcrypto.ToClient)
	if err != nil {
		t.Fatal(err)
	}
	h := &hostile{pc: pc, to: client, f: f, pid: tm.PID(), why: func() string {
		return fmt.Sprintf("%v; screen:\n%s", tm.Wait(time.Second), strings.Join(tm.Screen(), "\n"))
	}}
	if gosh {
		h.caps = capChannels | capScrollback
	}
	return runAttack(t, h, gosh, attack)
}

// attackServer runs attack against a server started by argv.
func attackServer(t *testing.T, argv []string, gosh bool, attack func(*hostile)) rssResult {
	s := e2etest.StartServer(t, localeEnv, argv...)
	key, err := sspcrypto.ParseKey(s.Key)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, _, err := pc.ReadFromUDP(buf); err != nil {
				return
			}
		}
	}()
	f, err := e2etest.NewForger(key, sspcrypto.ToServer)
	if err != nil {
		t.Fatal(err)
	}
	h := &hostile{pc: pc, to: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: int(s.Port)}, f: f, pid: s.PID}
	if gosh {
		h.caps = capChannels | capScrollback
	}
	defer syscall.Kill(s.PID, syscall.SIGKILL)
	return runAttack(t, h, gosh, attack)
}

// runAttack runs attack on h's victim and reads its figures a second
// after (what it still does then counts).
func runAttack(t *testing.T, h *hostile, gosh bool, attack func(*hostile)) rssResult {
	done := make(chan struct{})
	defer close(done)
	if !gosh {
		h.watch(moshCap, done)
	}
	cpu0 := procCPU(t, h.pid)
	attack(h)
	time.Sleep(time.Second)
	if h.stopped.Load() {
		return rssResult{capped: true}
	}
	_, hwm := procMem(h.pid)
	if hwm == 0 && !gosh {
		return rssResult{ended: true}
	}
	if hwm == 0 {
		why := ""
		if h.why != nil {
			why = h.why()
		}
		t.Fatalf("the victim (pid %d) is gone: %s", h.pid, why)
	}
	return rssResult{hwm: hwm, cpu: procCPU(t, h.pid) - cpu0}
}

// TestHostilePeakRSS: under each attack, the gosh client and the gosh
// server peak under hostileRSSCeiling; the table it logs has stock Mosh
// beside (GOSH_HOSTILE_MOSH=1 runs it: it can take a gigabyte a run).
func TestHostilePeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the real binaries for a minute")
	}
	withMosh := os.Getenv("GOSH_HOSTILE_MOSH") == "1"
	var (
		mu    sync.Mutex
		table []string
	)
	row := func(t *testing.T, side, attack string, g rssResult, m *rssResult) {
		stock := "—"
		if m != nil {
			stock = m.String()
		}
		mu.Lock()
		table = append(table, fmt.Sprintf("| %s | %s | %d MiB | %s | %s |", side, attack, hostileRSSCeiling>>10, g, stock))
		mu.Unlock()
		if g.hwm > hostileRSSCeiling {
			t.Errorf("%s, %s: peak RSS %d MiB, over %d MiB", side, attack, g.hwm>>10, hostileRSSCeiling>>10)
		}
	}
	// The attacks run in parallel (go test's -parallel at a time): each
	// process's peak is its own (VmHWM), whatever runs beside it.
	t.Run("attacks", func(t *testing.T) { hostilePeakRSSAttacks(t, withMosh, row) })
	sort.Strings(table)
	t.Logf("\n| side | attack | bound | gosh peak RSS, CPU | stock Mosh |\n|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// hostilePeakRSSAttacks runs TestHostilePeakRSS's attacks, each a
// parallel subtest, and reports each through row.
func hostilePeakRSSAttacks(t *testing.T, withMosh bool, row func(t *testing.T, side, attack string, g rssResult, m *rssResult)) {
	for _, a := range clientAttacks {
		t.Run("client/"+a.key, func(t *testing.T) {
			t.Parallel()
			g := attackClient(t, func(port int) []string {
				return []string{goshBin, "connect", "--direct", "127.0.0.1", strconv.Itoa(port)}
			}, true, a.run)
			var m *rssResult
			if withMosh && a.mosh {
				e2etest.RequireCommands(t, "mosh-client")
				r := attackClient(t, func(port int) []string { return []string{"mosh-client", "127.0.0.1", strconv.Itoa(port)} }, false, a.run)
				m = &r
			}
			row(t, "client", a.name, g, m)
		})
	}
	server := func(bin string) []string {
		return append([]string{bin, "server", "new", "-i", "127.0.0.1", "-p", "0", "--"}, shellArgv...)
	}
	for _, a := range serverAttacks {
		t.Run("server/"+a.key, func(t *testing.T) {
			t.Parallel()
			g := attackServer(t, server(goshBin), true, a.run)
			var m *rssResult
			if withMosh && a.mosh {
				e2etest.RequireCommands(t, "mosh-server")
				argv := server("mosh-server")
				argv = append(argv[:1], argv[2:]...) // mosh-server new, not "server new"
				r := attackServer(t, argv, false, a.run)
				m = &r
			}
			row(t, "server", a.name, g, m)
		})
	}
}

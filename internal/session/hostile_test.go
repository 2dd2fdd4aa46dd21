//go:build !race

// These tests allocate hundreds of megabytes or push tens of thousands of
// datagrams through the code: the race detector would make them take
// minutes and adds nothing to them (the loops' concurrency is raced by
// the other tests), so they build without it, and make test runs them in
// a pass of their own (the hostile target).

package session_test

// Hostile peers against the real loops: a compromised server (with the
// key) against the client, a compromised client against the server, and
// an attacker without the key flooding both. Each must leave the loop
// alive, its heap under hostileHeapCeiling, and the session working
// afterwards where the attacker allows it.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// hostileHeapCeiling bounds what a loop may hold under any attack.
const hostileHeapCeiling = 64 << 20

// checkHeapCeiling logs how much the heap grew since before and fails the
// test if that is over hostileHeapCeiling.
func checkHeapCeiling(t *testing.T, who string, before uint64) {
	t.Helper()
	grown := heapNow() - min(before, heapNow())
	t.Logf("the %s's heap grew by %d MiB", who, grown>>20)
	if grown > hostileHeapCeiling {
		t.Errorf("the %s's heap grew by %d MiB under attack, want under %d MiB", who, grown>>20, hostileHeapCeiling>>20)
	}
}

// attacker sends forged datagrams (e2etest.Forger) from its own socket.
type attacker struct {
	*e2etest.Forger
	t  *testing.T
	pc *ssptest.PacketConn

	mu sync.Mutex // guards to
	to netip.AddrPort
}

func newAttacker(t *testing.T, pc *ssptest.PacketConn, key sspcrypto.Key, dir sspcrypto.Direction, to netip.AddrPort) *attacker {
	f, err := e2etest.NewForger(key, dir)
	if err != nil {
		t.Fatal(err)
	}
	return &attacker{Forger: f, t: t, pc: pc, to: to}
}

// follow makes the attacker answer wherever its peer last wrote from,
// reading its socket until it is closed.
func (a *attacker) follow() {
	go func() {
		buf := make([]byte, 4096)
		for {
			_, from, err := a.pc.ReadFrom(buf)
			if err != nil {
				return
			}
			a.mu.Lock()
			a.to = from.(*net.UDPAddr).AddrPort()
			a.mu.Unlock()
		}
	}()
}

// send sends datagrams.
func (a *attacker) send(ds ...[]byte) {
	a.mu.Lock()
	to := a.to
	a.mu.Unlock()
	for _, d := range ds {
		a.pc.WriteTo(d, net.UDPAddrFromAddrPort(to))
	}
}

// instruction sends an instruction.
func (a *attacker) instruction(in ssp.Instruction) { a.send(a.Instruction(in)...) }

// compressed sends a compressed instruction.
func (a *attacker) compressed(z []byte) { a.send(a.Compressed(z)...) }

// paced lets the loops take what was sent: an attacker at line rate still
// goes through the socket buffers, which drop what the reader cannot take.
func paced(i int) {
	if i%64 == 63 {
		time.Sleep(time.Millisecond)
	}
}

// common attacks the attacker can make with the key, whichever side it is.
func (a *attacker) keyAttacks(t *testing.T) {
	t.Helper()
	// Zlib bombs: 64 MiB of zeros deflates to about 64 KiB.
	bomb := e2etest.Deflate(make([]byte, 64<<20))
	for range 3 {
		a.compressed(bomb)
		time.Sleep(10 * time.Millisecond)
	}
	// The largest fragment sets: 32768 fragments of 1000 bytes.
	id := a.NextID()
	body := make([]byte, 1000)
	for n := range ssp.MaxFragmentNum + 1 {
		a.send(a.Fragment(ssp.Fragment{ID: id, Num: uint16(n), Final: n == ssp.MaxFragmentNum, Body: body}))
		paced(n)
	}
	// Diffs against unknown bases, and garbage diffs.
	for i := range 5000 {
		a.instruction(ssp.Instruction{OldNum: 1<<40 + uint64(i), NewNum: 1<<41 + uint64(i), Diff: []byte{1, 2, 3}})
		paced(i)
	}
}

// TestHostileServer: a compromised server (it has the key: it is the
// server) against the real client loop. It resizes the client to the
// largest screen, sends states diffed from an old one, resize storms,
// the largest OSC payloads, zlib bombs, maximal fragment sets and diffs
// against unknown bases. The client stays within its heap ceiling, keeps
// painting, and still shows what the server says last.
func TestHostileServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.startClient(session.ClientConfig{})
		a := newAttacker(t, r.srvPC, r.key, sspcrypto.ToClient, r.cliConn.LocalAddr())
		a.follow()
		base := statesync.NewComplete(80, 24)
		one := base.Clone()
		one.Resize(vt.MaxCols, vt.MaxRows)
		time.Sleep(100 * time.Millisecond)
		before := heapNow()
		a.instruction(ssp.Instruction{OldNum: 0, NewNum: 1, Diff: one.Diff(base)})
		time.Sleep(50 * time.Millisecond)
		num := uint64(2)
		// States diffed from state 1, each a full-screen change.
		for i := range 12 {
			next := one.Clone()
			next.Feed([]byte(fmt.Sprintf("\x1b[4%dm\x1b[2J", i%8)), nil)
			a.instruction(ssp.Instruction{OldNum: 1, NewNum: num, Diff: next.Diff(one)})
			num++
			time.Sleep(20 * time.Millisecond)
		}
		// A resize storm and the largest OSC payloads, each diffed from 1.
		osc := "\x1b]52;c;" + strings.Repeat("QUFB", 256<<10) + "\x07\x1b]0;" + strings.Repeat("t", 1<<20) + "\x07"
		for i := range 100 {
			next := one.Clone()
			next.Resize(1+i*11%vt.MaxCols, 1+i*7%vt.MaxRows)
			if i%25 == 0 {
				next.Feed([]byte(osc), nil)
			}
			a.instruction(ssp.Instruction{OldNum: 1, NewNum: num, Diff: next.Diff(one)})
			num++
			paced(i)
		}
		a.keyAttacks(t)
		time.Sleep(time.Second)
		checkHeapCeiling(t, "client", before)
		// The client is alive and shows the server's newest state.
		last := statesync.NewComplete(80, 24)
		last.Feed([]byte("survived"), nil)
		a.instruction(ssp.Instruction{OldNum: 1, NewNum: num, Diff: last.Diff(one)})
		r.waitScreen("survived", 5*time.Second)
		select {
		case err := <-r.cliDone:
			t.Fatalf("the client ended under attack: %v", err)
		default:
		}
	})
}

// TestHostileClient: a compromised client against the real server loop: a
// resize storm up to the largest screen, states of megabytes of keys
// diffed from an old one, zlib bombs, maximal fragment sets and diffs
// against unknown bases. The server stays within its heap ceiling and
// still runs what the client types last.
func TestHostileClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.startServer(session.ServerConfig{})
		a := newAttacker(t, r.cliPC, r.key, sspcrypto.ToServer, serverAddr)
		a.follow()
		time.Sleep(100 * time.Millisecond)
		before := heapNow()

		base := statesync.NewUserStream()
		one := base.Clone()
		one.PushKeys([]byte("x"))
		a.instruction(ssp.Instruction{OldNum: 0, NewNum: 1, Diff: one.Diff(base)})
		num := uint64(2)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 300 { // a resize storm, many to the largest size
			next := one.Clone()
			if i%3 == 0 {
				next.PushResize(vt.MaxCols, vt.MaxRows)
			} else {
				next.PushResize(1+rng.IntN(4000), 1+rng.IntN(4000))
			}
			a.instruction(ssp.Instruction{OldNum: 1, NewNum: num, Diff: next.Diff(one)})
			num++
			paced(i)
		}
		keys := make([]byte, 4<<20)
		for i := range 30 { // 4 MiB of keys each, all diffed from state 1
			next := one.Clone()
			keys[0] = byte(i)
			next.PushKeys(keys)
			a.instruction(ssp.Instruction{OldNum: 1, NewNum: num, Diff: next.Diff(one)})
			num++
			time.Sleep(10 * time.Millisecond)
		}
		a.keyAttacks(t)
		time.Sleep(time.Second)
		checkHeapCeiling(t, "server", before)
		select {
		case err := <-r.srvDone:
			t.Fatalf("the server ended under attack: %v", err)
		default:
		}
		// It still runs what the client types.
		last := one.Clone()
		last.PushKeys([]byte("\recho survived\r"))
		a.instruction(ssp.Instruction{OldNum: 1, NewNum: num, Diff: last.Diff(one)})
		r.waitFor("the shell to run the last command", 5*time.Second, func() bool {
			return bytes.Contains(r.shell.Received(), []byte("echo survived\r"))
		})
	})
}

// TestFloodWithoutKey: an attacker without the key floods both ends with
// garbage and with datagrams sealed under another key, while the user
// types: nothing changes for the session, and no heap is held.
func TestFloodWithoutKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.start()
		pc, err := r.net.Listen(netip.MustParseAddrPort("203.0.113.66:4444"))
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		other, _ := sspcrypto.NewKey(nil)
		toServer := newAttacker(t, pc, other, sspcrypto.ToServer, serverAddr)
		toClient := newAttacker(t, pc, other, sspcrypto.ToClient, r.cliConn.LocalAddr())
		before := heapNow()
		rng := rand.New(rand.NewPCG(3, 3))
		junk := make([]byte, 1400)
		for i := range 10000 {
			for j := range junk {
				junk[j] = byte(rng.Uint32())
			}
			toServer.send(junk[:rng.IntN(len(junk))])
			toClient.send(junk[:rng.IntN(len(junk))])
			toServer.instruction(ssp.Instruction{OldNum: 0, NewNum: 1, Diff: []byte("x")})
			toClient.instruction(ssp.Instruction{OldNum: 0, NewNum: 1})
			if i%500 == 0 {
				r.term.Type(fmt.Sprintf("echo flood-%d\r", i/500))
			}
			paced(i)
		}
		r.waitScreen("flood-19", 5*time.Second)
		for i := range 20 {
			if cmd := fmt.Sprintf("echo flood-%d\r", i); !bytes.Contains(r.shell.Received(), []byte(cmd)) {
				t.Errorf("the shell never received %q", cmd)
			}
		}
		grown := heapNow() - min(before, heapNow())
		t.Logf("heap grew by %d KiB over 40000 forged datagrams", grown>>10)
		if grown > 4<<20 {
			t.Errorf("the heap grew by %d MiB under a flood without the key", grown>>20)
		}
	})
}

// hostileOpens is how many channel opens (of hostileService) a hostile
// peer puts in each diff: about as many as a state takes
// (statesync.MaxChannelBacklog).
const (
	hostileService = "tcp:127.0.0.1:22"
	hostileOpens   = statesync.MaxChannelBacklog/(statesync.ChannelMessageCost+len(hostileService)) - 1000
)

// TestHostileServerChannelOpens: a compromised server opens channels the
// client refuses, tens of thousands a diff, and never acknowledges the
// client's states: the client's state, which would hold a Close for each,
// stays bounded, and the client keeps working.
func TestHostileServerChannelOpens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.startClient(session.ClientConfig{})
		a := newAttacker(t, r.srvPC, r.key, sspcrypto.ToClient, r.cliConn.LocalAddr())
		a.follow()
		time.Sleep(100 * time.Millisecond)
		before := heapNow()
		caps := uint64(session.CapChannels)
		prev, id := statesync.NewComplete(80, 24), uint32(1)
		for n := range 20 {
			next := prev.Clone()
			next.TrimChannels(next.ChannelTotal()) // the client took them
			for range hostileOpens {
				next.PushChannel(statesync.ChannelMsg{ID: id, Kind: statesync.ChannelOpen, Data: []byte(hostileService)})
				id += 2
			}
			a.instruction(ssp.Instruction{OldNum: uint64(n), NewNum: uint64(n + 1), ThrowawayNum: uint64(n), Diff: next.Diff(prev), GoshCaps: caps})
			prev = next
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(time.Second)
		checkHeapCeiling(t, "client", before)
		last := prev.Clone()
		last.Feed([]byte("survived"), nil)
		a.instruction(ssp.Instruction{OldNum: 20, NewNum: 21, ThrowawayNum: 20, Diff: last.Diff(prev), GoshCaps: caps})
		r.waitScreen("survived", 5*time.Second)
	})
}

// TestHostileClientChannelOpens: the same from a compromised client
// against the server, which refuses every open (it forwards nothing).
func TestHostileClientChannelOpens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.startServer(session.ServerConfig{})
		a := newAttacker(t, r.cliPC, r.key, sspcrypto.ToServer, serverAddr)
		a.follow()
		time.Sleep(100 * time.Millisecond)
		before := heapNow()
		caps := uint64(session.CapChannels)
		prev, id, num := statesync.NewUserStream(), uint32(2), uint64(0)
		send := func(next *statesync.UserStream) {
			a.instruction(ssp.Instruction{OldNum: num, NewNum: num + 1, ThrowawayNum: num, Diff: next.Diff(prev), GoshCaps: caps})
			prev, num = next, num+1
		}
		for range 20 {
			// A state of opens, then one with a resize alone, from which
			// the server drops what it took (its receiver subtracts the
			// state the client threw the others away for).
			next := prev.Clone()
			next.Subtract(next)
			for range hostileOpens {
				next.PushChannel(statesync.ChannelMsg{ID: id, Kind: statesync.ChannelOpen, Data: []byte(hostileService)})
				id += 2
			}
			send(next)
			time.Sleep(100 * time.Millisecond)
			next = prev.Clone()
			next.Subtract(next)
			next.PushResize(80, 24)
			send(next)
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Second)
		checkHeapCeiling(t, "server", before)
		last := prev.Clone()
		last.Subtract(last)
		last.PushKeys([]byte("\recho survived\r"))
		send(last)
		r.waitFor("the shell to run the last command", 5*time.Second, func() bool {
			return bytes.Contains(r.shell.Received(), []byte("echo survived\r"))
		})
	})
}

// TestHostileServerScrollback: a compromised server sends as many
// scrollback lines as each state takes, state after state, faster than
// the terminal takes them: the client holds at most its queue's bound,
// tells the user how many lines it skipped, and keeps working.
func TestHostileServerScrollback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.startClient(session.ClientConfig{})
		a := newAttacker(t, r.srvPC, r.key, sspcrypto.ToClient, r.cliConn.LocalAddr())
		a.follow()
		time.Sleep(100 * time.Millisecond)
		before := heapNow()
		caps := uint64(session.CapScrollback)
		text := []byte(strings.Repeat("x", 40))
		per := statesync.MaxScrollBacklog/(statesync.ScrollLineCost+len(text)) - 100
		prev, line := statesync.NewComplete(80, 24), uint64(0)
		for n := range 20 {
			next := prev.Clone()
			next.TrimScroll(next.ScrollTotal())
			for range per {
				next.PushScroll(vt.ScrollLine{Line: line, Text: text, Width: 80})
				line++
			}
			a.instruction(ssp.Instruction{OldNum: uint64(n), NewNum: uint64(n + 1), ThrowawayNum: uint64(n), Diff: next.Diff(prev), GoshCaps: caps})
			prev = next
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		checkHeapCeiling(t, "client", before)
		last := prev.Clone()
		last.TrimScroll(last.ScrollTotal())
		last.Feed([]byte("survived"), nil)
		a.instruction(ssp.Instruction{OldNum: 20, NewNum: 21, ThrowawayNum: 20, Diff: last.Diff(prev), GoshCaps: caps})
		r.waitScreen("survived", time.Minute)
		r.waitFor("a marker of skipped lines", time.Minute, func() bool {
			return strings.Contains(strings.Join(r.term.Scrollback(), "\n"), "lines skipped]")
		})
	})
}

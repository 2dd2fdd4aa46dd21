//go:build !race

// These tests allocate hundreds of megabytes or push tens of thousands of
// datagrams through the code: the race detector would make them take
// minutes and adds nothing to them (the loops' concurrency is raced by
// the other tests), so they build without it, and make test runs them in
// a pass of their own (the hostile target).

package ssp_test

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// heapCeiling is what a client may hold, whatever a hostile server with
// the key sends it.
const heapCeiling = 64 << 20

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHostileServerMemory: a server with the key resizes the client to the
// largest screen, then sends states 2, 3, 4 … each diffed from state 1 with
// a tiny full-screen change, and never raises throwaway_num, so that a
// receiver bounded only by the number of states would hold 16 MiB per
// state. The client's heap must stay under heapCeiling, and it must still
// follow the newest state.
func TestHostileServerMemory(t *testing.T) {
	key, _ := sspcrypto.NewKey(fixedReader(11))
	server := netip.MustParseAddrPort("198.51.100.1:60001")
	client, err := ssp.NewTransport(ssp.Config{Key: key, Remote: server}, statesync.NewUserStream(), statesync.NewComplete(80, 24), simEpoch)
	if err != nil {
		t.Fatal(err)
	}
	f := newForger(t, key, sspcrypto.ToClient, 0)
	base := statesync.NewComplete(80, 24)
	one := base.Clone()
	one.Resize(vt.MaxCols, vt.MaxRows)
	send := func(in ssp.Instruction) {
		in.ProtocolVersion = ssp.ProtocolVersion
		for _, d := range f.instruction(in) {
			if err := client.Receive(simEpoch, d, server); err != nil {
				t.Fatalf("state %d: %v", in.NewNum, err)
			}
		}
	}
	send(ssp.Instruction{OldNum: 0, NewNum: 1, Diff: one.Diff(base)})
	before := heapInUse()
	const states = 24
	var last *statesync.Complete
	for n := uint64(2); n < states; n++ {
		next := one.Clone()
		next.Feed([]byte(fmt.Sprintf("\x1b[4%dm\x1b[2J", n%8)), nil)
		send(ssp.Instruction{OldNum: 1, NewNum: n, Diff: next.Diff(one)})
		last = next
	}
	grown := heapInUse() - min(before, heapInUse())
	t.Logf("heap grew by %d MiB over %d states of %d×%d", grown>>20, states-2, vt.MaxCols, vt.MaxRows)
	if grown > heapCeiling {
		t.Errorf("the client's heap grew by %d MiB, want under %d MiB", grown>>20, heapCeiling>>20)
	}
	if client.RemoteNum() != states-1 || !client.Remote().Equal(last) {
		t.Errorf("the client does not show the newest state (%d, want %d)", client.RemoteNum(), states-1)
	}
	runtime.KeepAlive(client)
}

// TestBudgetBenignConvergence: an honest server with the largest screen,
// redrawn whole every frame, over a path that loses half of the client's
// acks: the client's receiver evicts states to stay in its budget, and
// the session still converges once the output stops.
func TestBudgetBenignConvergence(t *testing.T) {
	t.Parallel()
	key, _ := sspcrypto.NewKey(fixedReader(12))
	srvAddr := netip.MustParseAddrPort("198.51.100.1:60001")
	cliAddr := netip.MustParseAddrPort("192.0.2.10:50000")
	now := simEpoch
	client, err := ssp.NewTransport(ssp.Config{Key: key, Remote: srvAddr}, statesync.NewUserStream(), statesync.NewComplete(80, 24), now)
	if err != nil {
		t.Fatal(err)
	}
	server, err := ssp.NewTransport(ssp.Config{Key: key, Server: true}, statesync.NewComplete(80, 24), statesync.NewUserStream(), now)
	if err != nil {
		t.Fatal(err)
	}
	client.Current().PushResize(vt.MaxCols, vt.MaxRows)
	lose := 0
	step := func() {
		out, _ := client.Tick(now)
		for _, d := range out {
			if lose++; lose%2 == 0 {
				continue // half of what the client sends is lost
			}
			server.Receive(now, d, cliAddr)
		}
		out, _ = server.Tick(now)
		for _, d := range out {
			client.Receive(now, d, srvAddr)
		}
		now = now.Add(10 * time.Millisecond)
	}
	for range 50 {
		step()
	}
	server.Current().Resize(vt.MaxCols, vt.MaxRows)
	for i := range 60 { // 0.6 s of full-screen redraws
		server.Current().Feed([]byte(fmt.Sprintf("\x1b[4%dm\x1b[2J\x1b[Hframe %d", i%8, i)), nil)
		step()
	}
	for range 500 { // 5 s of quiet
		step()
		if client.Remote().Equal(server.Current()) {
			break
		}
	}
	if !client.Remote().Equal(server.Current()) {
		t.Fatalf("no convergence; client stats %+v", client.Stats())
	}
	if n := client.Stats().StatesEvicted; n == 0 {
		t.Error("the client evicted no state: the test did not exercise the budget")
	} else {
		t.Logf("client evicted %d states", n)
	}
}

// TestHostileClientMemory: the same against a server, whose receiver holds
// the client's user input: a client with the key sends a state with a
// megabyte of keystrokes, then states 3, 4, 5 … each diffed from it with
// one more keystroke (each of which holds its own megabyte), and never
// raises throwaway_num.
func TestHostileClientMemory(t *testing.T) {
	key, _ := sspcrypto.NewKey(fixedReader(13))
	from := netip.MustParseAddrPort("192.0.2.10:50000")
	server, err := ssp.NewTransport(ssp.Config{Key: key, Server: true}, statesync.NewComplete(80, 24), statesync.NewUserStream(), simEpoch)
	if err != nil {
		t.Fatal(err)
	}
	f := newForger(t, key, sspcrypto.ToServer, 0)
	send := func(in ssp.Instruction) {
		in.ProtocolVersion = ssp.ProtocolVersion
		for _, d := range f.instruction(in) {
			if err := server.Receive(simEpoch, d, from); err != nil {
				t.Fatalf("state %d: %v", in.NewNum, err)
			}
		}
	}
	base := statesync.NewUserStream()
	big := base.Clone()
	big.PushKeys(make([]byte, 1<<20))
	send(ssp.Instruction{OldNum: 0, NewNum: 1, Diff: big.Diff(base)})
	before := heapInUse()
	const states = 120
	for n := uint64(2); n < states; n++ {
		next := big.Clone()
		next.PushKeys([]byte{byte(n)})
		send(ssp.Instruction{OldNum: 1, NewNum: n, Diff: next.Diff(big)})
	}
	grown := heapInUse() - min(before, heapInUse())
	t.Logf("heap grew by %d MiB over %d states of 1 MiB of keys", grown>>20, states-2)
	if grown > heapCeiling {
		t.Errorf("the server's heap grew by %d MiB, want under %d MiB", grown>>20, heapCeiling>>20)
	}
	if server.RemoteNum() != states-1 {
		t.Errorf("the server's newest client state is %d, want %d", server.RemoteNum(), states-1)
	}
	runtime.KeepAlive(server)
}

// TestHostileClientSenderMemory: a client with the key resizes the server
// to the largest screen and never acknowledges anything, while the program
// redraws the whole screen every frame: the server's sent states must stay
// in budget too.
func TestHostileClientSenderMemory(t *testing.T) {
	key, _ := sspcrypto.NewKey(fixedReader(14))
	from := netip.MustParseAddrPort("192.0.2.10:50000")
	now := simEpoch
	server, err := ssp.NewTransport(ssp.Config{Key: key, Server: true}, statesync.NewComplete(vt.MaxCols, vt.MaxRows), statesync.NewUserStream(), now)
	if err != nil {
		t.Fatal(err)
	}
	f := newForger(t, key, sspcrypto.ToServer, 0)
	for _, d := range f.instruction(ssp.Instruction{ProtocolVersion: ssp.ProtocolVersion, OldNum: 0, NewNum: 1}) {
		if err := server.Receive(now, d, from); err != nil {
			t.Fatal(err)
		}
	}
	before := heapInUse()
	sent := 0
	for i := 0; sent < 40; i++ {
		server.Current().Feed([]byte(fmt.Sprintf("\x1b[4%dm\x1b[2J", i%8)), nil)
		out, err := server.Tick(now)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 0 {
			sent++
		}
		now = now.Add(50 * time.Millisecond)
	}
	grown := heapInUse() - min(before, heapInUse())
	t.Logf("heap grew by %d MiB over %d unacknowledged frames of %d×%d", grown>>20, sent, vt.MaxCols, vt.MaxRows)
	if grown > heapCeiling {
		t.Errorf("the server's heap grew by %d MiB, want under %d MiB", grown>>20, heapCeiling>>20)
	}
	runtime.KeepAlive(server)
}

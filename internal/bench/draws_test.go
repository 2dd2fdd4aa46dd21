//go:build unix || windows

package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
)

// TestScheduleSameSeeds: run r of every transport uses the same seed,
// seed+r, and the transports take turns.
func TestScheduleSameSeeds(t *testing.T) {
	got := schedule(3, 10, 2)
	want := []turn{{0, 0, 10}, {1, 0, 10}, {2, 0, 10}, {0, 1, 11}, {1, 1, 11}, {2, 1, 11}}
	if !slices.Equal(got, want) {
		t.Errorf("schedule(3, 10, 2) = %v, want %v", got, want)
	}
}

// drawsPackets is how many packets each direction carries in
// TestCarriersSameDraws.
const drawsPackets = 200

// TestCarriersSameDraws: for one seed, a TCP connection's links (ssh and
// openssh: lossLater's pipes, in gVisor) and the UDP relay (gosh and
// mosh) lose the same packets, both ways: every transport crosses the
// same loss and jitter draws. (The ssh links once drew the down direction
// from seed+1, the relay from a value derived from the seed.) It sets up
// both carriers and sends through each, both ways; hence its length.
func TestCarriersSameDraws(t *testing.T) {
	link := linkem.Custom(2*time.Millisecond, 3*time.Millisecond, 0.3, 0, 0)
	const seed = 7

	// The TCP carrier: its pipes, with their loss from the start.
	var links lossLater
	var cut atomic.Bool
	var mu sync.Mutex
	var tcpUp, tcpDown []int
	record := func(to *[]int) func([]byte) {
		return func(b []byte) {
			mu.Lock()
			*to = append(*to, int(binary.BigEndian.Uint32(b)))
			mu.Unlock()
		}
	}
	upLink, downLink := links.both(link, seed, &cut)
	up, down := upLink(record(&tcpUp)), downLink(record(&tcpDown))
	links.start()
	defer func() {
		for _, p := range links.pipes {
			p.Close()
		}
	}()
	for i := range drawsPackets {
		up.Send(binary.BigEndian.AppendUint32(nil, uint32(i)))
		down.Send(binary.BigEndian.AppendUint32(nil, uint32(i)))
	}

	// The UDP carrier: a client and a server on loopback through a relay.
	server, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	client, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	relay, err := linkem.NewUDPRelay(server.LocalAddr().(*net.UDPAddr).AddrPort(), link, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	udpUp, udpDown := make(chan []int, 1), make(chan []int, 1)
	go readIndices(server, udpUp)
	for i := range drawsPackets {
		if _, err := client.WriteToUDPAddrPort(binary.BigEndian.AppendUint32(nil, uint32(i)), relay.Addr()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Microsecond) // within the sockets' buffers
	}
	gotUp := <-udpUp
	go readIndices(client, udpDown)
	for i := range drawsPackets {
		if _, err := server.WriteToUDPAddrPort(binary.BigEndian.AppendUint32(nil, uint32(i)), relay.BackAddr()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Microsecond)
	}
	gotDown := <-udpDown

	mu.Lock()
	defer mu.Unlock()
	for _, d := range []struct {
		name     string
		tcp, udp []int
	}{{"up", tcpUp, gotUp}, {"down", tcpDown, gotDown}} {
		if len(d.tcp) == 0 || len(d.tcp) == drawsPackets {
			t.Errorf("%s: the TCP links delivered %d of %d packets; want some lost", d.name, len(d.tcp), drawsPackets)
		}
		if !slices.Equal(d.tcp, d.udp) {
			t.Errorf("%s: the TCP links and the UDP relay lost different packets with seed %d:\nTCP %v\nUDP %v", d.name, seed, d.tcp, d.udp)
		}
	}
}

// readIndices reads the indices of the datagrams arriving on c until none
// has come for half a second, and sends them in order of arrival.
func readIndices(c *net.UDPConn, out chan<- []int) {
	var got []int
	buf := make([]byte, 64)
	for {
		_ = c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := c.Read(buf)
		if err != nil {
			out <- got
			return
		}
		if n == 4 {
			got = append(got, int(binary.BigEndian.Uint32(buf)))
		}
	}
}

// TestRunSurvivesAFailedRun: a run that cannot start (a server that
// never showed its prompt) is reported and left out; the other runs and
// transports go on.
func TestRunSurvivesAFailedRun(t *testing.T) {
	dir := t.TempDir()
	tb := &typingBench{w: workload.Workload{Name: "w", Keys: []workload.Key{{Key: "x"}}},
		spec: remoteSpec{Dir: filepath.Join(dir, "run")}, progress: io.Discard}
	var seeds []uint64
	tb.starters = func(name string) (starter, error) {
		return func(_ context.Context, _ remoteSpec, _ linkem.Profile, seed uint64) (live, error) {
			seeds = append(seeds, seed)
			return nil, errors.New(name + " never showed its prompt")
		}, nil
	}
	results, err := tb.run(context.Background(), linkem.Custom(0, 0, 0, 0, 0), []string{"a", "b"}, 5, 2)
	if err != nil {
		t.Fatalf("run = %v, want the failures reported in the results", err)
	}
	if !slices.Equal(seeds, []uint64{5, 5, 6, 6}) {
		t.Errorf("the transports started with seeds %v, want 5, 5, 6, 6", seeds)
	}
	var out strings.Builder
	if err := writeResults(&out, "t", results); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a: failed, not in the figures: run 1 (seed 5): a never showed its prompt", "b: failed, not in the figures: run 2 (seed 6)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if rows := rowsOf(results); len(rows) != 0 {
		t.Errorf("rowsOf = %v, want no rows for transports without a run", rows)
	}
}

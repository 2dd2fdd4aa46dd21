//go:build unix || windows

package bench

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
)

// TestForwardQuick: gosh bench forward over the lan link with 256 KiB: both
// transports carry the data intact (Forward checks every byte) and time
// every round trip; the table names both.
func TestForwardQuick(t *testing.T) {
	t.Parallel() // real programs in real time, each in temp dirs of its own
	link, err := linkem.LookupProfile("lan")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Forward(ctx, link, 256<<10, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want ssh and gosh", len(res))
	}
	for _, r := range res {
		if r.MBps() <= 0 || len(r.RoundTrips) != forwardRounds || r.RoundTrip() <= 0 {
			t.Errorf("%s: %.3f MB/s, %d round trips (median %v)", r.Transport, r.MBps(), len(r.RoundTrips), r.RoundTrip())
		}
	}
	var b bytes.Buffer
	WriteForward(&b, "lan", res)
	if !strings.Contains(b.String(), "ssh -L") || !strings.Contains(b.String(), "gosh -L") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestForwardTypingQuick: gosh bench forward --typing over the lan link
// at 8 Mbit/s: both transports carry the data intact and time the
// typist's echoes during the transfer, and gosh's come sooner than SSH's
// (whose keys wait behind the transfer in its TCP connection: a second
// or so here, which also leaves room for few of them, so the test asks
// for one).
func TestForwardTypingQuick(t *testing.T) {
	t.Parallel() // real time, its own links and ports; compares the two transports in one run
	link, err := linkem.LookupProfile("lan")
	if err != nil {
		t.Fatal(err)
	}
	link.Up.Rate, link.Up.Queue = 8e6, 100 // 1 MB/s: the 4 MiB last long enough to type during
	link.Down = link.Up
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := ForwardTyping(ctx, link, 4<<20, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.MBps() <= 0 || len(r.Echoes) < 1 || r.Echo(0.5) <= 0 {
			t.Errorf("%s: %.3f MB/s, %d echoes (median %v)", r.Transport, r.MBps(), len(r.Echoes), r.Echo(0.5))
		}
	}
	if len(res) == 2 && res[1].Echo(0.5) >= res[0].Echo(0.5) {
		t.Errorf("echo median: %s %v, %s %v; want gosh's below ssh's", res[0].Transport, res[0].Echo(0.5), res[1].Transport, res[1].Echo(0.5))
	}
	var b bytes.Buffer
	WriteForwardTyping(&b, "lan", res)
	t.Logf("\n%s", b.String())
	if !strings.Contains(b.String(), "echo p95") || !strings.Contains(b.String(), "gosh -L") {
		t.Errorf("table:\n%s", b.String())
	}
}

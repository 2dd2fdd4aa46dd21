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

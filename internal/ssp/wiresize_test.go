package ssp_test

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// TestWireSizes measures the on-wire size (UDP payload) of the datagram
// carrying one keystroke (client to server) and of its echo (server to
// client: the character plus the echo ack), as the transports send them
// over a perfect link with a 20 ms RTT, and logs the distribution (chaff
// makes sizes vary by up to 16 bytes). These are the figures of the
// closing note.
func TestWireSizes(t *testing.T) {
	for _, caps := range []uint64{0, 1} {
		keys, echoes := wireSizes(t, caps, 300)
		slices.Sort(keys)
		slices.Sort(echoes)
		n := len(keys)
		t.Logf("gosh_caps=%d: keystroke datagram min %d, median %d, max %d bytes; echo datagram min %d, median %d, max %d bytes (UDP payload; +28 for IPv4 and UDP headers)",
			caps, keys[0], keys[n/2], keys[n-1], echoes[0], echoes[n/2], echoes[n-1])
		// A keystroke must fit easily in one small datagram: nonce, tag,
		// timestamps and fragment header are 38 bytes; the instruction,
		// with at most 16 bytes of chaff, stays well under 60.
		if keys[n-1] > 38+70 || echoes[n-1] > 38+80 {
			t.Errorf("datagrams larger than expected: keystroke max %d, echo max %d", keys[n-1], echoes[n-1])
		}
	}
}

func wireSizes(t *testing.T, caps uint64, rounds int) (keys, echoes []int) {
	key, _ := sspcrypto.NewKey(fixedReader(1))
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	srvAddr := netip.MustParseAddrPort("127.0.0.1:60001")
	cliAddr := netip.MustParseAddrPort("127.0.0.1:50000")
	user := ssptest.NewUserInput()
	user.Resize(80, 24)
	cli, err := ssp.NewTransport(ssp.Config{Key: key, Remote: srvAddr, LocalCaps: caps}, user, ssptest.NewHost(80, 24), now)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ssp.NewTransport(ssp.Config{Key: key, Server: true, LocalCaps: caps, MaxDatagram: ssp.MaxDatagramIPv4},
		ssptest.NewHost(80, 24), ssptest.NewUserInput(), now)
	if err != nil {
		t.Fatal(err)
	}
	const oneWay = 10 * time.Millisecond
	type flight struct {
		at    time.Time
		toSrv bool
		d     []byte
	}
	var inFlight []flight
	var lastKey, lastEcho int // size of the latest data datagram each way
	step := func() {
		for _, x := range []struct {
			tr interface {
				Tick(time.Time) ([][]byte, error)
			}
			toSrv bool
		}{{cli, true}, {srv, false}} {
			out, err := x.tr.Tick(now)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range out {
				_, in := decode(t, key, d)
				if len(in.Diff) > 0 {
					if x.toSrv {
						lastKey = len(d)
					} else {
						lastEcho = len(d)
					}
				}
				inFlight = append(inFlight, flight{now.Add(oneWay), x.toSrv, append([]byte(nil), d...)})
			}
		}
		next := now.Add(time.Second)
		for _, dl := range []time.Time{cli.NextDeadline(), srv.NextDeadline()} {
			if !dl.IsZero() && dl.Before(next) {
				next = dl
			}
		}
		for _, f := range inFlight {
			if f.at.Before(next) {
				next = f.at
			}
		}
		now = next
		kept := inFlight[:0]
		for _, f := range inFlight {
			switch {
			case f.at.After(now):
				kept = append(kept, f)
			case f.toSrv:
				srv.Receive(now, f.d, cliAddr)
			default:
				cli.Receive(now, f.d, srvAddr)
			}
		}
		inFlight = kept
	}
	runFor := func(d time.Duration) {
		for end := now.Add(d); now.Before(end); {
			step()
		}
	}
	runFor(5 * time.Second)
	for range rounds {
		lastKey, lastEcho = 0, 0
		cli.Current().Keys([]byte("a"))
		runFor(60 * time.Millisecond)
		// The server echoes the character and acknowledges the keystroke.
		srv.RemoteDiff()
		srv.Current().Write([]byte("a"))
		srv.Current().SetEchoAck(srv.RemoteNum())
		runFor(time.Second)
		if lastKey == 0 || lastEcho == 0 {
			t.Fatalf("no keystroke (%d) or echo (%d) datagram", lastKey, lastEcho)
		}
		keys, echoes = append(keys, lastKey), append(echoes, lastEcho)
	}
	return keys, echoes
}

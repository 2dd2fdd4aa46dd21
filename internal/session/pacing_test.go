package session_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
)

// TestPacingEcho: the real loops over a 20 ms round trip, without
// prediction. With gosh's pacing a keystroke's echo is on the screen one
// round trip (and a millisecond of slack) after it is typed;
// with Mosh's (--pacing=mosh) the server's 8 ms SEND_MINDELAY comes on top.
// With gosh's the echo ack goes in the echo's frame (the application
// answered the key), so a keystroke costs the server one datagram; with
// Mosh's the echo ack follows 50 ms later in a second.
func TestPacingEcho(t *testing.T) {
	for _, tc := range []struct {
		pacing   ssp.Pacing
		min, max time.Duration
		sends    int
	}{
		{ssp.PacingGosh, rigRTT, rigRTT + time.Millisecond, 1},
		{ssp.PacingMosh, rigRTT + ssp.ServerSendMinDelay, rigRTT + ssp.ServerSendMinDelay + ssp.ClientSendMinDelay + time.Millisecond, 2},
	} {
		t.Run(tc.pacing.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.startServer(session.ServerConfig{Pacing: tc.pacing})
				r.startClient(session.ClientConfig{Pacing: tc.pacing})
				r.waitScreen(ready, 2*time.Second)
				for i, key := range []string{"q", "w", "e"} {
					time.Sleep(time.Second) // an idle path
					typed := time.Now()
					r.term.Type(key)
					want := prompt + "qwe"[:i+1]
					for !r.term.Contains(want) {
						if time.Since(typed) > time.Second {
							t.Fatalf("%q not echoed within 1 s", key)
						}
						time.Sleep(100 * time.Microsecond)
					}
					if d := time.Since(typed); d < tc.min || d > tc.max {
						t.Errorf("%q echoed %v after it was typed, want within [%v, %v]", key, d, tc.min, tc.max)
					}
					time.Sleep(time.Until(typed.Add(time.Second)))
					if n := r.serverSends(typed, time.Now()); n != tc.sends {
						t.Errorf("%q cost the server %d datagrams, want %d", key, n, tc.sends)
					}
				}
			})
		})
	}
}

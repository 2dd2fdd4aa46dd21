package session_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
)

// TestPacingEcho: the real loops over a 20 ms round trip, without
// prediction. With gosh's pacing a keystroke's echo is on the screen one
// round trip (and a millisecond of slack) after it is typed;
// with Mosh's (--pacing=mosh) the server's 8 ms SEND_MINDELAY comes on top.
// With gosh's the echo ack goes in the echo's frame (the application
// answered the key), so a keystroke costs the server one datagram; with
// Mosh's the echo ack follows 50 ms later in a second. At this round
// trip the server holds no answer until it settles (answer.go), which
// would cost each echo 2 ms.
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

// TestPacingShownKeys: the real loops over a 20 ms round trip (frame
// interval 20 ms) with gosh's pacing. Keys the prediction engine shows
// are on the screen at once, and wait up to two frame intervals to share
// one datagram; Enter, which prediction cannot show, takes them along at
// once. Without prediction every key leaves at once.
func TestPacingShownKeys(t *testing.T) {
	for _, mode := range []predict.Mode{predict.Always, predict.Never} {
		t.Run(mode.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.startServer(session.ServerConfig{})
				r.startClient(session.ClientConfig{Predict: predict.NewEngine(mode, false)})
				r.waitScreen(ready, 2*time.Second)
				r.term.Type("q") // its echo confirms the prediction epoch
				r.waitScreen(prompt+"q", time.Second)
				time.Sleep(time.Second)

				typed := time.Now()
				for _, k := range "wer" {
					r.term.Type(string(k))
					time.Sleep(5 * time.Millisecond)
				}
				synctest.Wait()
				shown := r.term.Contains(prompt + "qwer")
				early := r.clientSends(typed, typed.Add(2*ssp.SendIntervalMin))
				r.waitScreen(prompt+"qwer", time.Second)
				time.Sleep(time.Second)
				if mode == predict.Always {
					if !shown {
						t.Errorf("15 ms after typing, the screen shows %q, want the predicted %q", r.term.Screen()[0], prompt+"qwer")
					}
					if early != 0 {
						t.Errorf("the client sent %d datagrams within two frame intervals of shown keys, want none", early)
					}
				} else if early < 2 {
					t.Errorf("the client sent %d datagrams within two frame intervals of three keys typed 5 ms apart, want at least 2", early)
				}

				typed = time.Now()
				r.term.Type("t")
				time.Sleep(5 * time.Millisecond)
				r.term.Type("\r")
				synctest.Wait()
				if n := r.clientSends(typed, typed.Add(6*time.Millisecond)); n == 0 {
					t.Errorf("Enter typed after a shown key did not leave at once")
				}
			})
		})
	}
}

package session_test

// The fault campaign (issue: hardening): outages, asymmetric and heavy
// loss, NAT rebinding, a blocked server port, all against the real loops
// in virtual time, with the notification bar, the recovery time, and
// goroutine and heap growth checked.

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
)

// rigRTT is the rig's round trip (10 ms each way).
const rigRTT = 20 * time.Millisecond

// heapNow returns the live heap after a collection.
func heapNow() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// barSeconds parses the notification bar's time since the last contact:
// "N seconds", "M:SS" or "H:MM:SS".
func barSeconds(bar string) (int, bool) {
	rest, ok := strings.CutPrefix(bar, "gosh: Last contact ")
	if !ok {
		return 0, false
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return 0, false
	}
	var h, m, s int
	switch {
	case strings.Count(f[0], ":") == 2:
		_, err := fmt.Sscanf(f[0], "%d:%d:%d", &h, &m, &s)
		return h*3600 + m*60 + s, err == nil
	case strings.Count(f[0], ":") == 1:
		_, err := fmt.Sscanf(f[0], "%d:%d", &m, &s)
		return m*60 + s, err == nil
	}
	_, err := fmt.Sscanf(f[0], "%d", &s)
	return s, err == nil
}

// TestOutages: total loss for 20 s, 5 min and 1 h. Throughout, the
// notification bar tells the time since the last contact. When the link
// returns together with a local network change (an interface up, a new
// address or route, a wake from sleep: SignalNetworkChange, which is how a
// returning link shows itself to a mobile client), the session recovers
// within two round trips of the return (plus the frame delays). When the
// return is invisible to the client (the break was elsewhere on the path),
// it can only be found by the next probe: the session recovers within one
// client heartbeat (3 s) and two round trips of it, and within two round
// trips of the first datagram that crosses. Afterwards no goroutine and no
// memory is left over.
func TestOutages(t *testing.T) {
	for _, outage := range []time.Duration{20 * time.Second, 5 * time.Minute, time.Hour} {
		for _, seen := range []bool{true, false} {
			name := outage.String() + "/unseen"
			if seen {
				name = outage.String() + "/network-change"
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { testOutage(t, outage, seen) })
			})
		}
	}
}

func testOutage(t *testing.T, outage time.Duration, seen bool) {
	r := newRig(t)
	r.start()
	r.term.Type("echo before\r")
	r.waitScreen("before", time.Second)
	time.Sleep(5 * time.Second)
	goroutines, heap := runtime.NumGoroutine(), heapNow()

	r.dropAll()
	lost := time.Now()
	r.term.Type("echo during\r")
	// The bar, checked every 10 s: it counts from the last contact, at
	// most one heartbeat (3 s) before the loss, redrawn at least every 3 s.
	for time.Since(lost) < outage {
		time.Sleep(min(10*time.Second, outage-time.Since(lost)))
		elapsed := int(time.Since(lost) / time.Second)
		bar := r.term.Screen()[0]
		secs, ok := barSeconds(bar)
		switch {
		case elapsed < 7:
		case !ok:
			t.Fatalf("%d s into the outage the bar is %q", elapsed, bar)
		case secs < elapsed-3 || secs > elapsed+3:
			t.Fatalf("%d s into the outage the bar says %q", elapsed, bar)
		}
	}
	if strings.Count(strings.Join(r.term.Screen(), "\n"), "during") > 1 {
		t.Fatal("output crossed a link that drops everything")
	}

	var crossed time.Time // the first datagram across the restored link
	r.setDrop(func(netip.AddrPort, netip.AddrPort) bool {
		if crossed.IsZero() {
			crossed = time.Now()
		}
		return false
	})
	back := time.Now()
	if seen {
		r.cliSig <- session.SignalNetworkChange
	}
	r.waitFor("the recovery", time.Minute, func() bool {
		s := r.term.Screen()
		return !strings.HasPrefix(s[0], "gosh:") && strings.Count(strings.Join(s, "\n"), "during") == 2
	})
	sinceBack, sinceCross := time.Since(back), time.Since(crossed)
	t.Logf("%v outage: recovered %v after the link returned, %v after the first datagram crossed it", outage, sinceBack, sinceCross)
	if seen && sinceBack > 2*rigRTT+ssp.ServerSendMinDelay+ssp.SendIntervalMin {
		t.Errorf("recovery %v after the link returned with a network change, want within two round trips", sinceBack)
	}
	if sinceBack > ssp.AckInterval+2*rigRTT+ssp.ServerSendMinDelay {
		t.Errorf("recovery %v after the link returned, want within a heartbeat (3 s) and two round trips", sinceBack)
	}
	if sinceCross > 2*rigRTT+ssp.ServerSendMinDelay+ssp.SendIntervalMin {
		t.Errorf("recovery %v after the first datagram crossed, want within two round trips", sinceCross)
	}

	// Old client sockets (port hops during the outage) close 60 s after
	// the newest one is in use.
	time.Sleep(ssp.MaxOldSocketAge + 10*time.Second)
	// NumGoroutine counts the whole process: let a goroutine outside the
	// bubble that is on its way out (a previous subtest's) finish first.
	for i := 0; i < 20000 && runtime.NumGoroutine() > goroutines; i++ { // virtual sleeps: some real milliseconds in all
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		t.Errorf("%d goroutines after the outage, %d before", g, goroutines)
	}
	if h := heapNow(); h > heap+1<<20 {
		t.Errorf("the heap grew from %d to %d KiB over the outage", heap>>10, h>>10)
	}
	r.term.Type("echo after\r")
	r.waitScreen("after", time.Second)
}

// TestAsymmetricLoss: everything one way is lost for a minute; the session
// recovers in both cases.
func TestAsymmetricLoss(t *testing.T) {
	for _, way := range []string{"client to server", "server to client"} {
		t.Run(way, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.start()
				r.setDrop(func(from, _ netip.AddrPort) bool { return (from == serverAddr) == (way == "server to client") })
				r.term.Type("echo one-way\r")
				time.Sleep(time.Minute)
				r.restore()
				back := time.Now()
				r.waitFor("the output", 10*time.Second, func() bool {
					return strings.Count(strings.Join(r.term.Screen(), "\n"), "one-way") == 2
				})
				t.Logf("recovered %v after the loss ended", time.Since(back))
				if d := time.Since(back); d > ssp.AckInterval+2*rigRTT+ssp.ServerSendMinDelay {
					t.Errorf("recovery took %v", d)
				}
			})
		})
	}
}

// TestHeavyLoss: 75 % loss each way, with 10 % duplication and reordering
// over a 40–120 ms path: every command still runs once, in order.
func TestHeavyLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		rng := rand.New(rand.NewPCG(75, 75))
		r.setDrop(func(netip.AddrPort, netip.AddrPort) bool { return rng.Float64() < 0.75 })
		r.net.Do(func() {
			r.net.Duplicate = func(netip.AddrPort, netip.AddrPort, []byte) bool { return rng.Float64() < 0.1 }
			r.net.Delay = func(netip.AddrPort, netip.AddrPort, []byte) time.Duration {
				return 40*time.Millisecond + time.Duration(rng.IntN(80))*time.Millisecond
			}
		})
		var want strings.Builder
		start := time.Now()
		for i := range 5 {
			cmd := fmt.Sprintf("echo heavy-%d\r", i)
			want.WriteString(cmd)
			r.term.Type(cmd)
			r.waitScreen(fmt.Sprintf("heavy-%d", i), time.Minute)
		}
		t.Logf("5 commands over 75 %% loss took %v", time.Since(start))
		if got := string(r.shell.Received()); got != want.String() {
			t.Errorf("the shell received %q, want %q", got, want.String())
		}
	})
}

// TestRebindEverySecond: the client's address changes every second (a NAT
// that rebinds constantly) while the user types; the server follows.
func TestRebindEverySecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		for i := range 30 {
			if _, err := r.cliPC.Rebind(netip.AddrPortFrom(netip.AddrFrom4([4]byte{203, 0, 113, byte(i + 1)}), 0)); err != nil {
				t.Fatal(err)
			}
			r.term.Type(fmt.Sprintf("echo nat-%d\r", i))
			r.waitScreen(fmt.Sprintf("nat-%d", i), time.Second)
			time.Sleep(time.Second)
		}
	})
}

// TestServerPortBlocked: a firewall blocks the server's port for 30 s, in
// both directions, then lets it through again.
func TestServerPortBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.setDrop(func(from, to netip.AddrPort) bool {
			return from.Port() == serverAddr.Port() || to.Port() == serverAddr.Port()
		})
		r.term.Type("echo blocked\r")
		time.Sleep(30 * time.Second)
		r.restore()
		r.waitFor("the output", 5*time.Second, func() bool {
			return strings.Count(strings.Join(r.term.Screen(), "\n"), "blocked") == 2
		})
	})
}

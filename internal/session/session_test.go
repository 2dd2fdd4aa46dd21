package session_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
)

// TestTypeEchoExit: the prompt appears, typed commands run and echo, and
// the shell's exit ends both loops cleanly, with the terminal restored.
func TestTypeEchoExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		if !r.term.Raw() {
			t.Error("the client did not put the terminal in raw mode")
		}
		r.term.Type("echo hello world\r")
		r.waitScreen("hello world", time.Second)
		if got := string(r.shell.Received()); got != "echo hello world\r" {
			t.Errorf("the shell received %q", got)
		}
		r.term.Type("exit\r")
		if err, _ := r.serverEnd(5 * time.Second); err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
		if err, _ := r.clientEnd(5 * time.Second); err != nil {
			t.Errorf("RunClient = %v, want nil", err)
		}
		if !r.shell.Closed() {
			t.Error("the server did not hang up the program's terminal")
		}
		if r.term.Raw() {
			t.Error("the terminal was left in raw mode")
		}
		if !r.term.Contains("[gosh is exiting.]") {
			t.Errorf("no exit message; screen:\n%s", strings.Join(r.term.Screen(), "\n"))
		}
	})
}

// TestResize: a window size change reaches the program's terminal.
func TestResize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.term.SetSize(100, 30)
		r.cliSig <- session.SignalResize
		r.waitFor("the resize", time.Second, func() bool {
			c, rows, _ := r.shell.Size()
			return c == 100 && rows == 30
		})
		r.term.Type("size\r")
		r.waitScreen("30 100", time.Second)
		// The same size again changes nothing.
		_, _, before := r.shell.Size()
		r.cliSig <- session.SignalResize
		r.term.Type("echo same\r")
		r.waitScreen("same", time.Second)
		if _, _, after := r.shell.Size(); after != before {
			t.Errorf("an unchanged size resized the program again (%d → %d resizes)", before, after)
		}
	})
}

// TestInitialSize: the client's window size reaches the program at the
// start, without any resize (the server starts at 80×24).
func TestInitialSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.term.SetSize(100, 30)
		r.start()
		r.waitFor("the initial size", time.Second, func() bool {
			c, rows, _ := r.shell.Size()
			return c == 100 && rows == 30
		})
	})
}

// TestLossyLink: with 30 % loss each way, duplication and reordering,
// every command still runs exactly once, in order.
func TestLossyLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		rng := rand.New(rand.NewPCG(7, 8))
		r.setDrop(func(netip.AddrPort, netip.AddrPort) bool { return rng.Float64() < 0.3 })
		r.net.Duplicate = func(netip.AddrPort, netip.AddrPort, []byte) bool { return rng.Float64() < 0.05 }
		r.net.Delay = func(netip.AddrPort, netip.AddrPort, []byte) time.Duration {
			return 40*time.Millisecond + time.Duration(rng.IntN(40))*time.Millisecond
		}
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{})
		r.waitScreen(ready, 10*time.Second)
		var want strings.Builder
		for i := range 10 {
			cmd := "echo line-" + string(rune('a'+i)) + "\r"
			want.WriteString(cmd)
			r.term.Type(cmd)
			r.waitScreen("line-"+string(rune('a'+i)), 20*time.Second)
		}
		if got := string(r.shell.Received()); got != want.String() {
			t.Errorf("the shell received %q, want %q", got, want.String())
		}
	})
}

// TestRoaming: the client's address changes (a NAT rebinding); the server
// follows it after the first authentic datagram from the new address.
func TestRoaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		moved, err := r.cliPC.Rebind(netip.AddrPortFrom(netip.MustParseAddr("203.0.113.9"), 0))
		if err != nil {
			t.Fatal(err)
		}
		r.term.Type("echo roamed\r")
		r.waitScreen("roamed", time.Second)
		t.Logf("client moved to %v", moved)
	})
}

// TestPortHop: when the server's replies stop arriving, the client moves to
// a new local port after 10 s, and the session goes on from there.
func TestPortHop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		before := r.cliConn.LocalAddr()
		r.setDrop(func(from, _ netip.AddrPort) bool { return from == serverAddr })
		time.Sleep(25 * time.Second)
		r.restore()
		if after := r.cliConn.LocalAddr(); after == before {
			t.Fatalf("the client did not hop in 25 s without replies (still %v)", before)
		}
		r.term.Type("echo hopped\r")
		r.waitScreen("hopped", time.Second)
	})
}

// TestOutage: during a 20 s outage the notification bar counts the time
// since the last contact; when the link returns, the output typed during
// the outage arrives within a second and the bar goes away.
func TestOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.dropAll()
		lost := time.Now()
		r.term.Type("echo during\r")
		r.waitFor("the notification bar", 10*time.Second, func() bool {
			s := r.term.Screen()[0]
			return strings.HasPrefix(s, "gosh: Last contact ") && strings.Contains(s, "seconds ago.")
		})
		if r.term.Contains("during\n") || strings.Count(strings.Join(r.term.Screen(), "\n"), "during") > 1 {
			t.Fatal("output arrived during the outage")
		}
		time.Sleep(time.Until(lost.Add(20 * time.Second)))
		// The last contact was at most one heartbeat (3 s) before the loss,
		// and the bar is redrawn once a second.
		var secs int
		if _, err := fmt.Sscanf(r.term.Screen()[0], "gosh: Last contact %d seconds ago.", &secs); err != nil || secs < 19 || secs > 23 {
			t.Errorf("bar 20 s into the outage = %q, want 19 to 23 seconds", r.term.Screen()[0])
		}
		r.restore()
		start := time.Now()
		r.waitFor("the output and the bar gone", 5*time.Second, func() bool {
			s := r.term.Screen()
			return !strings.HasPrefix(s[0], "gosh:") && strings.Count(strings.Join(s, "\n"), "during") == 2
		})
		// After 10 s without hearing from the server, the client resends
		// only with its 3 s heartbeat (docs/protocol.md section 7.4).
		t.Logf("recovered %v after the link returned", time.Since(start))
		if d := time.Since(start); d > ssp.AckInterval+time.Second {
			t.Errorf("recovery took %v, want within one heartbeat interval", d)
		}
	})
}

// TestDetachAfter40s: a client silent for more than 40 s is forgotten
// (the server stops sending to it); when it comes back from a new address
// the session resumes there.
func TestDetachAfter40s(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.dropAll()
		r.term.Type("echo away\r")
		lost := time.Now()
		time.Sleep(45 * time.Second)
		if n := r.serverSends(lost.Add(ssp40s+time.Second), time.Now()); n != 0 {
			t.Errorf("the server sent %d datagrams more than 40 s after it last heard from the client", n)
		}
		if n := r.serverSends(lost, lost.Add(30*time.Second)); n == 0 {
			t.Error("the server gave up on the client before 40 s")
		}
		if _, err := r.cliPC.Rebind(netip.AddrPortFrom(netip.MustParseAddr("203.0.113.50"), 0)); err != nil {
			t.Fatal(err)
		}
		r.restore()
		r.waitScreen("away", 5*time.Second)
		r.term.Type("echo back\r")
		r.waitScreen("back", time.Second)
	})
}

const ssp40s = 40 * time.Second

// TestServerNetworkTimeout: MOSH_SERVER_NETWORK_TMOUT ends the session
// once the client has been unreachable that long, not while heartbeats
// flow.
func TestServerNetworkTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.startServer(session.ServerConfig{NetworkTimeout: 5 * time.Second})
		r.startClient(session.ClientConfig{})
		r.waitScreen(ready, time.Second)
		time.Sleep(8 * time.Second) // heartbeats every 3 s keep an idle session alive
		select {
		case err := <-r.srvDone:
			t.Fatalf("the server ended (%v) although the client is reachable", err)
		default:
		}
		r.dropAll()
		err, took := r.serverEnd(15 * time.Second)
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
		if took < 2*time.Second || took > 6*time.Second {
			t.Errorf("the server ended %v after the client became unreachable, want 5 s after the last heartbeat", took)
		}
		if !r.shell.Closed() {
			t.Error("the program's terminal was not hung up")
		}
	})
}

// TestServerSignalTimeout: SignalEndIfIdle (SIGUSR1) with a signal timeout
// ends only a session whose client has been silent that long; without a
// timeout it always ends it.
func TestServerSignalTimeout(t *testing.T) {
	t.Run("with timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t)
			r.startServer(session.ServerConfig{SignalTimeout: 2 * time.Second})
			r.startClient(session.ClientConfig{})
			r.waitScreen(ready, time.Second)
			r.term.Type("echo hi\r")
			r.waitScreen("hi", time.Second)
			r.srvSig <- session.SignalEndIfIdle
			time.Sleep(2 * time.Second)
			select {
			case err := <-r.srvDone:
				t.Fatalf("SIGUSR1 ended (%v) a session whose client is active", err)
			default:
			}
			r.dropAll()
			time.Sleep(5 * time.Second)
			r.srvSig <- session.SignalEndIfIdle
			r.serverEnd(time.Second + 16*250*time.Millisecond)
		})
	})
	t.Run("without timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t)
			r.start()
			r.srvSig <- session.SignalEndIfIdle
			if err, _ := r.serverEnd(2 * time.Second); err != nil {
				t.Errorf("Serve = %v", err)
			}
			if err, _ := r.clientEnd(2 * time.Second); err != nil {
				t.Errorf("RunClient = %v, want a clean end", err)
			}
		})
	})
}

// TestServerNoClient: a server nobody connects to ends after 60 s, not
// before.
func TestServerNoClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.startServer(session.ServerConfig{})
		err, took := r.serverEnd(2 * time.Minute)
		if err != nil || took < 60*time.Second || took > 61*time.Second {
			t.Errorf("Serve = %v after %v, want nil after 60 s", err, took)
		}
		if !r.shell.Closed() {
			t.Error("the program's terminal was not hung up")
		}
	})
}

// TestShutdown: each way of ending a session ends both loops cleanly.
func TestShutdown(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(r *rig)
	}{
		{"escape key", func(r *rig) { r.term.Type("\x1e.") }},
		{"client signal", func(r *rig) { r.cliSig <- session.SignalQuit }},
		{"client context", func(r *rig) { r.cliCancel() }},
		{"server signal", func(r *rig) { r.srvSig <- session.SignalQuit }},
		{"server context", func(r *rig) { r.srvCancel() }},
		{"program exits", func(r *rig) { r.term.Type("exit\r") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.start()
				tc.end(r)
				if err, _ := r.clientEnd(5 * time.Second); err != nil {
					t.Errorf("RunClient = %v", err)
				}
				if err, _ := r.serverEnd(5 * time.Second); err != nil {
					t.Errorf("Serve = %v", err)
				}
				if !r.shell.Closed() || r.term.Raw() {
					t.Errorf("program terminal closed %v, user terminal raw %v; want true, false", r.shell.Closed(), r.term.Raw())
				}
			})
		})
	}
}

// TestShutdownUnacknowledged: a client whose server vanished gives up on
// the shutdown handshake and says the session did not end cleanly.
func TestShutdownUnacknowledged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.dropAll()
		r.cliSig <- session.SignalQuit
		err, took := r.clientEnd(30 * time.Second)
		if !errors.Is(err, session.ErrUnclean) {
			t.Errorf("RunClient = %v, want ErrUnclean", err)
		}
		t.Logf("gave up after %v", took)
	})
}

// TestUnreachable: a client whose server never answers says so on the bar,
// then gives up after 15 s with ErrNoConnection.
func TestUnreachable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.startClient(session.ClientConfig{})
		r.waitScreen("gosh: Nothing received from server on UDP port 60001.", time.Second)
		err, took := r.clientEnd(time.Minute)
		if !errors.Is(err, session.ErrNoConnection) {
			t.Errorf("RunClient = %v, want ErrNoConnection", err)
		}
		if took < 14*time.Second || took > 20*time.Second {
			t.Errorf("gave up after %v, want about 15 s", took)
		}
		if r.term.Raw() {
			t.Error("the terminal was left in raw mode")
		}
	})
}

// TestPasteWindow: a 300 KiB paste reaches the program intact and in
// order, and goes out through the 64 KiB input window: no burst of the
// client's datagrams is larger than one window's worth.
func TestPasteWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.term.Type("cat\r")
		rng := rand.New(rand.NewPCG(1, 1))
		paste := make([]byte, 300<<10)
		for i := range paste {
			paste[i] = byte(' ' + rng.IntN(95)) // printable, hard to compress
		}
		r.term.Type(string(paste))
		r.term.Type("\x04")
		r.waitFor("the whole paste", 30*time.Second, func() bool { return len(r.shell.Cat()) >= len(paste) })
		if got := r.shell.Cat(); !bytes.Equal(got, paste) {
			t.Fatalf("the program received %d bytes that differ from the %d pasted", len(got), len(paste))
		}
		// 64 KiB of printable noise deflates to about 55 KiB: about 47
		// datagrams of 1.2 KiB. The whole paste at once would be over 200.
		if n := r.largestClientBurst(); n > 64 {
			t.Errorf("the client sent %d datagrams at once; the input window allows about 50", n)
		}
	})
}

// TestSuspend: Ctrl-^ Ctrl-Z suspends the client with the terminal
// restored, and it repaints and goes on when continued.
func TestSuspend(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.term.Type("\x1e\x1a")
		r.waitFor("the suspension", time.Second, func() bool { return r.term.Suspended() == 1 })
		if !r.term.Raw() {
			t.Error("the terminal is not raw again after the suspension")
		}
		r.term.Type("echo resumed\r")
		r.waitScreen("resumed", time.Second)
		// An outside stop and continue (SIGCONT) sets the terminal up again.
		r.cliSig <- session.SignalContinue
		r.term.Type("echo continued\r")
		r.waitScreen("continued", time.Second)
	})
}

// TestPredictionOverSlowLink: over a 500 ms round trip, once the first
// keystroke of a line has been confirmed, the predictor shows typed
// characters before the server echoes them.
func TestPredictionOverSlowLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.mu.Lock()
		r.delay = 250 * time.Millisecond
		r.mu.Unlock()
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{Predict: predict.NewEngine(predict.Adaptive, false)})
		r.waitScreen(ready, 3*time.Second)
		r.term.Type("e")
		r.waitScreen("gosh$ e", 2*time.Second)
		time.Sleep(time.Second)
		r.term.Type("c")
		synctest.Wait()
		time.Sleep(20 * time.Millisecond) // far less than the 500 ms round trip
		if !r.term.Contains("gosh$ ec") {
			t.Errorf("the typed 'c' is not shown 20 ms after the key over a 500 ms link; screen:\n%s", strings.Join(r.term.Screen(), "\n"))
		}
		r.waitScreen("gosh$ ec", time.Second)
	})
}

// TestServerSocketFails: a server whose socket can no longer be read ends
// the session with the reason, instead of going deaf until a timeout.
func TestServerSocketFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		fc := &failingConn{PacketConn: r.srvPC}
		r.serverConn = fc
		r.start()
		fc.fail.Store(true)
		r.term.Type("echo x\r")
		err, took := r.serverEnd(time.Minute)
		if err == nil || !strings.Contains(err.Error(), "input/output error") {
			t.Errorf("Serve = %v, want the read error", err)
		}
		t.Logf("Serve ended %v after the reads started failing: %v", took, err)
	})
}

// TestFloodReadAtOutputRate: a program's output beyond the burst is read
// no faster than the output rate (the flood's CPU bound), and all of it
// arrives.
func TestFloodReadAtOutputRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.start()
		const n = 600000 // "1\r\n" … "600000\r\n": 4.7 MB
		size := 0
		for i := 1; i <= n; i++ {
			size += len(strconv.Itoa(i)) + 2
		}
		start := time.Now()
		r.term.Type(fmt.Sprintf("seq %d\r", n))
		r.waitFor("the flood's end", time.Minute, func() bool {
			s := r.term.Screen()
			return len(s) > 1 && s[len(s)-2] == strconv.Itoa(n) && strings.HasPrefix(s[len(s)-1], ready)
		})
		took := time.Since(start)
		want := time.Duration(float64(size-session.OutputBurst-session.OutputDebt) / session.OutputRate * float64(time.Second))
		if took < want {
			t.Errorf("%d bytes of output were read in %v, want at least %v at %d B/s after a %d B burst", size, took, want, session.OutputRate, session.OutputBurst)
		}
		if took > want+time.Second {
			t.Errorf("%d bytes of output took %v, want about %v", size, took, want)
		}
	})
}

package session_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
)

// programEndsFirst starts a server (cfg) whose program prints "hi" and
// ends with last ("exit 3", "die 9") before any client is heard from,
// waits wait, and starts a client (ccfg). It returns what RunClient
// returned and how long the client took from its start.
func programEndsFirst(t *testing.T, r *rig, cfg session.ServerConfig, ccfg session.ClientConfig, last string, wait time.Duration) (error, time.Duration) {
	t.Helper()
	r.startServer(cfg)
	if _, err := r.shell.Write([]byte("echo hi\r" + last + "\r")); err != nil {
		t.Fatal(err)
	}
	<-r.shell.Exited()
	time.Sleep(wait)
	select {
	case err := <-r.srvDone:
		t.Fatalf("the server ended (%v) before any client came, %v after its program", err, wait)
	default:
	}
	r.startClient(ccfg)
	err, took := r.clientEnd(5 * time.Second)
	if !r.term.Contains("hi") {
		t.Errorf("the client never showed the program's output; screen:\n%s", strings.Join(r.term.Screen(), "\n"))
	}
	if err, _ := r.serverEnd(5 * time.Second); err != nil {
		t.Errorf("Serve = %v", err)
	}
	return err, took
}

// TestProgramEndsBeforeClient: a program that ends before the first
// client datagram (gosh connect HOST -- echo hi) keeps its last screen and
// the shutdown until a client comes, as mosh-server does: the client shows
// the output and ends within a round trip or two, with the program's exit
// status (a gosh client), and the server ends once it acknowledged.
func TestProgramEndsBeforeClient(t *testing.T) {
	for _, wait := range []time.Duration{0, 5 * time.Second, 50 * time.Second} {
		t.Run(wait.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				err, took := programEndsFirst(t, r, session.ServerConfig{}, session.ClientConfig{}, "exit 3", wait)
				var ee *session.ExitError
				if !errors.As(err, &ee) || ee.Code != 3 || ee.ExitCode() != 3 {
					t.Errorf("RunClient = %v, want the program's exit status 3", err)
				}
				// 10 ms each way: the client's first datagram, the
				// shutdown with the screen, the client's ack.
				if took > 100*time.Millisecond {
					t.Errorf("the client took %v to end", took)
				}
				t.Logf("the client ended after %v (virtual time, 10 ms one way)", took)
			})
		})
	}
}

// TestProgramEndsNoClient: a program that ends with nobody connecting
// still lets the server end at the no-client timeout, 60 s after it
// started.
func TestProgramEndsNoClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.startServer(session.ServerConfig{})
		r.shell.Write([]byte("exit\r"))
		err, took := r.serverEnd(2 * time.Minute)
		if err != nil || took < 59*time.Second || took > 61*time.Second {
			t.Errorf("Serve = %v after %v, want nil after 60 s", err, took)
		}
	})
}

// TestExitStatus: between gosh ends the program's exit status comes back
// from RunClient, for an exit and for a signal; status 0 is a plain clean
// end. A stock peer on either side sees nothing of it: a server that
// looks stock sends none, and a gosh server sends none to a client that
// did not ask (the client would take it if it came).
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name       string
		last       string
		stockSrv   bool
		stockCli   bool
		code, sig  int
		clientExit int
	}{
		{"exit 0", "exit", false, false, 0, 0, 0},
		{"exit 3", "exit 3", false, false, 3, 0, 3},
		{"killed", "die 9", false, false, 0, 9, 137},
		{"stock server", "exit 3", true, false, 0, 0, 0},
		{"stock client", "exit 3", false, true, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				cfg, ccfg := session.ServerConfig{}, session.ClientConfig{}
				if tc.stockSrv {
					cfg = session.AsStock(cfg)
				}
				if tc.stockCli {
					ccfg = session.ClientAsStock(ccfg)
				}
				r.startServer(cfg)
				r.startClient(ccfg)
				r.waitScreen(ready, 2*time.Second)
				r.term.Type(tc.last + "\r")
				err, _ := r.clientEnd(5 * time.Second)
				var ee *session.ExitError
				switch {
				case tc.code == 0 && tc.sig == 0:
					if err != nil {
						t.Errorf("RunClient = %v, want nil", err)
					}
				case !errors.As(err, &ee) || ee.Code != tc.code || ee.Signal != tc.sig || ee.ExitCode() != tc.clientExit:
					t.Errorf("RunClient = %v, want status %d signal %d (exit code %d)", err, tc.code, tc.sig, tc.clientExit)
				}
				if err, _ := r.serverEnd(5 * time.Second); err != nil {
					t.Errorf("Serve = %v", err)
				}
				if !r.term.Contains("[gosh is exiting.]") {
					t.Errorf("no exit message; screen:\n%s", strings.Join(r.term.Screen(), "\n"))
				}
			})
		})
	}
}

// TestHangup: when the user's terminal goes away (SIGHUP, or its input
// ends), a client of a gosh server detaches at once, sends no shutdown,
// and the session goes on: a client that resumes it has the same shell.
// With a server that looks stock, the client ends the session as
// mosh-client does.
func TestHangup(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hang  func(r *rig)
		stock bool
	}{
		{"signal", func(r *rig) { r.cliSig <- session.SignalHangup }, false},
		{"terminal gone", func(r *rig) { r.term.Hangup() }, false},
		{"signal, stock server", func(r *rig) { r.cliSig <- session.SignalHangup }, true},
		{"terminal gone, stock server", func(r *rig) { r.term.Hangup() }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				cfg := session.ServerConfig{}
				if tc.stock {
					cfg = session.AsStock(cfg)
				}
				r.startServer(cfg)
				r.startClient(session.ClientConfig{})
				r.waitScreen(ready, 2*time.Second)
				r.term.Type("echo before-hangup\r")
				r.waitScreen("before-hangup", time.Second)
				tc.hang(r)
				err, took := r.clientEnd(5 * time.Second)
				if tc.stock {
					if err != nil {
						t.Errorf("RunClient = %v, want a clean shutdown", err)
					}
					if err, _ := r.serverEnd(5 * time.Second); err != nil || !r.shell.Closed() {
						t.Errorf("Serve = %v, program hung up %v; want the session ended", err, r.shell.Closed())
					}
					return
				}
				if !errors.Is(err, session.ErrDetached) || took > 10*time.Millisecond {
					t.Fatalf("RunClient = %v after %v, want ErrDetached at once", err, took)
				}
				if r.term.Raw() {
					t.Error("the terminal was left in raw mode")
				}
				time.Sleep(10 * time.Minute)
				select {
				case err := <-r.srvDone:
					t.Fatalf("the server ended (%v) after the client detached", err)
				default:
				}
				if r.shell.Closed() {
					t.Fatal("the program was hung up")
				}
				term2, _, _ := r.secondClient(netip.MustParseAddr("192.0.2.79"), r.key,
					session.ClientConfig{Epoch: 1, FirstSeq: 1 << 20})
				waitTerm(t, term2, "before-hangup", 2*time.Second)
				term2.Type("echo after-resume\r")
				waitTerm(t, term2, "after-resume", 2*time.Second)
				if got := string(r.shell.Received()); got != "echo before-hangup\recho after-resume\r" {
					t.Errorf("the shell received %q, want both commands", got)
				}
			})
		})
	}
}

// TestClientEndsWithItsAck: a client that acknowledged the server's
// shutdown ends at once, not at its next timer: the ack is its last
// datagram, sent the moment RunClient returns (virtual time).
func TestClientEndsWithItsAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.term.Mute() // no answers to its queries wake the client
		r.start()
		r.term.Type("echo bye\r")
		r.waitScreen("bye", time.Second)
		time.Sleep(5 * time.Second) // the client's send interval is long past
		r.term.Type("exit 3\r")
		err, _ := r.clientEnd(5 * time.Second)
		ended := time.Now()
		var ee *session.ExitError
		if !errors.As(err, &ee) || ee.Code != 3 {
			t.Fatalf("RunClient = %v, want exit status 3", err)
		}
		var last time.Time
		r.mu.Lock()
		for at := range r.cliBursts {
			if at.After(last) {
				last = at
			}
		}
		r.mu.Unlock()
		if d := ended.Sub(last); d > time.Millisecond {
			t.Errorf("the client ended %v after its last datagram (the ack)", d)
		}
	})
}

// TestServerEndsWithItsAck: a server that acknowledged its client's
// shutdown (Ctrl-^ .) ends at once, not at its next timer.
func TestServerEndsWithItsAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		time.Sleep(5 * time.Second)
		r.term.Type("\x1e.")
		if err, _ := r.serverEnd(5 * time.Second); err != nil {
			t.Fatalf("Serve = %v", err)
		}
		ended := time.Now()
		r.mu.Lock()
		last := r.fromSrv[len(r.fromSrv)-1]
		r.mu.Unlock()
		if d := ended.Sub(last); d > time.Millisecond {
			t.Errorf("the server ended %v after its last datagram (the ack)", d)
		}
	})
}

package session_test

import (
	"errors"
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

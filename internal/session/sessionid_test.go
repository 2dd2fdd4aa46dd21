package session_test

import (
	"net/netip"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
)

// idLog collects what a client's SessionID function is told.
type idLog struct {
	mu  sync.Mutex
	ids []string
}

func (l *idLog) add(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids = append(l.ids, id)
}

func (l *idLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.ids)
}

// TestSessionID: a gosh server tells a gosh client the session's ID
// (docs/protocol.md section 12.4), which a gosh connect --direct client
// never sees otherwise; the client is told it once. A stock peer on either
// side sees nothing of it, a server without an ID sends none, and a
// client takes nothing that is not an ID.
func TestSessionID(t *testing.T) {
	for _, tc := range []struct {
		name     string
		id       string
		stockSrv bool
		stockCli bool
		want     []string
	}{
		{"gosh ends", "0123abcd", false, false, []string{"0123abcd"}},
		{"no ID", "", false, false, nil},
		{"stock server", "0123abcd", true, false, nil},
		{"stock client", "0123abcd", false, true, nil},
		{"not an ID", "../../x", false, false, nil},
		{"upper case", "0123ABCD", false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				var got idLog
				cfg := session.ServerConfig{SessionID: tc.id}
				ccfg := session.ClientConfig{SessionID: got.add}
				if tc.stockSrv {
					cfg = session.AsStock(cfg)
				}
				if tc.stockCli {
					ccfg = session.ClientAsStock(ccfg)
				}
				r.startServer(cfg)
				r.startClient(ccfg)
				r.waitScreen(ready, 2*time.Second)
				r.term.Type("echo typed\r")
				r.waitPrompt("typed", 2*time.Second)
				time.Sleep(10 * time.Second) // heartbeats
				if ids := got.get(); !slices.Equal(ids, tc.want) {
					t.Errorf("the client was told %q, want %q", ids, tc.want)
				}
			})
		})
	}
}

// TestSessionIDNewClient: the client that resumes a session (a new epoch,
// after the first client had the ID and acknowledged it) and the one that
// takes it over (a new key) are told the ID too.
func TestSessionIDNewClient(t *testing.T) {
	for _, takeover := range []bool{false, true} {
		name := map[bool]string{false: "resume", true: "takeover"}[takeover]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				control := make(chan session.ControlRequest)
				var first, second idLog
				r.startServer(session.ServerConfig{SessionID: "0123abcd", Control: control})
				r.startClient(session.ClientConfig{SessionID: first.add})
				r.waitScreen(ready, 2*time.Second)
				time.Sleep(5 * time.Second) // the first client has it, and said so
				if ids := first.get(); !slices.Equal(ids, []string{"0123abcd"}) {
					t.Fatalf("the first client was told %q", ids)
				}
				key := r.key
				if takeover {
					reply := make(chan session.ControlReply, 1)
					control <- session.ControlRequest{Op: session.ControlAttach, From: "203.0.113.9", Reply: reply}
					rep := <-reply
					if rep.Err != nil {
						t.Fatal(rep.Err)
					}
					key = rep.Key
				} else {
					// The first client dies without a word.
					r.setDrop(func(from, _ netip.AddrPort) bool { return from.Addr() == clientIP })
					r.cliCancel()
					<-r.cliDone
					r.cliDone <- nil
					r.cliCancel = nil
					time.Sleep(5 * time.Second)
					r.restore()
				}
				term2, _, _ := r.secondClient(netip.MustParseAddr("192.0.2.78"), key,
					session.ClientConfig{Epoch: 1, FirstSeq: 1 << 20, SessionID: second.add})
				waitTerm(t, term2, ready, 2*time.Second)
				time.Sleep(time.Second)
				if ids := second.get(); !slices.Equal(ids, []string{"0123abcd"}) {
					t.Errorf("the %s client was told %q, want [0123abcd]", name, ids)
				}
			})
		})
	}
}

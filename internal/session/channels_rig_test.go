package session_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
)

// pipeListener is the server's agent socket in memory: connect returns the
// program's end of a new connection.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (io.ReadWriteCloser, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

// connect is the program connecting to SSH_AUTH_SOCK.
func (l *pipeListener) connect(t *testing.T) net.Conn {
	prog, srv := net.Pipe()
	select {
	case l.conns <- srv:
	case <-time.After(time.Second):
		t.Fatal("the server does not accept agent connections")
	}
	return prog
}

// upperAgent is the client's "agent": it answers each read with the bytes
// upper-cased, until its connection is closed.
func upperAgent() (io.ReadWriteCloser, error) {
	c, agent := net.Pipe()
	go func() {
		defer agent.Close()
		buf := make([]byte, 4096)
		for {
			n, err := agent.Read(buf)
			if n > 0 {
				if _, err := agent.Write(bytes.ToUpper(buf[:n])); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return c, nil
}

// request writes req on c and reads len(req) bytes back, within limit.
func request(t *testing.T, c net.Conn, req []byte, limit time.Duration) ([]byte, error) {
	t.Helper()
	errc := make(chan error, 1)
	go func() { _, err := c.Write(req); errc <- err }()
	got := make([]byte, len(req))
	done := make(chan error, 1)
	go func() { _, err := io.ReadFull(c, got); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			return nil, err
		}
		return got, <-errc
	case <-time.After(limit):
		t.Fatalf("no answer within %v", limit)
		return nil, nil
	}
}

// TestAgentForwarding: a program's connections to the server's agent
// socket reach the client's agent, in order and whole (a megabyte, past
// every credit window), also across an outage; without an agent to
// forward to, the program's connection ends cleanly.
func TestAgentForwarding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		agent := newPipeListener()
		r.startServer(session.ServerConfig{Agent: agent})
		r.startClient(session.ClientConfig{DialAgent: upperAgent})
		r.waitScreen(ready, 2*time.Second)

		c := agent.connect(t)
		if got, err := request(t, c, []byte("list keys"), 5*time.Second); err != nil || string(got) != "LIST KEYS" {
			t.Fatalf("request = %q, %v; want LIST KEYS", got, err)
		}
		big := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz012345"), 1<<15) // 1 MiB
		if raceEnabled {
			big = big[:256<<10]
		}
		if got, err := request(t, c, big, 60*time.Second); err != nil || !bytes.Equal(got, bytes.ToUpper(big)) {
			t.Fatalf("%d byte request: %d bytes back, %v; want it upper-cased", len(big), len(got), err)
		}

		r.dropAll() // an outage with a request in flight
		errc := make(chan []byte, 1)
		go func() {
			got, _ := request(t, c, []byte("during the outage"), time.Minute)
			errc <- got
		}()
		time.Sleep(10 * time.Second)
		r.restore()
		select {
		case got := <-errc:
			if string(got) != "DURING THE OUTAGE" {
				t.Fatalf("after the outage: %q", got)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the request in flight during the outage was not answered after it")
		}
		c.Close()

		// A second connection works as well.
		c2 := agent.connect(t)
		if got, err := request(t, c2, []byte("again"), 5*time.Second); err != nil || string(got) != "AGAIN" {
			t.Fatalf("second connection: %q, %v", got, err)
		}
		c2.Close()
	})
}

// TestAgentNotForwarded: a client with no agent to forward to (no -A, or
// the agent cannot be reached) ends the program's connection: it reads
// EOF, at once, rather than hanging.
func TestAgentNotForwarded(t *testing.T) {
	for _, tc := range []struct {
		name string
		dial func() (io.ReadWriteCloser, error)
	}{
		{"no -A", nil},
		{"agent unreachable", func() (io.ReadWriteCloser, error) { return nil, errors.New("no agent here") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				agent := newPipeListener()
				r.startServer(session.ServerConfig{Agent: agent})
				r.startClient(session.ClientConfig{DialAgent: tc.dial})
				r.waitScreen(ready, 2*time.Second)
				c := agent.connect(t)
				go c.Write([]byte("list keys"))
				done := make(chan error, 1)
				go func() { _, err := c.Read(make([]byte, 10)); done <- err }()
				select {
				case err := <-done:
					if !errors.Is(err, io.EOF) {
						t.Errorf("read = %v, want EOF", err)
					}
				case <-time.After(5 * time.Second):
					t.Error("the program's connection neither answered nor ended")
				}
				c.Close()
			})
		})
	}
}

// echoDial is the server's Dial in memory: every destination is an echo
// server.
func echoDial(string) (io.ReadWriteCloser, error) {
	c, srv := net.Pipe()
	go func() {
		io.Copy(srv, srv)
		srv.Close()
	}()
	return c, nil
}

// TestLocalForward: a connection to a -L listener reaches the server's
// side; two megabytes (a quarter under the race detector) go there and
// back intact with a tenth of the datagrams lost each way.
func TestLocalForward(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		rnd := rand.New(rand.NewPCG(1, 2))
		r.setDrop(func(netip.AddrPort, netip.AddrPort) bool { return rnd.Float64() < 0.1 })
		l := newPipeListener()
		var mu sync.Mutex
		var asked []string
		r.startServer(session.ServerConfig{Dial: func(hp string) (io.ReadWriteCloser, error) {
			mu.Lock()
			asked = append(asked, hp)
			mu.Unlock()
			return echoDial(hp)
		}})
		r.startClient(session.ClientConfig{Forwards: []session.Forward{{Name: "-L 5432:db:5432", Listener: l,
			Target: func(io.ReadWriteCloser) (string, error) { return "db:5432", nil }}}})
		r.waitScreen(ready, 5*time.Second)
		c := l.connect(t)
		size := 2 << 20
		if raceEnabled {
			size = 256 << 10
		}
		data := make([]byte, size)
		fill := rand.New(rand.NewPCG(3, 4))
		for i := range data {
			data[i] = byte(fill.Uint32())
		}
		start := time.Now()
		got, err := request(t, c, data, 10*time.Minute)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes through -L: %d bytes back, %v", size, len(got), err)
		}
		t.Logf("%d KiB there and back with 10%% loss each way, 20 ms RTT: %v (virtual time)", size>>10, time.Since(start))
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != 1 || asked[0] != "db:5432" {
			t.Errorf("the server dialled %q, want db:5432 once", asked)
		}
		c.Close()
	})
}

// TestRemoteForward: -R has the server listen; a connection accepted
// there reaches the destination on the client's side, and back. A port
// the server cannot listen on is reported on the notification bar.
func TestRemoteForward(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		l := newPipeListener()
		var mu sync.Mutex
		var listened, dialled []string
		r.startServer(session.ServerConfig{Listen: func(hp string) (session.Listener, error) {
			mu.Lock()
			listened = append(listened, hp)
			mu.Unlock()
			if hp == "127.0.0.1:80" {
				return nil, errors.New("listen tcp 127.0.0.1:80: bind: permission denied")
			}
			return l, nil
		}})
		r.startClient(session.ClientConfig{
			RemoteForwards: []session.RemoteForward{
				{Name: "-R 8080:localhost:3000", Listen: "127.0.0.1:8080", Dest: "localhost:3000"},
				{Name: "-R 80:localhost:3000", Listen: "127.0.0.1:80", Dest: "localhost:3000"},
			},
			DialTCP: func(hp string) (io.ReadWriteCloser, error) {
				mu.Lock()
				dialled = append(dialled, hp)
				mu.Unlock()
				return echoDial(hp)
			}})
		r.waitScreen(ready, 5*time.Second)
		r.waitScreen("-R 80:localhost:3000: listen tcp 127.0.0.1:80: bind: permission denied", 5*time.Second)
		c := l.connect(t)
		if got, err := request(t, c, []byte("via -R"), 5*time.Second); err != nil || string(got) != "via -R" {
			t.Fatalf("through -R: %q, %v", got, err)
		}
		c.Close()
		mu.Lock()
		defer mu.Unlock()
		if len(listened) != 2 || len(dialled) != 1 || dialled[0] != "localhost:3000" {
			t.Errorf("the server listened on %q, the client dialled %q", listened, dialled)
		}
	})
}

// TestForwardPolicy: the server's forwarding policy, as the user sees it.
// By default a -R that asks for every interface listens on the loopback
// address, and the client's notification bar says so; a server that does
// not listen for its clients refuses -R, and one that does not dial for
// them refuses -L, each refusal on the bar. Notices that come at once
// (the -R clamped, the -L refused, in either order) are each shown.
func TestForwardPolicy(t *testing.T) {
	const rName = "-R 0.0.0.0:8080:localhost:3000"
	const clamped = rName + ": the server listens on 127.0.0.1:8080 only"
	for _, tc := range []struct {
		name   string
		policy session.ForwardPolicy
		listen string   // where the server listens, "" nowhere
		bars   []string // each shown on the bar, in any order
		local  bool     // try a -L connection
	}{
		{"default", session.ForwardPolicy{}, "127.0.0.1:8080",
			[]string{clamped}, false},
		{"clientspecified", session.ForwardPolicy{Gateway: session.GatewayClientSpecified}, "0.0.0.0:8080", nil, false},
		{"no remote", session.ForwardPolicy{TCP: session.TCPLocal}, "",
			[]string{rName + ": refused by the server (allow-tcp"}, false},
		{"no local", session.ForwardPolicy{TCP: session.TCPRemote}, "127.0.0.1:8080",
			[]string{clamped, "-L 5432:db:5432: refused by the server (allow-tcp-forwarding remote)"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.quiet = true
				var mu sync.Mutex
				var listened []string
				dialled := 0
				r.startServer(session.ServerConfig{Forwarding: tc.policy,
					Listen: func(hp string) (session.Listener, error) {
						mu.Lock()
						defer mu.Unlock()
						listened = append(listened, hp)
						return newPipeListener(), nil
					},
					Dial: func(hp string) (io.ReadWriteCloser, error) {
						mu.Lock()
						dialled++
						mu.Unlock()
						return echoDial(hp)
					}})
				l := newPipeListener()
				r.startClient(session.ClientConfig{
					RemoteForwards: []session.RemoteForward{{Name: rName, Listen: "0.0.0.0:8080", Dest: "localhost:3000"}},
					Forwards: []session.Forward{{Name: "-L 5432:db:5432", Listener: l,
						Target: func(io.ReadWriteCloser) (string, error) { return "db:5432", nil }}},
					DialTCP: echoDial,
				})
				r.waitScreen(ready, 5*time.Second)
				if tc.local {
					c := l.connect(t)
					done := make(chan error, 1)
					go func() { _, err := c.Read(make([]byte, 1)); done <- err }()
					select {
					case err := <-done:
						if !errors.Is(err, io.EOF) {
							t.Errorf("the refused -L connection read %v, want EOF", err)
						}
					case <-time.After(5 * time.Second):
						t.Error("the refused -L connection was not closed")
					}
					c.Close()
				}
				if len(tc.bars) > 0 {
					seen := make([]bool, len(tc.bars))
					r.waitFor(fmt.Sprintf("%q on the bar", tc.bars), 10*time.Second, func() bool {
						for i, b := range tc.bars {
							seen[i] = seen[i] || r.term.Contains(b)
						}
						return !slices.Contains(seen, false)
					})
				} else {
					time.Sleep(2 * time.Second)
					if r.term.Contains("listens") || r.term.Contains("refused") {
						t.Errorf("a notice on the screen:\n%s", strings.Join(r.term.Screen(), "\n"))
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if want := []string{tc.listen}; tc.listen == "" && len(listened) > 0 || tc.listen != "" && !slices.Equal(listened, want) {
					t.Errorf("the server listened on %q, want %q", listened, tc.listen)
				}
				if dialled != 0 {
					t.Errorf("the server dialled %d times", dialled)
				}
			})
		})
	}
}

// TestAgentBeforeClient: connections to the agent socket before a client
// that forwards is attached are ended at once, and cost no channel: more
// of them than a session has channels leave the agent working once the
// client is there. (They used to keep their count of busy channels, and
// after 256 of them every connection was closed as one too many.)
func TestAgentBeforeClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		agent := newPipeListener()
		r.startServer(session.ServerConfig{Agent: agent})
		for i := range 300 {
			c := agent.connect(t)
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
				t.Fatalf("connection %d before a client: read %v, want EOF", i, err)
			}
			c.Close()
		}
		r.startClient(session.ClientConfig{DialAgent: upperAgent})
		r.waitScreen(ready, 2*time.Second)
		c := agent.connect(t)
		if got, err := request(t, c, []byte("list keys"), 5*time.Second); err != nil || string(got) != "LIST KEYS" {
			t.Fatalf("request once the client is there = %q, %v; want LIST KEYS", got, err)
		}
		c.Close()
	})
}

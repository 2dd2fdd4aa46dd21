package ssp_test

import (
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	gcrypto "github.com/gosh-term/gosh/internal/crypto"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
)

// sessionLoop is the shape of the real session loops (STYLE rule 3): one
// goroutine owns the Transport and the one timer; the Conn's readers feed
// it datagrams; everything else reaches the state through do.
type sessionLoop struct {
	tr   *ssp.Transport[*ssptest.Log, *ssptest.Log]
	conn *ssp.Conn
	do   chan func() // run on the loop goroutine
	stop chan struct{}
	done chan struct{}
}

func startLoop(tr *ssp.Transport[*ssptest.Log, *ssptest.Log], conn *ssp.Conn) *sessionLoop {
	l := &sessionLoop{tr: tr, conn: conn, do: make(chan func()), stop: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *sessionLoop) run() {
	defer close(l.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Now()
		out, err := l.tr.Tick(now)
		if err != nil {
			panic(err)
		}
		if to, ok := l.tr.RemoteAddr(); ok {
			for _, d := range out {
				l.conn.WriteTo(d, to)
			}
		}
		if l.tr.PortHopDue(now) {
			l.conn.Hop()
		}
		wait := time.Hour
		if next := l.tr.NextDeadline(); !next.IsZero() {
			wait = max(next.Sub(now), 0)
		}
		timer.Reset(wait)
		select {
		case d := <-l.conn.Datagrams():
			l.tr.Receive(d.At, d.Data, d.From)
		case f := <-l.do:
			f()
		case <-timer.C:
		case <-l.stop:
			return
		}
	}
}

// query runs f on the loop goroutine and waits for it.
func (l *sessionLoop) query(f func()) {
	ran := make(chan struct{})
	l.do <- func() { f(); close(ran) }
	<-ran
}

func (l *sessionLoop) shutdown() {
	close(l.stop)
	<-l.done
	l.conn.Close()
}

// TestSessionLoopOverConn runs two session loops over Conns on an
// in-memory lossy, reordering network in a synctest bubble: the states
// converge, the server follows the client through a NAT rebinding and
// through a port hop the client makes when the server's replies stop,
// and every goroutine ends (synctest fails on leftovers).
func TestSessionLoopOverConn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := ssptest.NewNetwork()
		r := rand.New(rand.NewPCG(1, 2))
		var mu sync.Mutex // guards r and blackhole
		blackhole := false
		n.Drop = func(from, to netip.AddrPort, _ []byte) bool {
			mu.Lock()
			defer mu.Unlock()
			return r.Float64() < 0.2 || (blackhole && from.Port() == 60001)
		}
		n.Delay = func(netip.AddrPort, netip.AddrPort, []byte) time.Duration {
			mu.Lock()
			defer mu.Unlock()
			return 20*time.Millisecond + time.Duration(r.IntN(30))*time.Millisecond
		}
		srvAddr := netip.MustParseAddrPort("198.51.100.1:60001")
		spc, err := n.Listen(srvAddr)
		if err != nil {
			t.Fatal(err)
		}
		cpc, err := n.Listen(netip.MustParseAddrPort("192.0.2.10:0"))
		if err != nil {
			t.Fatal(err)
		}
		reopen := func() (net.PacketConn, error) { return n.Listen(netip.MustParseAddrPort("192.0.2.10:0")) }
		sconn := ssp.NewConn(spc, nil, t.Logf)
		cconn := ssp.NewConn(cpc, reopen, t.Logf)

		key, _ := gcrypto.NewKey(fixedReader(5))
		now := time.Now()
		str, _ := ssp.NewTransport(ssp.Config{Key: key, Server: true}, ssptest.NewLog(), ssptest.NewLog(), now)
		ctr, _ := ssp.NewTransport(ssp.Config{Key: key, Remote: srvAddr}, ssptest.NewLog(), ssptest.NewLog(), now)
		srv, cli := startLoop(str, sconn), startLoop(ctr, cconn)

		converged := func() bool {
			var c, s *ssptest.Log
			var cRemote, sRemote *ssptest.Log
			cli.query(func() { c, cRemote = ctr.Current().Clone(), ctr.Remote().Clone() })
			srv.query(func() { s, sRemote = str.Current().Clone(), str.Remote().Clone() })
			return sRemote.Equal(c) && cRemote.Equal(s)
		}
		serverTarget := func() (a netip.AddrPort) {
			srv.query(func() { a, _ = str.RemoteAddr() })
			return a
		}
		exchange := func(what string) {
			t.Helper()
			cli.query(func() { ctr.Current().Append([]byte("keys " + what)) })
			srv.query(func() { str.Current().Append([]byte("screen " + what)) })
			time.Sleep(5 * time.Second) // virtual time
			if !converged() {
				t.Fatalf("%s: not converged", what)
			}
		}

		exchange("start")
		if got := serverTarget(); got != cconn.LocalAddr() {
			t.Errorf("server targets %v, want the client at %v", got, cconn.LocalAddr())
		}

		// A NAT rebinding: same socket, new address.
		moved, err := cpc.Rebind(netip.MustParseAddrPort("203.0.113.9:0"))
		if err != nil {
			t.Fatal(err)
		}
		exchange("after rebinding")
		if got := serverTarget(); got != moved {
			t.Errorf("after rebinding, server targets %v, want %v", got, moved)
		}

		// The server's replies vanish; the client hops to a new port.
		before := cconn.LocalAddr()
		mu.Lock()
		blackhole = true
		mu.Unlock()
		time.Sleep(25 * time.Second)
		mu.Lock()
		blackhole = false
		mu.Unlock()
		hopped := cconn.LocalAddr()
		if hopped == before {
			t.Fatalf("the client did not hop in 25 s without replies (still %v)", before)
		}
		exchange("after hopping")
		if got := serverTarget(); got.Port() == before.Port() || got.Addr() != hopped.Addr() {
			t.Errorf("after hopping, server targets %v, want the hopped socket %v", got, cconn.LocalAddr())
		}

		srv.shutdown()
		cli.shutdown()
	})
}

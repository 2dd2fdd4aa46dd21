//go:build unix

package sshlink

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// startSSH runs a server for argv on a fresh network with the given
// one-way delay, and dials it with a cols×rows terminal. Everything is
// closed when the test ends.
func startSSH(t *testing.T, delay time.Duration, argv []string, cols, rows int) *Client {
	t.Helper()
	n := newTestNet(t, delay, 0, 1)
	l, err := n.Listen(testPort)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(l, ServerConfig{
		Argv: argv,
		Env:  []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"},
		Logf: t.Logf,
	})
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c := dialClient(t, n, "xterm-256color", cols, rows)
	t.Cleanup(func() { c.Close() })
	return c
}

// dialClient dials the test server on n and opens a session with a
// cols×rows terminal of the given type, within 10 s. The caller closes it.
func dialClient(t *testing.T, n *Net, term string, cols, rows int) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := n.Dial(ctx, testPort)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	c, err := Dial(conn, term, cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Time{})
	return c
}

// chunk is output read from the client, with the time it arrived.
type chunk struct {
	b  []byte
	at time.Time
}

// readChunks reads c.Stdout on a goroutine until it fails, which Close
// makes it do.
func readChunks(t *testing.T, c *Client) <-chan chunk {
	out := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		buf := make([]byte, 4096)
		for {
			n, err := c.Stdout.Read(buf)
			if n > 0 {
				out <- chunk{b: slices.Clone(buf[:n]), at: time.Now()}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		c.Close()
		<-done
	})
	return out
}

// waitFor reads chunks until the output seen so far contains want, and
// returns the arrival time of the chunk that completed it (now, if seen
// already held it).
func waitFor(t *testing.T, out <-chan chunk, seen *bytes.Buffer, want string) time.Time {
	t.Helper()
	if strings.Contains(seen.String(), want) {
		return time.Now()
	}
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ch, ok := <-out:
			if !ok {
				t.Fatalf("output ended before %q; got %q", want, seen)
			}
			seen.Write(ch.b)
			if strings.Contains(seen.String(), want) {
				return ch.at
			}
		case <-timeout.C:
			t.Fatalf("no %q after 10s; got %q", want, seen)
		}
	}
}

// TestTypingLatency types single keys, pausing between them, into a
// program that echoes each byte, over a network with a 25 ms one-way
// delay: each echo must take about one round trip.
func TestTypingLatency(t *testing.T) {
	checkLeaks(t)
	const (
		delay = 25 * time.Millisecond
		rtt   = 2 * delay
		slack = 30 * time.Millisecond
		keys  = "abcdefghijklmnopqrst"
	)
	c := startSSH(t, delay, []string{"sh", "-c", "stty raw -echo; echo ready; exec cat"}, 80, 24)
	out := readChunks(t, c)
	var seen bytes.Buffer
	waitFor(t, out, &seen, "ready\n")

	var lat []time.Duration
	for _, k := range keys {
		seen.Reset()
		sent := time.Now()
		if _, err := c.Stdin.Write([]byte{byte(k)}); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, waitFor(t, out, &seen, string(k)).Sub(sent))
		time.Sleep(10 * time.Millisecond) // a pause between keystrokes, not synchronisation
	}
	slices.Sort(lat)
	median := lat[len(lat)/2]
	t.Logf("echo latency over a %v RTT: min %v, median %v, max %v", rtt, lat[0], median, lat[len(lat)-1])
	if lat[0] < rtt {
		t.Errorf("fastest echo took %v, less than the %v round trip", lat[0], rtt)
	}
	if median > rtt+slack {
		t.Errorf("median echo took %v, want at most %v", median, rtt+slack)
	}
}

// TestTerminal checks that the program sees the terminal the client asked
// for, its TERM, its resizes, and that its exit ends the session.
func TestTerminal(t *testing.T) {
	checkLeaks(t)
	script := `echo "term=$TERM"; stty size; while read x; do [ "$x" = q ] && exit 3; stty size; done`
	c := startSSH(t, time.Millisecond, []string{"sh", "-c", script}, 100, 30)
	out := readChunks(t, c)
	var seen bytes.Buffer
	waitFor(t, out, &seen, "term=xterm-256color")
	waitFor(t, out, &seen, "30 100")

	if err := c.Resize(120, 40); err != nil {
		t.Fatal(err)
	}
	// The resize and the typing travel separately inside the server, so
	// type until the program reports the new size.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(seen.String(), "40 120") {
		if time.Now().After(deadline) {
			t.Fatalf("no new size after 10s; got %q", seen.String())
		}
		c.Stdin.Write([]byte("\n"))
		select {
		case ch := <-out:
			seen.Write(ch.b)
		case <-time.After(100 * time.Millisecond):
		}
	}

	c.Stdin.Write([]byte("q\n"))
	waited := make(chan error, 1)
	go func() { waited <- c.Wait() }()
	select {
	case err := <-waited:
		// The program exited with 3, but internal/pty does not report
		// exit codes: the server says 0.
		if err != nil {
			t.Errorf("Wait: %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end 10s after the program exited")
	}
}

// TestClientCloseOverDeadLink checks that Close returns while a write is
// blocked in a connection that moves nothing (the link toward the server
// drops every packet, so the TCP send buffer fills and stays full):
// closing the session first waited for that write forever.
func TestClientCloseOverDeadLink(t *testing.T) {
	checkLeaks(t)
	var up *delayLink
	n, err := NewNet(func(deliver func([]byte)) Link {
		up = newDelayLink(deliver, time.Millisecond, 0, 1)
		return up
	}, func(deliver func([]byte)) Link {
		return newDelayLink(deliver, time.Millisecond, 0, 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.Close()
		up.close()
	})
	down := n.server.link.(*delayLink)
	t.Cleanup(down.close)
	l, err := n.Listen(testPort)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(l, ServerConfig{Argv: []string{"cat"}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := dialClient(t, n, "dumb", 80, 24)
	go io.Copy(io.Discard, c.Stdout)
	up.setLoss(1)
	wrote := make(chan error, 1)
	go func() {
		_, err := c.Stdin.Write(make([]byte, 2<<20)) // more than the send buffer holds
		wrote <- err
	}()
	select {
	case err := <-wrote:
		t.Fatalf("a write of 2 MiB over a dead link returned (%v)", err)
	case <-time.After(time.Second): // blocked, as it stays
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		n.Close() // unblocks it, for the leak check
		t.Fatal("Client.Close did not return within 10s")
	}
	select {
	case err := <-wrote:
		if err == nil {
			t.Error("the write succeeded after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write was still blocked 10s after Close")
	}
}

// TestServerCloseEndsSessions checks that closing the server hangs up a
// program that would otherwise run forever, and ends the client's output.
func TestServerCloseEndsSessions(t *testing.T) {
	checkLeaks(t)
	n := newTestNet(t, time.Millisecond, 0, 1)
	l, err := n.Listen(testPort)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(l, ServerConfig{Argv: []string{"cat"}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	c := dialClient(t, n, "dumb", 80, 24)
	defer c.Close()
	out := readChunks(t, c)
	var seen bytes.Buffer
	c.Stdin.Write([]byte("hello"))
	waitFor(t, out, &seen, "hello") // cat runs, its terminal echoes

	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Server.Close did not return within 10s")
	}
	for range out { // ends once the client sees the connection go
	}
}

// TestServerCloseEndsForwards checks that closing the server ends a
// forwarded connection whose destination takes nothing more: the copy
// into it blocked in a write, the copy out of it in a read. (The echo of
// gosh bench forward --typing stops reading when the way back is full; a
// server that waited for its copies hung the benchmark.)
func TestServerCloseEndsForwards(t *testing.T) {
	checkLeaks(t)
	n := newTestNet(t, time.Millisecond, 0, 1)
	l, err := n.Listen(testPort)
	if err != nil {
		t.Fatal(err)
	}
	peers := make(chan net.Conn, 1)
	srv, err := StartServer(l, ServerConfig{Argv: []string{"cat"}, Env: []string{"PATH=" + os.Getenv("PATH")},
		Forward: func(string) (io.ReadWriteCloser, error) {
			dst, peer := net.Pipe()
			peers <- peer
			return dst, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	c := dialClient(t, n, "dumb", 80, 24)
	defer c.Close()
	fc, err := c.DialTCP("127.0.0.1:7")
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	var peer net.Conn
	select {
	case peer = <-peers:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not dial the forward within 10s")
	}
	defer peer.Close()
	if _, err := fc.Write([]byte("ab")); err != nil {
		t.Fatal(err)
	}
	// The server writes "ab" to the destination, which takes "a" and no
	// more: its copy stays blocked writing "b".
	if _, err := io.ReadFull(peer, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}

	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Server.Close did not return within 10s")
	}
}

// TestServerOutputObserved: ServerConfig.Output sees the program's output
// as the server reads it, before it reaches the client.
func TestServerOutputObserved(t *testing.T) {
	checkLeaks(t)
	n := newTestNet(t, 0, 0, 1)
	l, err := n.Listen(testPort)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var observed bytes.Buffer
	srv, err := StartServer(l, ServerConfig{
		Argv: []string{"sh", "-c", "stty raw -echo; echo ready; exec cat"},
		Env:  []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"},
		Logf: t.Logf,
		Output: func(p []byte) {
			mu.Lock()
			defer mu.Unlock()
			observed.Write(p)
		},
	})
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c := dialClient(t, n, "xterm-256color", 80, 24)
	t.Cleanup(func() { c.Close() })
	out := readChunks(t, c)
	var seen bytes.Buffer
	waitFor(t, out, &seen, "ready\n")
	if _, err := c.Stdin.Write([]byte("typed")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, &seen, "typed")
	mu.Lock()
	got := observed.String()
	mu.Unlock()
	if got != seen.String() {
		t.Errorf("Output saw %q; the client got %q", got, seen.String())
	}
}

package sshlink

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
)

const testPort = 22

// TestStream sends a megabyte to an echo server over a clean network and
// checks that it comes back intact.
func TestStream(t *testing.T) {
	checkLeaks(t)
	n := newTestNet(t, 5*time.Millisecond, 0, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	data := testData(1 << 20)
	r := echoStream(ctx, n, data)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, want := sha256.Sum256(r.got), sha256.Sum256(data); got != want {
		t.Errorf("echoed %d bytes with SHA-256 %x, want %d bytes with %x", len(r.got), got, len(data), want)
	}
	t.Logf("%d bytes there and back in %v", len(data), r.elapsed.Round(time.Millisecond))
}

// TestStreamLossy sends bytes to echo servers over networks that lose 30%
// of the packets each way. TCP's recovery time there has a heavy tail
// (each retransmission succeeds with probability 0.49, and the timeout
// doubles after each failure), so several streams run side by side:
// whatever arrives must be exactly what was sent, and a third of the
// streams must have echoed all their bytes within the budget. (Typically
// three quarters do; the rest are stuck in exponential backoff.)
func TestStreamLossy(t *testing.T) {
	checkLeaks(t)
	const (
		streams = 12
		size    = 8 << 10
		budget  = 15 * time.Second
		loss    = 0.3
	)
	nets := make([]*Net, streams)
	for i := range nets {
		nets[i] = newTestNet(t, 5*time.Millisecond, loss, uint64(2*i+1))
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	data := testData(size)
	results := make([]streamResult, streams)
	var wg sync.WaitGroup
	for i, n := range nets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = echoStream(ctx, n, data)
		}()
	}
	wg.Wait()
	complete := 0
	for i, r := range results {
		if !bytes.Equal(r.got, data[:len(r.got)]) {
			t.Errorf("stream %d: the %d bytes echoed differ from those sent", i, len(r.got))
		}
		if len(r.got) == size {
			complete++
		}
		t.Logf("stream %d: %d of %d bytes back in %v (err %v)", i, len(r.got), size, r.elapsed.Round(time.Millisecond), r.err)
	}
	if complete < streams/3 {
		t.Errorf("%d of %d streams finished within %v, want at least %d", complete, streams, budget, streams/3)
	}
}

// TestStreamReordered sends two megabytes to an echo server and back over
// 8 Mbit/s links that reorder packets (up to 10 ms of jitter each way),
// as a busy machine's late timers or Wine's coarse ones do to the
// benchmark's links. Every reordering looks like a loss to the sender, so
// congestion events come one after another; TCP must keep moving through
// them. The gVisor before google/gvisor#13958 let CUBIC's per-ACK update
// lower its window, down to zero within a second or two here: a sender
// with nothing in flight then never sent again (gosh bench forward
// --typing wedged so). A read that waits 10 s is that wedge.
func TestStreamReordered(t *testing.T) {
	checkLeaks(t)
	const size, wedged = 2 << 20, 10 * time.Second
	cfg := linkem.Config{Rate: 8e6, Queue: 100, Delay: 500 * time.Microsecond, Jitter: 10 * time.Millisecond, Reorder: true}
	n := newPipeNet(t, cfg, 1)
	l, err := n.Listen(testPort)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go echoOnce(ctx, l)
	c, err := n.Dial(ctx, testPort)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := testData(size)
	go c.Write(data) // ends with an error when c closes, if not before
	got := make([]byte, 0, size)
	start := time.Now()
	last := start // when the last bytes came back
	buf := make([]byte, 64<<10)
	for len(got) < size {
		c.SetReadDeadline(time.Now().Add(wedged))
		k, err := c.Read(buf[:min(len(buf), size-len(got))])
		if k > 0 {
			got, last = append(got, buf[:k]...), time.Now()
		}
		if err != nil {
			t.Fatalf("%d of %d bytes back within %v, then nothing for %v: %v", len(got), size, last.Sub(start).Round(time.Millisecond), wedged, err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatal("the bytes echoed differ from those sent")
	}
	t.Logf("%d bytes there and back in %v", size, time.Since(start).Round(time.Millisecond))
}

// testData returns size pseudo-random bytes.
func testData(size int) []byte {
	data := make([]byte, size)
	rand.NewChaCha8([32]byte{7}).Read(data)
	return data
}

// streamResult is what came back from echoStream.
type streamResult struct {
	got     []byte // the bytes echoed, up to all of them or the deadline
	err     error  // nil if all came back
	elapsed time.Duration
}

// echoStream starts an echo server on n, writes data to it and reads the
// echo until it has all of it or ctx's deadline passes. The connection
// stays open throughout (gVisor sends no SACK blocks once it has sent its
// FIN, so a half-close would slow recovery). Safe to call from any
// goroutine.
func echoStream(ctx context.Context, n *Net, data []byte) streamResult {
	start := time.Now()
	l, err := n.Listen(testPort)
	if err != nil {
		return streamResult{err: err}
	}
	defer l.Close()
	echoed := make(chan struct{})
	go func() {
		defer close(echoed)
		echoOnce(ctx, l)
	}()
	defer func() { <-echoed }()

	c, err := n.Dial(ctx, testPort)
	if err != nil {
		return streamResult{err: err, elapsed: time.Since(start)}
	}
	defer c.Close()
	if d, ok := ctx.Deadline(); ok {
		c.SetDeadline(d)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := c.Write(data)
		wrote <- err
	}()
	got := make([]byte, len(data))
	nr, err := io.ReadFull(c, got)
	r := streamResult{got: got[:nr], err: err, elapsed: time.Since(start)}
	c.Close() // unblocks the writer if reading failed, and ends the echo
	if werr := <-wrote; r.err == nil {
		r.err = werr
	}
	l.Close() // unblocks the echo server if no connection came
	return r
}

// echoOnce accepts one connection and echoes it until it ends or ctx's
// deadline passes.
func echoOnce(ctx context.Context, l net.Listener) {
	c, err := l.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	if d, ok := ctx.Deadline(); ok {
		c.SetDeadline(d)
	}
	io.Copy(c, c)
}

// TestNoDelay checks that Nagle's algorithm is off: a second small write
// leaves at once, not after the first one's acknowledgement has come back.
func TestNoDelay(t *testing.T) {
	checkLeaks(t)
	const delay = 40 * time.Millisecond
	n := newTestNet(t, delay, 0, 1)
	l, err := n.Listen(testPort)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := n.Dial(ctx, testPort)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetDeadline(time.Now().Add(10 * time.Second))

	start := time.Now()
	for _, b := range []string{"a", "b"} {
		if _, err := c.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.ReadFull(s, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	// With Nagle, "b" would wait for the ACK of "a": two one-way delays.
	if got, limit := time.Since(start), delay*3/2; got > limit {
		t.Errorf("two small writes arrived after %v, want under %v (one one-way delay of %v)", got, limit, delay)
	}
}

// TestCongestionControl checks the algorithm the report names.
func TestCongestionControl(t *testing.T) {
	checkLeaks(t)
	n := newTestNet(t, 0, 0, 1)
	if got, want := n.CongestionControl(), "cubic"; got != want {
		t.Errorf("CongestionControl() = %q, want %q", got, want)
	}
}

// TestClose checks that closing a listener or the whole network unblocks
// Accept and Read, the listener with net.ErrClosed.
func TestClose(t *testing.T) {
	checkLeaks(t)
	n := newTestNet(t, time.Millisecond, 0, 1)
	l, err := n.Listen(testPort)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := n.Dial(ctx, testPort)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()

	acceptErr := make(chan error, 1)
	go func() {
		_, err := l.Accept()
		acceptErr <- err
	}()
	l.Close()
	if err := <-acceptErr; !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
	}

	readErr := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		readErr <- err
	}()
	n.Close()
	select {
	case err := <-readErr:
		if err == nil {
			t.Errorf("Read after Net.Close succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked 5s after Net.Close")
	}
}

package bootstrap

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
)

// keepaliveRequest is the global request OpenSSH's client sends as a
// keepalive; servers answer it (with a failure, as they do not know it),
// and the answer is traffic from the server, which is all it needs.
const keepaliveRequest = "keepalive@openssh.com"

// readClock is a connection that counts what it reads, so that keepalives
// are sent only when the server has been silent.
type readClock struct {
	net.Conn
	reads atomic.Uint64 // successful reads so far
}

func (c *readClock) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.reads.Add(1)
	}
	return n, err
}

// keepAlive applies ServerAliveInterval and ServerAliveCountMax to c, whose
// transport is rc, as ssh applies them: after each interval in which
// nothing came from the server it asks for an answer, and when more than
// countMax such intervals pass in a row it calls timedOut and closes c.
// It ends when c closes; the returned stop waits for that, so call it
// after closing c.
func keepAlive(c ssh.Conn, rc *readClock, interval time.Duration, countMax int, timedOut func()) (stop func()) {
	done, closed := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	var asking atomic.Bool
	wg.Add(2)
	go func() {
		defer wg.Done()
		c.Wait()
		close(closed)
	}()
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		seen, silent := rc.reads.Load(), 0
		for {
			select {
			case <-done:
				return
			case <-closed:
				return
			case <-t.C:
			}
			if n := rc.reads.Load(); n != seen {
				seen, silent = n, 0
				continue
			}
			silent++
			if silent > countMax {
				timedOut()
				c.Close()
				return
			}
			if asking.Swap(true) {
				continue // the last question is still unanswered
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.SendRequest(keepaliveRequest, true, nil) // an error means c is closed, which ends the loop
				asking.Store(false)
			}()
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}

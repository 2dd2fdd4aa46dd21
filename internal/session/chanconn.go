package session

// The goroutines of the channels' local connections: the listeners'
// accepting loops, each connection's reader and writer, and the events
// they report to the session loop, which alone owns the channels
// (channels.go).

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gosh-term/gosh/internal/netaddr"
)

// chanEvent is what a channel's goroutines report to the loop: an
// evAccepted from a listener, or, about one channel, an evDialed, evData,
// evEOF, evWrote or evWriteDone.
type chanEvent interface {
	channel() chanRef
}

// chanRef names the channel an event is about, and the channels'
// generation when its goroutine started: an event of an earlier
// generation (a session taken over or resumed since) is stale.
type chanRef struct {
	id  uint32
	gen uint64
}

func (r chanRef) channel() chanRef { return r }

// evAccepted: a listener accepted conn for service (no channel yet).
type evAccepted struct {
	chanRef
	service string // what the channel to open is for
	label   string // the forward that accepted it, for the user
	anyGen  bool   // from a listener of the whole session: valid in every generation
	conn    io.ReadWriteCloser
}

// evDialed: the dial of a channel ended, with conn, or for a listening
// channel listener, or err.
type evDialed struct {
	chanRef
	conn     io.ReadWriteCloser
	listener Listener
	err      error
}

// close closes what the dial opened.
func (ev evDialed) close() {
	if ev.conn != nil {
		ev.conn.Close()
	}
	if ev.listener != nil {
		ev.listener.Close()
	}
}

// evData: bytes read from a channel's connection.
type evData struct {
	chanRef
	data []byte
}

// evEOF: a channel's connection has no more to read; err if it ended
// badly.
type evEOF struct {
	chanRef
	err error
}

// evWrote: n bytes written to a channel's connection.
type evWrote struct {
	chanRef
	n int
}

// evWriteDone: a channel's writer has finished.
type evWriteDone struct {
	chanRef
}

// listenService accepts connections from l until it is closed or the
// session ends; each one is opened as a channel for the service that
// service returns for it (it may read from the connection first: a SOCKS
// handshake, given handshakeTimeout). label names the forward for the
// user. A listener of the whole session (anyGen) outlives resets; one of
// a listening channel is closed by its channel's end.
func (cs *channels) listenService(l Listener, label string, anyGen bool, service func(io.ReadWriteCloser) (string, error)) {
	gen := cs.gen
	go func() {
		var pause time.Duration
		for {
			c, err := l.Accept()
			if err != nil {
				if errors.Is(err, netaddr.ErrClosed) {
					return
				}
				if pause == 0 {
					cs.logf.Printf("channels: %s: accept: %v; trying again", label, err)
				}
				pause = min(max(2*pause, acceptRetryMin), acceptRetryMax)
				select {
				case <-time.After(pause):
					continue
				case <-cs.done:
					return
				}
			}
			pause = 0
			if int(cs.busy.Add(1)) > maxChannels {
				cs.busy.Add(-1)
				cs.logf.Printf("channels: %s: %d channels open; closing a new connection", label, maxChannels)
				c.Close()
				continue
			}
			go cs.accept(c, gen, anyGen, label, service)
		}
	}()
}

// accept learns the service of a connection l accepted, within
// handshakeTimeout, and reports it to the loop, which takes over the busy
// count it holds.
func (cs *channels) accept(c io.ReadWriteCloser, gen uint64, anyGen bool, label string, service func(io.ReadWriteCloser) (string, error)) {
	timer := time.AfterFunc(handshakeTimeout, func() { c.Close() })
	s, err := service(c)
	if !timer.Stop() {
		err = fmt.Errorf("no destination within %v", handshakeTimeout)
	}
	if err != nil {
		cs.busy.Add(-1)
		cs.logf.Printf("channels: %s: %v", label, err)
		c.Close()
		return
	}
	if !cs.report(evAccepted{chanRef: chanRef{gen: gen}, service: s, label: label, anyGen: anyGen, conn: c}) {
		c.Close()
	}
}

// fixed is a service function for a listener of one service.
func fixed(service string) func(io.ReadWriteCloser) (string, error) {
	return func(io.ReadWriteCloser) (string, error) { return service, nil }
}

// report hands ev to the loop; it reports false once the session ended.
func (cs *channels) report(ev chanEvent) bool {
	select {
	case cs.events <- ev:
		return true
	case <-cs.done:
		return false
	}
}

// attach starts the goroutines of ch's local connection.
func (cs *channels) attach(ch *channel, c io.ReadWriteCloser) {
	ch.conn = c
	go cs.read(ch.id, cs.gen, c, ch.more)
	go cs.write(ch.id, cs.gen, c, ch.writes)
}

// read is a channel's reader: one chunk at a time, each after the loop
// let it (credit permitting). The loop closes more when it forgets the
// channel.
func (cs *channels) read(id uint32, gen uint64, c io.Reader, more <-chan struct{}) {
	buf := make([]byte, chanChunk)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if !cs.report(evData{chanRef{id, gen}, append([]byte(nil), buf[:n]...)}) {
				return
			}
			select {
			case _, ok := <-more:
				if !ok {
					return
				}
			case <-cs.done:
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			cs.report(evEOF{chanRef{id, gen}, err})
			return
		}
	}
}

// write is a channel's writer: it writes what the peer sent, reporting
// each write (for credit); a nil chunk ends the writing side, as does the
// queue's stop.
func (cs *channels) write(id uint32, gen uint64, c io.WriteCloser, q *writeQueue) {
	defer cs.report(evWriteDone{chanRef{id, gen}})
	for {
		b, ok := q.next(cs.done)
		if !ok {
			return
		}
		if b == nil {
			// The peer has no more: the program reads EOF. A
			// connection that cannot half-close is closed.
			if cw, ok := c.(interface{ CloseWrite() error }); ok {
				cw.CloseWrite()
			} else {
				c.Close()
			}
			return
		}
		n, err := c.Write(b)
		if !cs.report(evWrote{chanRef{id, gen}, n}) || err != nil {
			return
		}
	}
}

// writeQueue hands chunks from the loop, which must not block, to a
// writer. What it holds is bounded by the channel's credit: at most
// ChannelWindow bytes, in non-empty chunks.
type writeQueue struct {
	mu      sync.Mutex
	q       [][]byte
	stopped bool
	signal  chan struct{}
}

func newWriteQueue() *writeQueue { return &writeQueue{signal: make(chan struct{}, 1)} }

// put queues b (nil: the end).
func (w *writeQueue) put(b []byte) {
	w.mu.Lock()
	w.q = append(w.q, b)
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// stop ends the writer: next reports false from now on.
func (w *writeQueue) stop() {
	w.mu.Lock()
	w.stopped, w.q = true, nil
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// next waits for the next chunk; ok is false once done is closed or the
// queue stopped.
func (w *writeQueue) next(done <-chan struct{}) (b []byte, ok bool) {
	for {
		w.mu.Lock()
		if w.stopped {
			w.mu.Unlock()
			return nil, false
		}
		if len(w.q) > 0 {
			b, w.q = w.q[0], w.q[1:]
			w.mu.Unlock()
			return b, true
		}
		w.mu.Unlock()
		select {
		case <-w.signal:
		case <-done:
			return nil, false
		}
	}
}

package session

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/gosh-term/gosh/internal/vt"
)

// Forwarding over gosh channels (docs/protocol.md section 12.2): a
// connection accepted or dialled on one side is a channel whose
// messages (open, data, close, credit) travel in the two synchronised
// states, so they survive loss, roaming and outages as the screen does.
// The session loops own the channels; the local connections are read and
// written by goroutines of their own, which report to the loop.

// capChannels is the gosh_caps bit of a peer that takes channel messages.
// It lies above the display capabilities (vt.Caps).
const capChannels = 1 << 32

// ServiceAgent is the service of an agent forwarding channel.
const ServiceAgent = "agent"

// Listener accepts the local connections a session forwards to its peer
// (the server's agent socket).
type Listener interface {
	// Accept waits for the next connection; after Close it returns an
	// error.
	Accept() (io.ReadWriteCloser, error)
	Close() error
}

// maxChannels bounds the channels open at once, so that a peer (even one
// with the key) cannot make this side hold unbounded connections and
// goroutines; an open beyond it is refused, and a local connection beyond
// it is closed.
const maxChannels = 256

// chanChunk is the most a channel's reader takes from its connection at
// once, and so the largest data message.
const chanChunk = 16 << 10

// chanInFlight bounds the channel data in the local state that the peer
// has not acknowledged, all channels together: about what a channel
// carries per round trip. SSP sends a state's diff as one instruction,
// which counts only if every fragment arrives, so more in flight is not
// always better; measured in the rig (2 MiB there and back over a 20 ms
// round trip): 4 KiB took 19 s without loss and 116 s at 10 % loss each
// way, 8 KiB 10 s and 84 s, 16 KiB 5.4 s and 61 s, 32 KiB 2.6 s and
// 64 s. Beyond it the sender's own window (pathDelay) holds frames
// back. The peer's credit (vt.ChannelWindow) bounds what is buffered at
// its end.
const chanInFlight = 32 << 10

// chanEvent is what a channel's goroutines report to the loop.
type chanEvent struct {
	id        uint32
	accepted  string             // a connection was accepted for this service (id 0)
	dialed    bool               // the dial of channel id ended: conn or err
	conn      io.ReadWriteCloser // accepted or dialled
	listener  Listener           // for a listening channel: what its dial opened
	err       error              // the dial failed, or the connection ended badly
	data      []byte             // read from the connection
	eof       bool               // the connection has no more to read
	wrote     int                // bytes written to the connection
	writeDone bool               // the writer has finished
}

// channel is one forwarded connection. It is forgotten, and its
// connection closed, once both directions are done: our Close sent (what
// the connection had to say has gone) and the writer finished (what the
// peer had to say was written, after its Close).
type channel struct {
	id        uint32
	conn      io.ReadWriteCloser // nil while dialling
	credit    int64              // data bytes the peer still takes
	allowed   int64              // data bytes we still take from the peer
	pending   []byte             // read, waiting for credit
	more      chan struct{}      // lets the reader take its next chunk
	writes    *writeQueue        // to the writer; nil ends the writing side
	written   int                // written since the last credit we granted
	listening bool               // a listening channel (-R): no data, its connections open channels of their own
	listener  Listener           // its listener, once open
	readEOF   bool               // the connection has no more to read
	sentClose bool               // we sent Close
	gotClose  bool               // the peer sent Close
	writeDone bool               // the writer has finished
}

// channels are a session's forwarded connections.
type channels struct {
	push   func(vt.ChannelMsg) // appends to the local state
	sent   func() int          // channel data bytes in the local state not yet acknowledged
	dial   func(service string) (func() (io.ReadWriteCloser, error), bool)
	listen func(addr string) (func() (Listener, error), bool) // for "listen:" channels; nil refuses them
	closed func(id uint32, why string)                        // the peer closed a channel, saying why; may be nil
	logf   func(string, ...any)
	events chan chanEvent
	done   chan struct{}
	byID   map[uint32]*channel
	nextID uint32 // odd on the server, even on the client
}

// newChannels returns a session's channels. push appends a message to the
// local state; dial says how to reach a service the peer opens, and
// whether this side forwards it at all (a peer cannot open what the user
// did not ask for).
func newChannels(server bool, push func(vt.ChannelMsg), sent func() int, dial func(string) (func() (io.ReadWriteCloser, error), bool), logf func(string, ...any)) *channels {
	cs := &channels{push: push, sent: sent, dial: dial, logf: logf, events: make(chan chanEvent, 16),
		done: make(chan struct{}), byID: map[uint32]*channel{}, nextID: 2}
	if server {
		cs.nextID = 1
	}
	return cs
}

// listenService accepts connections from l until it fails or the session ends;
// each one is opened as a channel for the service that service returns
// for it (it may read from the connection first: a SOCKS handshake).
func (cs *channels) listenService(l Listener, service func(io.ReadWriteCloser) (string, error)) {
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				s, err := service(c)
				if err != nil {
					cs.logf("channels: %v", err)
					c.Close()
					return
				}
				if !cs.report(chanEvent{accepted: s, conn: c}) {
					c.Close()
				}
			}()
		}
	}()
}

// fixed is a service function for a listener of one service.
func fixed(service string) func(io.ReadWriteCloser) (string, error) {
	return func(io.ReadWriteCloser) (string, error) { return service, nil }
}

// Remote forwarding (-R): the client opens a channel for
// ServiceListen(addr); the server listens there, and opens a channel for
// ServiceForwarded(that channel's id) for each connection it accepts, which
// the client dials to the destination the user gave.

// ServiceListen is the service of a listening channel: the peer listens
// on the TCP address "host:port".
func ServiceListen(hostPort string) string { return "listen:" + hostPort }

// serviceForwarded is the service of a connection accepted by listening
// channel id.
func serviceForwarded(id uint32) string { return "forwarded:" + strconv.FormatUint(uint64(id), 10) }

// openListen opens a listening channel: the peer listens on hostPort. It
// returns the channel's id, which the peer's connections name.
func (cs *channels) openListen(hostPort string) uint32 {
	id := cs.nextID
	cs.nextID += 2
	ch := cs.add(id)
	ch.listening = true
	cs.push(vt.ChannelMsg{ID: id, Kind: vt.ChannelOpen, Data: []byte(ServiceListen(hostPort))})
	return id
}

// ServiceTCP is the service of a channel to a TCP destination
// "host:port", opened by the client (-L, -D) and dialled by the server.
func ServiceTCP(hostPort string) string { return "tcp:" + hostPort }

// report hands ev to the loop; it reports false once the session ended.
func (cs *channels) report(ev chanEvent) bool {
	select {
	case cs.events <- ev:
		return true
	case <-cs.done:
		return false
	}
}

// open opens a channel to the peer for service over the local connection
// c.
func (cs *channels) open(service string, c io.ReadWriteCloser) {
	id := cs.nextID
	cs.nextID += 2
	ch := cs.add(id)
	cs.push(vt.ChannelMsg{ID: id, Kind: vt.ChannelOpen, Data: []byte(service)})
	cs.attach(ch, c)
}

// add records a new channel with the initial windows.
func (cs *channels) add(id uint32) *channel {
	ch := &channel{id: id, credit: vt.ChannelWindow, allowed: vt.ChannelWindow,
		more: make(chan struct{}, 1), writes: newWriteQueue()}
	cs.byID[id] = ch
	return ch
}

// attach starts the goroutines of ch's local connection.
func (cs *channels) attach(ch *channel, c io.ReadWriteCloser) {
	ch.conn = c
	go cs.read(ch.id, c, ch.more)
	go cs.write(ch.id, c, ch.writes)
}

// read is a channel's reader: one chunk at a time, each after the loop
// let it (credit permitting).
func (cs *channels) read(id uint32, c io.Reader, more <-chan struct{}) {
	buf := make([]byte, chanChunk)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if !cs.report(chanEvent{id: id, data: append([]byte(nil), buf[:n]...)}) {
				return
			}
			select {
			case <-more:
			case <-cs.done:
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			cs.report(chanEvent{id: id, eof: true, err: err})
			return
		}
	}
}

// write is a channel's writer: it writes what the peer sent, reporting
// each write (for credit); a nil chunk ends the writing side.
func (cs *channels) write(id uint32, c io.WriteCloser, q *writeQueue) {
	defer cs.report(chanEvent{id: id, writeDone: true})
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
		if !cs.report(chanEvent{id: id, wrote: n}) || err != nil {
			return
		}
	}
}

// writeQueue hands chunks from the loop, which must not block, to a
// writer. What it holds is bounded by the channel's credit: at most
// ChannelWindow bytes, in non-empty chunks.
type writeQueue struct {
	mu     sync.Mutex
	q      [][]byte
	signal chan struct{}
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

// next waits for the next chunk; ok is false once done is closed.
func (w *writeQueue) next(done <-chan struct{}) (b []byte, ok bool) {
	for {
		w.mu.Lock()
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

// receiveOpen acts on the peer's opening of channel m.ID: a listening
// channel, a connection dialled for a service this side offers, or a
// refusal.
func (cs *channels) receiveOpen(m vt.ChannelMsg) {
	if len(cs.byID) >= maxChannels {
		cs.logf("channels: refused a channel for %q: %d open", m.Data, len(cs.byID))
		cs.push(vt.ChannelMsg{ID: m.ID, Kind: vt.ChannelClose, Data: []byte("too many channels")})
		return // not recorded: its messages find no channel
	}
	if addr, ok := strings.CutPrefix(string(m.Data), "listen:"); ok && cs.listen != nil {
		if open, ok := cs.listen(addr); ok {
			ch := cs.add(m.ID)
			ch.listening = true
			go func() {
				l, err := open()
				if !cs.report(chanEvent{id: m.ID, dialed: true, listener: l, err: err}) && l != nil {
					l.Close()
				}
			}()
			return
		}
	}
	dial, ok := cs.dial(string(m.Data))
	if !ok {
		cs.logf("channels: refused a channel for %q", m.Data)
		cs.push(vt.ChannelMsg{ID: m.ID, Kind: vt.ChannelClose, Data: []byte("not forwarded")})
		cs.byID[m.ID] = &channel{id: m.ID, sentClose: true, writeDone: true} // until the peer's Close
		return
	}
	cs.add(m.ID)
	go func() {
		c, err := dial()
		if !cs.report(chanEvent{id: m.ID, dialed: true, conn: c, err: err}) && c != nil {
			c.Close()
		}
	}()
}

// receive acts on a message from the peer.
func (cs *channels) receive(m vt.ChannelMsg) {
	ch := cs.byID[m.ID]
	switch m.Kind {
	case vt.ChannelOpen:
		if ch == nil && m.ID%2 != cs.nextID%2 { // not a duplicate, nor an id of ours
			cs.receiveOpen(m)
		}
	case vt.ChannelData:
		if ch == nil || ch.gotClose || ch.writeDone || ch.listening || len(m.Data) == 0 {
			return
		}
		if ch.allowed -= int64(len(m.Data)); ch.allowed < 0 {
			cs.logf("channels: channel %d: the peer sent beyond its credit", m.ID)
			cs.fail(ch, "credit exceeded")
			return
		}
		ch.writes.put(m.Data)
	case vt.ChannelCredit:
		if ch == nil {
			return
		}
		ch.credit += int64(m.Credit)
		cs.flush(ch)
	case vt.ChannelClose:
		if ch == nil || ch.gotClose {
			return
		}
		ch.gotClose = true
		if len(m.Data) > 0 {
			cs.logf("channels: channel %d closed by the peer: %q", m.ID, m.Data)
		}
		if cs.closed != nil {
			cs.closed(m.ID, string(m.Data))
		}
		switch {
		case ch.listening:
			if !ch.sentClose {
				ch.sentClose = true
				cs.push(vt.ChannelMsg{ID: ch.id, Kind: vt.ChannelClose})
			}
			cs.forget(ch)
		case ch.writeDone:
			cs.forget(ch)
		case ch.conn == nil: // still dialling: the dial's end closes it
			ch.readEOF, ch.sentClose = true, true
		default:
			ch.writes.put(nil)
		}
	}
}

// event acts on a report of a channel's goroutines.
func (cs *channels) event(ev chanEvent) {
	if ev.accepted != "" {
		if len(cs.byID) >= maxChannels {
			cs.logf("channels: %d channels open; closing a new connection for %q", len(cs.byID), ev.accepted)
			ev.conn.Close()
			return
		}
		cs.open(ev.accepted, ev.conn)
		return
	}
	ch := cs.byID[ev.id]
	if ch == nil {
		if ev.conn != nil {
			ev.conn.Close()
		}
		return
	}
	switch {
	case ev.dialed && (ev.err != nil || ch.gotClose):
		if ev.conn != nil {
			ev.conn.Close()
		}
		if ev.listener != nil {
			ev.listener.Close()
		}
		why := "closed"
		if ev.err != nil {
			why = ev.err.Error()
		}
		cs.fail(ch, why)
	case ev.dialed && ev.listener != nil:
		ch.listener = ev.listener
		cs.listenOn(ch.id, ev.listener)
	case ev.dialed:
		cs.attach(ch, ev.conn)
	case ev.data != nil:
		ch.pending = append(ch.pending, ev.data...)
		cs.flush(ch)
	case ev.eof:
		if ev.err != nil {
			cs.logf("channels: channel %d: %v", ch.id, ev.err)
		}
		ch.readEOF = true
		cs.flush(ch)
	case ev.wrote > 0:
		ch.written += ev.wrote
		if ch.written >= vt.ChannelWindow/2 && !ch.gotClose {
			cs.push(vt.ChannelMsg{ID: ch.id, Kind: vt.ChannelCredit, Credit: uint32(ch.written)})
			ch.allowed += int64(ch.written)
			ch.written = 0
		}
	case ev.writeDone:
		ch.writeDone = true
		if ch.sentClose {
			cs.forget(ch)
		}
	}
}

// flush sends what the credit allows of the pending data, then our Close
// if the connection has no more, and otherwise lets the reader go on once
// nothing is pending.
func (cs *channels) flush(ch *channel) {
	for len(ch.pending) > 0 && ch.credit > 0 && !ch.sentClose {
		room := chanInFlight - cs.sent()
		if room <= 0 {
			break // acks make room: flushAll
		}
		n := min(len(ch.pending), room, int(min(ch.credit, chanChunk)))
		cs.push(vt.ChannelMsg{ID: ch.id, Kind: vt.ChannelData, Data: ch.pending[:n]})
		ch.pending, ch.credit = ch.pending[n:], ch.credit-int64(n)
	}
	switch {
	case len(ch.pending) > 0 || ch.sentClose:
	case ch.readEOF:
		ch.sentClose = true
		cs.push(vt.ChannelMsg{ID: ch.id, Kind: vt.ChannelClose})
		if ch.writeDone {
			cs.forget(ch)
		}
	default:
		select {
		case ch.more <- struct{}{}:
		default:
		}
	}
}

// flushAll sends what the channels have pending as far as the data in
// flight allows: after the peer acknowledged some.
func (cs *channels) flushAll() {
	for _, ch := range cs.byID {
		if len(ch.pending) > 0 || ch.readEOF && !ch.sentClose {
			cs.flush(ch)
		}
	}
}

// fail ends a channel at once, telling the peer why unless it was told.
func (cs *channels) fail(ch *channel, why string) {
	if !ch.sentClose {
		cs.push(vt.ChannelMsg{ID: ch.id, Kind: vt.ChannelClose, Data: []byte(why)})
	}
	ch.readEOF, ch.sentClose, ch.writeDone, ch.pending = true, true, true, nil
	if ch.gotClose {
		cs.forget(ch)
		return
	}
	if ch.conn != nil {
		ch.conn.Close()
		ch.conn = nil
	}
}

// listenOn accepts connections for listening channel id until its
// listener is closed; each opens a channel of its own.
func (cs *channels) listenOn(id uint32, l Listener) {
	cs.listenService(l, fixed(serviceForwarded(id)))
}

// forget drops a channel done both ways, closing its connection or
// listener.
func (cs *channels) forget(ch *channel) {
	if ch.conn != nil {
		ch.conn.Close()
	}
	if ch.listener != nil {
		ch.listener.Close()
	}
	delete(cs.byID, ch.id)
}

// reset forgets every channel, closing its connection or listener: a new
// client took the session over, or resumed it, and both logs start again
// (the listeners of listenService stay).
func (cs *channels) reset() {
	for _, ch := range cs.byID {
		cs.forget(ch)
	}
}

// close ends every channel's goroutines and connections (the session is
// over).
func (cs *channels) close() {
	close(cs.done)
	for _, ch := range cs.byID {
		if ch.conn != nil {
			ch.conn.Close()
		}
		if ch.listener != nil {
			ch.listener.Close()
		}
	}
}

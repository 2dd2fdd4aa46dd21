package session

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/statesync"
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
	// Accept waits for the next connection. After Close it returns an
	// error wrapping net.ErrClosed; any other error is taken as a
	// passing one (out of file descriptors, say), and Accept is called
	// again after a pause.
	Accept() (io.ReadWriteCloser, error)
	Close() error
}

// Accept errors other than a closed listener are retried after a pause
// that doubles from acceptRetryMin to acceptRetryMax, as OpenSSH pauses
// a listener for a second when accept fails: a process out of file
// descriptors gets them back when connections end.
const (
	acceptRetryMin = 5 * time.Millisecond
	acceptRetryMax = time.Second
)

// handshakeTimeout bounds what a local connection may take to say where
// it goes (a SOCKS handshake for -D) before it is closed.
const handshakeTimeout = 10 * time.Second

// maxChannels bounds the channels open at once, so that a peer (even one
// with the key) cannot make this side hold unbounded connections and
// goroutines; an open beyond it is refused, and a local connection beyond
// it is closed.
const maxChannels = 256

// chanChunk is the most a channel's reader takes from its connection at
// once, and so the largest data message.
const chanChunk = 16 << 10

// chanHeldMax bounds the channel messages in the local state that the
// peer has not acknowledged. Without it a peer that never acknowledges
// would make this side's state, and every diff of it, grow without end:
// each open it sends costs a Close when refused (and another when the
// channel ends), each chunk written a Credit. Past half of it, data and
// credit wait for acks; past it, the peer's opens are dropped unanswered
// (and counted) and new local connections are closed. A gosh peer never
// gets there: it acknowledges every state it receives, and has at most
// maxChannels channels, each with an open, a close and a credit or two
// in flight.
const chanHeldMax = 16 * maxChannels

// chanInFlight bounds the channel data in the local state that the peer
// has not acknowledged, all channels together: about what a channel
// carries per round trip. SSP sends a state's diff as one instruction,
// which counts only if every fragment arrives, so more in flight is not
// always better; measured in the rig (2 MiB there and back over a 20 ms
// round trip): 4 KiB took 19 s without loss and 116 s at 10 % loss each
// way, 8 KiB 10 s and 84 s, 16 KiB 5.4 s and 61 s, 32 KiB 2.6 s and
// 64 s. Beyond it the sender's own window (pathDelay) holds frames
// back. The peer's credit (statesync.ChannelWindow) bounds what is buffered at
// its end.
const chanInFlight = 32 << 10

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
	extra     int                // the window's growth beyond statesync.ChannelWindow (stream.go)
	listening bool               // a listening channel (-R): no data, its connections open channels of their own
	listener  Listener           // its listener, once open
	notice    string             // for the peer's listening channel: what to tell its user once listening
	label     string             // the forward it serves, for the user ("-L 8080:db:80")
	readEOF   bool               // the connection has no more to read
	sentClose bool               // we sent Close
	gotClose  bool               // the peer sent Close
	writeDone bool               // the writer has finished
}

// chanState is the local state that carries the channel messages: the
// client's statesync.UserStream, the server's statesync.Complete.
type chanState interface {
	PushChannel(statesync.ChannelMsg)
	ChannelBytes() int // Data bytes held: not yet acknowledged
	ChannelHeld() int  // messages held: not yet acknowledged
}

// dialFunc says how to reach a service the peer opens a channel for; a
// non-nil error refuses the channel, its text telling the peer why.
type dialFunc func(service string) (func() (io.ReadWriteCloser, error), error)

// listenFunc is dialFunc for a listening channel ("listen:host:port"): it
// may also return a notice for the peer's user (where it listens, if not
// where asked).
type listenFunc func(hostPort string) (open func() (Listener, error), notice string, err error)

// errNotForwarded refuses a channel for a service this side does not
// offer.
var errNotForwarded = errors.New("not forwarded")

// channels are a session's forwarded connections.
type channels struct {
	state  chanState
	dial   dialFunc
	listen listenFunc               // for "listen:" channels; nil refuses them
	closed func(label, why string)  // the peer closed a channel of the forward label, saying why; may be nil
	notice func(label, text string) // the peer's notice on a listening channel of ours; may be nil
	logf   logf.Func
	events chan chanEvent
	done   chan struct{}
	byID   map[uint32]*channel
	nextID uint32 // odd on the server, even on the client
	// gen counts resets: the goroutines of a channel tag their reports
	// with it, so that one of a channel forgotten in a reset never
	// reaches the channel of the same id a new client opens.
	gen uint64
	// busy counts the channels (byID) and the local connections being
	// accepted (a SOCKS handshake), against maxChannels.
	busy    atomic.Int32
	dropped int // the peer's opens dropped unanswered (chanHeldMax)
	extra   int // the channels' windows' growth, together (grant)
	refused int // the peer's opens refused
}

// newChannels returns a session's channels, whose messages go into the
// local state st; dial says how to reach a service the peer opens, and
// whether this side forwards it at all (a peer cannot open what the user
// did not ask for).
func newChannels(server bool, st chanState, dial dialFunc, log logf.Func) *channels {
	cs := &channels{state: st, dial: dial, logf: log, events: make(chan chanEvent, 16),
		done: make(chan struct{}), byID: map[uint32]*channel{}, nextID: 2}
	if server {
		cs.nextID = 1
	}
	return cs
}

// push appends m to the local state.
func (cs *channels) push(m statesync.ChannelMsg) { cs.state.PushChannel(m) }

// room reports whether the local state has room for n more messages
// under limit (chanHeldMax, or half of it for data and credit).
func (cs *channels) room(n, limit int) bool { return cs.state.ChannelHeld()+n <= limit }

// record adds ch (a new id) to the channels, counting it as busy.
func (cs *channels) record(ch *channel) {
	cs.byID[ch.id] = ch
	cs.busy.Add(1)
}

// full reports whether a new channel would be one too many.
func (cs *channels) full() bool { return int(cs.busy.Load()) >= maxChannels }

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
// returns the channel's id, which the peer's connections name; label
// names the forward for the user.
func (cs *channels) openListen(hostPort, label string) uint32 {
	id := cs.nextID
	cs.nextID += 2
	ch := cs.add(id)
	ch.listening, ch.label = true, label
	cs.push(statesync.ChannelMsg{ID: id, Kind: statesync.ChannelOpen, Data: []byte(ServiceListen(hostPort))})
	return id
}

// ServiceTCP is the service of a channel to a TCP destination
// "host:port", opened by the client (-L, -D) and dialled by the server.
func ServiceTCP(hostPort string) string { return "tcp:" + hostPort }

// open opens a channel to the peer for service over the local connection
// c, accepted by the forward label.
func (cs *channels) open(service, label string, c io.ReadWriteCloser) {
	id := cs.nextID
	cs.nextID += 2
	ch := cs.add(id)
	ch.label = label
	cs.push(statesync.ChannelMsg{ID: id, Kind: statesync.ChannelOpen, Data: []byte(service)})
	cs.boost(ch)
	cs.attach(ch, c)
}

// add records a new channel with the initial windows.
func (cs *channels) add(id uint32) *channel {
	ch := &channel{id: id, credit: statesync.ChannelWindow, allowed: statesync.ChannelWindow,
		more: make(chan struct{}, 1), writes: newWriteQueue()}
	cs.record(ch)
	return ch
}

// receiveOpen acts on the peer's opening of channel m.ID: a listening
// channel, a connection dialled for a service this side offers, or a
// refusal.
func (cs *channels) receiveOpen(m statesync.ChannelMsg) {
	if !cs.room(1, chanHeldMax) {
		// The peer does not acknowledge what it was told: it is not
		// told more.
		if cs.dropped++; cs.dropped == 1 || cs.dropped%(64<<10) == 0 {
			cs.logf.Printf("channels: the peer does not acknowledge; %d of its opens dropped unanswered", cs.dropped)
		}
		return
	}
	if cs.full() {
		cs.refuse(m, "too many channels")
		return // not recorded: its messages find no channel
	}
	service := string(m.Data)
	var open func() (Listener, error)
	var notice string
	var err error
	if addr, ok := strings.CutPrefix(service, "listen:"); ok {
		err = errNotForwarded
		if cs.listen != nil {
			open, notice, err = cs.listen(addr)
		}
	}
	if open != nil {
		ch := cs.add(m.ID)
		ch.listening, ch.notice = true, notice
		gen := cs.gen
		go func() {
			l, err := open()
			if !cs.report(evDialed{chanRef: chanRef{m.ID, gen}, listener: l, err: err}) && l != nil {
				l.Close()
			}
		}()
		return
	}
	var dial func() (io.ReadWriteCloser, error)
	if err == nil {
		dial, err = cs.dial(service)
	}
	if err != nil {
		cs.refuse(m, err.Error())
		cs.record(&channel{id: m.ID, sentClose: true, writeDone: true}) // until the peer's Close
		return
	}
	cs.boost(cs.add(m.ID))
	gen := cs.gen
	go func() {
		c, err := dial()
		if !cs.report(evDialed{chanRef: chanRef{m.ID, gen}, conn: c, err: err}) && c != nil {
			c.Close()
		}
	}()
}

// refuse answers the peer's open m with a Close saying why.
func (cs *channels) refuse(m statesync.ChannelMsg, why string) {
	if cs.refused++; cs.refused <= 8 || cs.refused%1024 == 0 {
		cs.logf.Printf("channels: refused a channel for %q: %s (%d refused)", m.Data, why, cs.refused)
	}
	cs.push(statesync.ChannelMsg{ID: m.ID, Kind: statesync.ChannelClose, Data: []byte(why)})
}

// receive acts on a message from the peer.
func (cs *channels) receive(m statesync.ChannelMsg) {
	ch := cs.byID[m.ID]
	switch m.Kind {
	case statesync.ChannelOpen:
		if ch == nil && m.ID%2 != cs.nextID%2 { // not a duplicate, nor an id of ours
			cs.receiveOpen(m)
		}
	case statesync.ChannelData:
		if ch != nil && ch.listening && cs.notice != nil && !ch.gotClose && ch.id%2 == cs.nextID%2 {
			cs.notice(ch.label, string(m.Data)) // the peer listens, but not quite where asked
			return
		}
		if ch == nil || ch.gotClose || ch.writeDone || ch.listening || len(m.Data) == 0 {
			return
		}
		if ch.allowed -= int64(len(m.Data)); ch.allowed < 0 {
			cs.logf.Printf("channels: channel %d: the peer sent beyond its credit", m.ID)
			cs.fail(ch, "credit exceeded")
			return
		}
		ch.writes.put(m.Data)
	case statesync.ChannelCredit:
		if ch == nil {
			return
		}
		ch.credit += int64(m.Credit)
		cs.flush(ch)
	case statesync.ChannelClose:
		if ch == nil || ch.gotClose {
			return
		}
		ch.gotClose = true
		if len(m.Data) > 0 {
			cs.logf.Printf("channels: channel %d closed by the peer: %q", m.ID, m.Data)
		}
		if cs.closed != nil && !ch.sentClose {
			cs.closed(ch.label, string(m.Data))
		}
		switch {
		case ch.listening:
			if !ch.sentClose {
				ch.sentClose = true
				cs.push(statesync.ChannelMsg{ID: ch.id, Kind: statesync.ChannelClose})
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

// drop closes a local connection a listener accepted, for which no
// channel is opened (there is no peer to open it with).
func (cs *channels) drop(ev evAccepted) {
	cs.busy.Add(-1) // the accepting goroutine's count
	ev.conn.Close()
}

// accepted opens a channel for a local connection a listener accepted,
// if there is room.
func (cs *channels) accepted(ev evAccepted) {
	cs.busy.Add(-1) // the accepting goroutine's count: the channel takes it over
	switch {
	case ev.gen != cs.gen && !ev.anyGen:
		ev.conn.Close() // its listening channel is gone
	case cs.full() || !cs.room(1, chanHeldMax):
		cs.logf.Printf("channels: %d channels open, %d messages unacknowledged; closing a new connection for %q",
			len(cs.byID), cs.state.ChannelHeld(), ev.service)
		ev.conn.Close()
	default:
		cs.open(ev.service, ev.label, ev.conn)
	}
}

// event acts on a report of a channel's goroutines.
func (cs *channels) event(ev chanEvent) {
	if a, ok := ev.(evAccepted); ok {
		cs.accepted(a)
		return
	}
	ref := ev.channel()
	ch := cs.byID[ref.id]
	if ch == nil || ref.gen != cs.gen {
		if d, ok := ev.(evDialed); ok {
			d.close()
		}
		return
	}
	switch ev := ev.(type) {
	case evDialed:
		cs.dialed(ch, ev)
	case evData:
		ch.pending = append(ch.pending, ev.data...)
		cs.flush(ch)
	case evEOF:
		if ev.err != nil {
			cs.logf.Printf("channels: channel %d: %v", ch.id, ev.err)
		}
		ch.readEOF = true
		cs.flush(ch)
	case evWrote:
		if ev.n > 0 {
			ch.written += ev.n
			cs.grant(ch)
		}
	case evWriteDone:
		ch.writeDone = true
		if ch.sentClose {
			cs.forget(ch)
		}
	}
}

// dialed acts on the end of ch's dial: the connection (or listener) is
// attached, or the channel fails.
func (cs *channels) dialed(ch *channel, ev evDialed) {
	switch {
	case ev.err != nil || ch.gotClose:
		ev.close()
		why := "closed"
		if ev.err != nil {
			why = ev.err.Error()
		}
		cs.fail(ch, why)
	case ev.listener != nil:
		ch.listener = ev.listener
		if ch.notice != "" {
			cs.push(statesync.ChannelMsg{ID: ch.id, Kind: statesync.ChannelData, Data: []byte(ch.notice)})
		}
		cs.listenOn(ch.id, ev.listener)
	default:
		cs.attach(ch, ev.conn)
	}
}

// flush sends what the credit allows of the pending data, then our Close
// if the connection has no more, and otherwise lets the reader go on once
// nothing is pending.
func (cs *channels) flush(ch *channel) {
	for len(ch.pending) > 0 && ch.credit > 0 && !ch.sentClose {
		room := cs.dataRoom()
		if room <= 0 || !cs.room(1, chanHeldMax/2) {
			break // acks make room: flushAll
		}
		n := min(len(ch.pending), room, int(min(ch.credit, chanChunk)))
		cs.push(statesync.ChannelMsg{ID: ch.id, Kind: statesync.ChannelData, Data: ch.pending[:n]})
		ch.pending, ch.credit = ch.pending[n:], ch.credit-int64(n)
	}
	switch {
	case len(ch.pending) > 0 || ch.sentClose:
	case ch.readEOF:
		ch.sentClose = true
		cs.push(statesync.ChannelMsg{ID: ch.id, Kind: statesync.ChannelClose})
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
		cs.grant(ch)
	}
}

// fail ends a channel at once, telling the peer why unless it was told.
func (cs *channels) fail(ch *channel, why string) {
	if !ch.sentClose {
		cs.push(statesync.ChannelMsg{ID: ch.id, Kind: statesync.ChannelClose, Data: []byte(why)})
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
	cs.listenService(l, fmt.Sprintf("listening channel %d", id), false, fixed(serviceForwarded(id)))
}

// forget drops a channel done both ways, closing its connection or
// listener and ending its goroutines.
func (cs *channels) forget(ch *channel) {
	if ch.conn != nil {
		ch.conn.Close()
	}
	if ch.listener != nil {
		ch.listener.Close()
	}
	if ch.more != nil {
		close(ch.more)
	}
	if ch.writes != nil {
		ch.writes.stop()
	}
	delete(cs.byID, ch.id)
	cs.busy.Add(-1)
	cs.extra -= ch.extra
}

// reset forgets every channel, closing its connection or listener: a new
// client took the session over, or resumed it, and both logs start again
// (the listeners of the whole session stay). The new client numbers its
// channels from the start again: what the goroutines of the forgotten
// ones still report is recognised by its generation, and dropped.
func (cs *channels) reset() {
	for _, ch := range cs.byID {
		cs.forget(ch)
	}
	cs.gen++
	cs.dropped = 0
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

package session

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/stream"
)

// capStream is the gosh_caps bit of a peer that takes channel messages in
// the session's stream (docs/protocol.md section 12.6) rather than in the
// synchronised states: a reliable, congestion-controlled byte stream in
// aux datagrams beside them, sealed with the session's key. Two ends that
// both advertise it send every channel message there.
const capStream = 1 << 36

// Channel messages in the stream, one after another:
//
//	kind (1) | id (uvarint) | credit (uvarint)            kind 4, Credit
//	kind (1) | id (uvarint) | length (uvarint) | data      the others
//
// with the kinds of section 12.2. A message whose data is longer than
// statesync.MaxChannelMessage, or of an unknown kind, makes the stream malformed:
// the receiver ignores everything it carries from then on.
var errStreamMsg = errors.New("session: malformed channel message in the stream")

// streamPackets bounds the stream packets one loop iteration sends: the
// loop stays responsive to the screen, and the stream's deadline (its
// pacing, already due) brings the next iteration at once.
const streamPackets = 64

// chanStream carries a session's channel messages in a stream.Stream
// once both ends advertise capStream.
//
// chanStream is not safe for concurrent use: the session loop owns it.
type chanStream struct {
	st      *stream.Stream
	ends    []uint64 // the stream offsets where the unacknowledged messages end
	written uint64   // the stream offset after the last message
	partial []byte   // received bytes of an incomplete message
	dead    bool     // the peer sent a malformed message: the rest is ignored
	pkt     []byte   // a packet's scratch
	enc     []byte   // a message's scratch
	addr    netip.AddrPort
}

// newChanStream returns a stream at its start, for a path whose round
// trip is about rtt.
func newChanStream(now time.Time, rtt time.Duration) *chanStream {
	return &chanStream{st: stream.New(stream.Config{RTT: rtt}, now)}
}

// push appends m to the stream.
func (cs *chanStream) push(m statesync.ChannelMsg) {
	b := append(cs.enc[:0], byte(m.Kind))
	b = binary.AppendUvarint(b, uint64(m.ID))
	if m.Kind == statesync.ChannelCredit {
		b = binary.AppendUvarint(b, uint64(m.Credit))
	} else {
		b = binary.AppendUvarint(b, uint64(len(m.Data)))
		b = append(b, m.Data...)
	}
	cs.enc = b
	cs.st.Write(b)
	cs.written += uint64(len(b))
	cs.ends = append(cs.ends, cs.written)
}

// held returns the messages the peer has not acknowledged.
func (cs *chanStream) held() int {
	acked, k := cs.st.Acked(), 0
	for k < len(cs.ends) && cs.ends[k] <= acked {
		k++
	}
	if k > 0 {
		cs.ends = append(cs.ends[:0], cs.ends[k:]...)
	}
	return len(cs.ends)
}

// receive takes a stream packet that arrived at now and returns the
// channel messages it completed, in order.
func (cs *chanStream) receive(now time.Time, pkt []byte, log logf.Func) []statesync.ChannelMsg {
	if err := cs.st.Receive(now, pkt); err != nil {
		return nil // dropped; counted in the stream's stats
	}
	b := cs.st.Read()
	if cs.dead || len(b) == 0 {
		return nil
	}
	cs.partial = append(cs.partial, b...)
	var out []statesync.ChannelMsg
	for {
		m, n, err := parseStreamMsg(cs.partial)
		if err != nil {
			cs.dead, cs.partial = true, nil
			log.Printf("%v: ignoring the rest of the stream", err)
			return out
		}
		if n == 0 {
			break
		}
		out = append(out, m)
		cs.partial = cs.partial[n:]
	}
	if len(cs.partial) == 0 {
		cs.partial = nil // release what a large message grew
	} else {
		cs.partial = append([]byte(nil), cs.partial...)
	}
	return out
}

// parseStreamMsg parses the first channel message of b; n is 0 if b
// holds only part of it. The message's data is a copy.
func parseStreamMsg(b []byte) (m statesync.ChannelMsg, n int, err error) {
	if len(b) == 0 {
		return m, 0, nil
	}
	m.Kind = statesync.ChannelKind(b[0])
	if m.Kind < statesync.ChannelOpen || m.Kind > statesync.ChannelCredit {
		return m, 0, errStreamMsg
	}
	id, k := binary.Uvarint(b[1:])
	if k == 0 {
		return m, 0, nil
	}
	if k < 0 || id > 1<<32-1 {
		return m, 0, errStreamMsg
	}
	m.ID, n = uint32(id), 1+k
	v, k := binary.Uvarint(b[n:])
	switch {
	case k == 0:
		return m, 0, nil
	case k < 0 || v > 1<<32-1 || m.Kind != statesync.ChannelCredit && v > statesync.MaxChannelMessage:
		return m, 0, errStreamMsg
	}
	n += k
	if m.Kind == statesync.ChannelCredit {
		m.Credit = uint32(v)
		return m, n, nil
	}
	if uint64(len(b)-n) < v {
		return m, 0, nil
	}
	m.Data = append([]byte(nil), b[n:n+int(v)]...)
	return m, n + int(v), nil
}

// receiveStream takes the stream's datagrams already waiting after one
// the loop received, up to maxBatch, as the client takes every datagram
// waiting: at a LAN's rate one loop iteration per datagram costs the
// server more than the datagrams. An instruction among them ends the
// batch (it is taken, then the loop goes on), so the server still acts
// on the client's states one per iteration.
func (s *server) receiveStream() {
	if s.cstream == nil || s.tr.Aux() == nil {
		return
	}
	for range maxBatch {
		select {
		case d, ok := <-s.conn.Datagrams():
			if !ok {
				return
			}
			s.receive(d)
			if s.tr.Aux() == nil {
				return
			}
		default:
			return
		}
	}
}

// auxTransport is what the stream needs of a session's ssp.Transport.
type auxTransport interface {
	RemoteAddr() (netip.AddrPort, bool)
	AuxBudget() int
	SealAux(now time.Time, payload []byte) ([]byte, error)
}

// flush sends what the stream has to send at now over tr and conn; a
// change of the peer's address starts the congestion control again. It
// returns a transport error, which is fatal (the sequence numbers are
// exhausted).
func (cs *chanStream) flush(tr auxTransport, conn *ssp.Conn, now time.Time) error {
	to, ok := tr.RemoteAddr()
	if !ok {
		return nil
	}
	if cs.addr.IsValid() && to != cs.addr {
		cs.st.PathChanged(now)
	}
	cs.addr = to
	for range streamPackets {
		cs.pkt = cs.st.Poll(now, cs.pkt[:0], tr.AuxBudget())
		if cs.pkt == nil {
			return nil
		}
		d, err := tr.SealAux(now, cs.pkt)
		if err != nil {
			return err
		}
		_ = conn.WriteTo(d, to) // lost like any datagram; the stream sends it again
	}
	return nil
}

// chanSink is where a session's channels put their messages: the
// synchronised state's log (statesync.UserStream, statesync.Complete) or, once the
// peer takes it, the stream.
type chanSink struct {
	log    chanState
	stream func() *chanStream // the stream, if the peer takes it now; else nil
}

func (s *chanSink) PushChannel(m statesync.ChannelMsg) {
	if st := s.stream(); st != nil {
		st.push(m)
		return
	}
	s.log.PushChannel(m)
}

func (s *chanSink) ChannelBytes() int {
	n := s.log.ChannelBytes()
	if st := s.stream(); st != nil {
		n += st.st.Buffered()
	}
	return n
}

func (s *chanSink) ChannelHeld() int {
	n := s.log.ChannelHeld()
	if st := s.stream(); st != nil {
		n += st.held()
	}
	return n
}

// dataRoom returns how many more data bytes the channels may push.
func (s *chanSink) dataRoom() int {
	if st := s.stream(); st != nil {
		return st.st.Room()
	}
	return chanInFlight - s.log.ChannelBytes()
}

// streaming reports whether the messages go in the stream.
func (s *chanSink) streaming() bool { return s.stream() != nil }

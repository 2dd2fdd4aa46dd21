package ssp

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

var (
	errOversize  = errors.New("ssp: datagram longer than 2048 bytes")
	errShortSeal = errors.New("ssp: datagram shorter than its nonce and tag")
	errDirection = errors.New("ssp: datagram carries our own direction (reflected)")
)

// link is the datagram layer of a [Transport] (docs/protocol.md section 3):
// sealing and opening, the one sequence counter, the two timestamps, RTT
// sampling, the remote address (roaming on the server) and the timing
// facts behind the server's detach and the client's port hops. It is
// clock-free: every method takes now.
type link struct {
	sess   *sspcrypto.Session
	dir    sspcrypto.Direction // the direction of what we send
	server bool
	clock  msClock
	logf   logf.Func

	seq      uint64 // next sequence number to send
	seqLimit uint64 // with reserve: seq must stay below it
	reserve  func(next uint64) (uint64, error)
	expected uint64 // one past the highest sequence number received

	savedTS    uint16 // the peer's last timestamp, to reflect once
	savedAt    uint64 // when it arrived, on clock
	haveSaved  bool
	rtt        RTT
	loss       float64                                   // the peer's datagrams lost on the way, recently (0 to 1)
	onRTT      func(now time.Time, sample time.Duration) // each sample used
	remote     netip.AddrPort
	hasRemote  bool
	lastHeard  time.Time // last authentic datagram that was newest so far
	lastPortAt time.Time // client: last port choice

	pt     []byte // plaintext scratch for open
	budget int    // datagram size budget in bytes
}

// seal appends to dst the datagram carrying payload (one fragment),
// stamped with now and, if one is pending, the reflected peer timestamp.
func (l *link) seal(dst []byte, payload []byte, now time.Time) ([]byte, error) {
	ms := l.clock.ms(now)
	p := Packet{Timestamp: timestamp16(ms), TimestampReply: NoTimestamp, Payload: payload}
	if held := ms - l.savedAt; l.haveSaved && ms >= l.savedAt && held < uint64(timestampReplyMaxAge/time.Millisecond) {
		p.TimestampReply = l.savedTS + uint16(held) // advanced by how long we held it
		l.haveSaved = false
	}
	if l.reserve != nil && l.seq >= l.seqLimit {
		limit, err := l.reserve(l.seq)
		if err != nil {
			return dst, fmt.Errorf("ssp: reserving sequence numbers: %w", err)
		}
		if limit <= l.seq {
			return dst, errors.New("ssp: reserving sequence numbers: no room")
		}
		l.seqLimit = limit
	}
	// Seal in place: the plaintext goes where the ciphertext will be.
	start := len(dst)
	dst = append(dst, make([]byte, sspcrypto.NonceTailSize)...)
	dst, _ = p.AppendBinary(dst)
	dst = append(dst, make([]byte, sspcrypto.TagSize)...)[:len(dst)] // room for the tag
	out, err := l.sess.Seal(dst[:start], l.dir, l.seq, dst[start+sspcrypto.NonceTailSize:])
	if err != nil {
		return dst[:start], err
	}
	l.seq++
	return out, nil
}

// open authenticates a datagram from `from` and returns its payload (one
// fragment), valid until the next call, and whether it is the newest so
// far. An authentic datagram with the highest sequence number so far
// updates the timestamps, the RTT, the last-heard time and, on the server,
// the remote address (roaming). Older ones (reordered or replayed) are
// returned but change none of these.
func (l *link) open(now time.Time, datagram []byte, from netip.AddrPort, st *Stats) (payload []byte, newest bool, derr *DropError) {
	switch {
	case len(datagram) > MaxReceive:
		return nil, false, &DropError{DropOversize, errOversize}
	case len(datagram) < sspcrypto.Overhead:
		return nil, false, &DropError{DropShort, errShortSeal}
	}
	dir, seq, pt, err := l.sess.Open(l.pt[:0], datagram)
	if err != nil {
		return nil, false, &DropError{DropAuth, err}
	}
	l.pt = pt
	if dir == l.dir {
		return nil, false, &DropError{DropDirection, errDirection}
	}
	p, err := ParsePacket(pt)
	if err != nil {
		return nil, false, &DropError{DropShort, err}
	}
	if seq < l.expected {
		st.Reordered++
		return p.Payload, false, nil
	}
	l.countLoss(seq - l.expected)
	st.Missing += seq - l.expected
	l.expected = seq + 1
	l.heard(now, p)
	if l.server && from.IsValid() && from != l.remote {
		l.remote = from
		st.Roams++
		l.logf.Printf("ssp: server now attached to client at %v", from)
	}
	l.hasRemote = true
	return p.Payload, true, nil
}

// lossWeight is the weight of each of the peer's sequence numbers in the
// loss estimate (an average over some 32 datagrams: one loss is 3 %).
const lossWeight = 1.0 / 32

// countLoss folds the newest datagram into the loss estimate, after
// missing skipped sequence numbers (only the last 32 of a long gap count:
// an outage is not loss).
func (l *link) countLoss(missing uint64) {
	for range min(missing, 32) {
		l.loss += lossWeight * (1 - l.loss)
	}
	l.loss -= lossWeight * l.loss
}

// heard processes the timestamps of the newest authentic datagram.
func (l *link) heard(now time.Time, p Packet) {
	l.lastHeard = now
	ms := l.clock.ms(now)
	if p.Timestamp != NoTimestamp {
		l.savedTS, l.savedAt, l.haveSaved = p.Timestamp, ms, true
	}
	if p.TimestampReply != NoTimestamp {
		rtt := timestampDiff(timestamp16(ms), p.TimestampReply)
		if l.rtt.Update(rtt) && l.onRTT != nil {
			l.onRTT(now, rtt)
		}
	}
}

// maybeDetach makes the server forget a client it has not heard from for
// ServerAssociationTimeout; it stops sending until the client's next
// datagram.
func (l *link) maybeDetach(now time.Time) {
	if l.server && l.hasRemote && now.Sub(l.lastHeard) > ServerAssociationTimeout {
		l.hasRemote = false
		l.logf.Printf("ssp: server now detached from client")
	}
}

// portHopDue reports whether the client should move to a new local port:
// more than PortHopInterval since its last port choice and since the send
// time of the newest state the server acknowledged (zero: never). When it
// reports true it records now as the new port choice.
func (l *link) portHopDue(now, roundtrip time.Time) bool {
	if l.server || now.Sub(l.lastPortAt) <= PortHopInterval ||
		(!roundtrip.IsZero() && now.Sub(roundtrip) <= PortHopInterval) {
		return false
	}
	l.lastPortAt = now
	return true
}

package ssp

import (
	"fmt"
	"net/netip"
	"time"
)

// Current returns the live local state. The session loop mutates it in
// place (and must not replace it); the next [Transport.Tick] notices the
// change. It must not be modified after [Transport.StartShutdown].
func (t *Transport[L, R]) Current() L { return t.sender.Current() }

// Remote returns the newest state received from the peer. The caller must
// not modify it.
func (t *Transport[L, R]) Remote() R { return t.receiver.Newest() }

// RemoteNum returns the number of the newest state received.
func (t *Transport[L, R]) RemoteNum() uint64 { return t.receiver.NewestNum() }

// RemoteDiff returns the diff from the remote state as of the previous
// call (initially the initial remote state) to the newest one, and lets
// the held remote states forget what the peer will never diff from again
// (Mosh's get_remote_diff). The server calls it to learn the new user
// input events.
func (t *Transport[L, R]) RemoteDiff() []byte { return t.receiver.TakeDiff() }

// NextDeadline returns when [Transport.Tick] next has something to do,
// or the zero time if nothing is scheduled (a server with no client).
func (t *Transport[L, R]) NextDeadline() time.Time {
	if !t.link.hasRemote {
		return time.Time{}
	}
	return t.sender.NextDeadline()
}

// RemoteAddr returns the address to send to: the server's for a client,
// the client's latest authentic address for a server. It reports false
// for a server that has no client (none yet, or detached).
func (t *Transport[L, R]) RemoteAddr() (netip.AddrPort, bool) {
	return t.link.remote, t.link.hasRemote
}

// LastHeard returns when the newest remote state arrived: the "last
// contact" of Mosh's notification bar. It is the zero time until a new
// state arrives.
func (t *Transport[L, R]) LastHeard() time.Time { return t.sender.lastHeard }

// LastDatagram returns when the newest authentic datagram arrived (zero
// if none did); the server detaches ServerAssociationTimeout after it.
func (t *Transport[L, R]) LastDatagram() time.Time { return t.link.lastHeard }

// SRTT returns the smoothed round-trip time (1 s before the first sample).
func (t *Transport[L, R]) SRTT() time.Duration { return t.link.rtt.SRTT() }

// RTO returns the retransmission timeout.
func (t *Transport[L, R]) RTO() time.Duration { return t.link.rtt.RTO() }

// SendInterval returns the frame interval, half the SRTT clamped to
// [SendIntervalMin, SendIntervalMax]. The prediction engine uses it.
func (t *Transport[L, R]) SendInterval() time.Duration { return t.link.rtt.SendInterval() }

// SentStateLast returns the number of the last local state sent (Mosh's
// local_frame_sent, which predictions expire against).
func (t *Transport[L, R]) SentStateLast() uint64 {
	return t.sender.sent[len(t.sender.sent)-1].num
}

// Acked returns the newest local state the peer has acknowledged (the
// known receiver state). The caller must not change it.
func (t *Transport[L, R]) Acked() L { return t.sender.sent[0].state }

// SentStateAcked returns the number of the newest local state the peer
// has acknowledged.
func (t *Transport[L, R]) SentStateAcked() uint64 { return t.sender.sent[0].num }

// SentStateAckedTime returns when the newest local state the peer has
// acknowledged was sent (Mosh's get_sent_state_acked_timestamp; the
// creation time until an acknowledgement arrives). The client's
// notification bar reports "last reply" from it. Port hopping uses the
// same value as of the last instruction received, Mosh's
// last_roundtrip_success, which counts as long ago before any.
func (t *Transport[L, R]) SentStateAckedTime() time.Time { return t.sender.sent[0].at }

// PortHopDue reports whether a client should move to a new local port
// now: it has heard nothing acknowledging its sends for PortHopInterval,
// and has not hopped for as long (docs/protocol.md section 3.5). When it
// reports true it assumes the caller hops ([Conn.Hop]) and restarts the
// interval. Call it after writing the datagrams of a Tick. A server never
// hops.
func (t *Transport[L, R]) PortHopDue(now time.Time) bool {
	return t.link.portHopDue(now, t.roundtrip)
}

// Probe makes a transmission due at the next Tick, whatever the timers
// say: the caller learned that the local network changed (an interface came
// up, an address or route changed, the machine woke from sleep), so the
// path to the peer may have just returned, and waiting for the next
// heartbeat would cost up to AckInterval. The transmission is the usual
// one: unacknowledged data if there is some (from the acknowledged state
// once the peer has been silent), an empty ack otherwise. Nothing changes
// on the wire, so a stock peer sees an early heartbeat.
func (t *Transport[L, R]) Probe(now time.Time) { t.sender.probe(now) }

// SetMaxDatagram changes the datagram budget, e.g. to FallbackDatagram
// after the kernel refused a datagram as too long.
func (t *Transport[L, R]) SetMaxDatagram(n int) error {
	if n < minDatagramBudget || n > MaxReceive {
		return fmt.Errorf("ssp: datagram budget %d outside [%d, %d]", n, minDatagramBudget, MaxReceive)
	}
	t.link.budget = n
	return nil
}

// PeerCaps returns the gosh capabilities of the peer's last instruction:
// 0 for stock Mosh.
func (t *Transport[L, R]) PeerCaps() uint64 { return t.peerCaps }

// Stats returns the transport's counters.
func (t *Transport[L, R]) Stats() Stats {
	s := t.stats
	s.TailProbes = t.sender.tailProbes
	return s
}

// StartShutdown starts the shutdown handshake (docs/protocol.md section
// 7.7): from now on every instruction carries state number ShutdownNum,
// sent every frame interval, until the peer acknowledges it
// ([Transport.ShutdownAcknowledged]) or the initiator gives up
// ([Transport.ShutdownAckTimedOut]). The local state is frozen.
func (t *Transport[L, R]) StartShutdown(now time.Time) { t.sender.startShutdown(now) }

// ShutdownInProgress reports whether [Transport.StartShutdown] was called.
func (t *Transport[L, R]) ShutdownInProgress() bool { return t.sender.shutdown }

// ShutdownAcknowledged reports whether the peer acknowledged our shutdown.
func (t *Transport[L, R]) ShutdownAcknowledged() bool {
	return t.sender.sent[0].num == ShutdownNum
}

// ShutdownAckTimedOut reports whether the initiator should stop waiting
// for the acknowledgement: ShutdownRetries tries were sent, or
// ActiveRetryTimeout passed since StartShutdown.
func (t *Transport[L, R]) ShutdownAckTimedOut(now time.Time) bool {
	return t.sender.shutdownAckTimedOut(now)
}

// CounterpartyShutdown reports whether the peer has started shutting
// down (its newest state is ShutdownNum).
func (t *Transport[L, R]) CounterpartyShutdown() bool { return t.receiver.NewestNum() == ShutdownNum }

// CounterpartyShutdownAckSent reports whether the peer asked to shut down
// and we have sent an instruction acknowledging it: the side that did not
// initiate can exit.
func (t *Transport[L, R]) CounterpartyShutdownAckSent() bool {
	return t.sender.lastAckSent == ShutdownNum
}

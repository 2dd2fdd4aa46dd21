package ssp

import (
	"errors"
	"fmt"
)

// ErrVersionMismatch is reported (wrapped in a [*DropError]) for an
// authentic instruction whose protocol_version is not [ProtocolVersion]:
// the peer speaks another version of the Mosh protocol.
var ErrVersionMismatch = errors.New("ssp: mosh protocol version mismatch")

// DropReason classifies what [Transport.Receive] discarded, and why.
type DropReason int

const (
	DropOversize  DropReason = iota // datagram longer than MaxReceive
	DropShort                       // too short for the nonce and tag, the timestamps, or a fragment header
	DropAuth                        // failed authentication: wrong key, corrupted or forged
	DropDirection                   // carries this side's own direction bit (reflected)
	DropFragment                    // contradicts its fragment set, or the set grew too large
	DropStale                       // straggling fragment of an instruction older than the set being collected
	DropDecode                      // the instruction does not inflate or does not parse
	DropVersion                     // protocol version other than 2
	DropThrowaway                   // throwaway_num above old_num: would discard the diff's base
	DropQueueFull                   // the receiver already holds too many states
	DropDiff                        // the diff does not apply to its base state
	DropEpoch                       // from an epoch this side is not in (gosh; docs/protocol.md 12.4)

	// NumDropReasons is the number of drop reasons.
	NumDropReasons
)

var dropReasonNames = [NumDropReasons]string{
	"oversize", "short", "auth", "direction", "fragment", "stale fragment",
	"decode", "version", "throwaway", "queue full", "diff", "epoch",
}

// String names the reason.
func (r DropReason) String() string {
	if r >= 0 && r < NumDropReasons {
		return dropReasonNames[r]
	}
	return fmt.Sprintf("DropReason(%d)", int(r))
}

// DropError is the error [Transport.Receive] returns for a datagram or
// instruction it dropped. Such errors are never fatal: the session goes
// on, and the peer's state is unchanged.
type DropError struct {
	Reason DropReason
	Err    error
}

// Error returns the underlying error's text.
func (e *DropError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *DropError) Unwrap() error { return e.Err }

// Stats counts what a [Transport] sent and received. Every datagram
// received is counted once in DatagramsReceived and, if dropped, once in
// Dropped.
type Stats struct {
	DatagramsReceived uint64
	BytesReceived     uint64
	DatagramsSent     uint64
	BytesSent         uint64

	// Reordered counts authentic datagrams with a sequence number below a
	// previous one: processed, but not used for timing or roaming.
	Reordered uint64
	// Roams counts changes of the server's target address.
	Roams uint64
	// Missing counts the peer's sequence numbers skipped by the newest
	// datagram so far: lost on the way (or, if they come later,
	// reordered).
	Missing uint64
	// Redundant counts datagrams sent twice (PacingGosh): on a lossy
	// path, or carrying an urgent change (Urgent).
	Redundant uint64
	// TailProbes counts frames a server sent again because they ended
	// paced output (PacingGosh, TailProbeDelay).
	TailProbes uint64

	// Instructions counts complete instructions decoded; each one ends in
	// exactly one of the four counters below or in Dropped.
	Instructions uint64
	Newest       uint64 // produced the newest peer state
	OutOfOrder   uint64 // produced an older peer state
	Duplicates   uint64 // the new state was already held
	UnknownBase  uint64 // the diff's base state is not held

	// FragmentSetsAbandoned counts incomplete fragment sets discarded
	// because a newer instruction started.
	FragmentSetsAbandoned uint64

	// StatesEvicted counts received states dropped before the peer allowed
	// it (throwaway_num), to keep the states held within the receiver's
	// memory budget.
	StatesEvicted uint64

	// AuxSent and AuxReceived count aux datagrams (auxdatagram.go), also counted
	// in DatagramsSent and DatagramsReceived.
	AuxSent, AuxReceived uint64

	// Dropped counts discarded datagrams and instructions by reason.
	Dropped [NumDropReasons]uint64
}

// TotalDropped returns the sum of s.Dropped.
func (s *Stats) TotalDropped() uint64 {
	var n uint64
	for _, d := range s.Dropped {
		n += d
	}
	return n
}

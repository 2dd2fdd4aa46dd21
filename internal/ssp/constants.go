package ssp

import (
	"math"
	"time"

	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// Protocol constants: fixed by Mosh 1.4 (docs/protocol.md sections 3 to 7).
// Changing one of them breaks interoperability or changes Mosh's timing.
const (
	// ProtocolVersion is the value of every instruction's protocol_version
	// field. Instructions carrying any other value are dropped.
	ProtocolVersion = 2

	// SendIntervalMin and SendIntervalMax bound the frame interval, which
	// is otherwise half the smoothed round-trip time ("two frames per
	// RTT").
	SendIntervalMin = 20 * time.Millisecond
	SendIntervalMax = 250 * time.Millisecond

	// AckInterval is the heartbeat period: with nothing else to send, each
	// side sends an empty ack this long after its previous transmission.
	AckInterval = 3 * time.Second

	// AckDelay is the longest a receiver waits before acknowledging a new
	// state whose diff was non-empty.
	AckDelay = 100 * time.Millisecond

	// ShutdownRetries is the number of shutdown instructions sent before
	// the initiator gives up waiting for the peer's acknowledgement.
	ShutdownRetries = 16

	// ActiveRetryTimeout is how recently the peer must have been heard for
	// unacknowledged data to be resent at the frame rate; it is also how
	// long the initiator of a shutdown waits for its acknowledgement.
	ActiveRetryTimeout = 10 * time.Second

	// ServerSendMinDelay and ClientSendMinDelay are the input-collection
	// delays between the first change of the local state and the frame
	// that carries it (SEND_MINDELAY).
	ServerSendMinDelay = 8 * time.Millisecond
	ClientSendMinDelay = 1 * time.Millisecond

	// MinRTO and MaxRTO bound the retransmission timeout computed from
	// SRTT and RTTVAR.
	MinRTO = 50 * time.Millisecond
	MaxRTO = 1000 * time.Millisecond

	// ServerAssociationTimeout is how long the server keeps sending to a
	// client it has not heard from before it forgets the client's address.
	ServerAssociationTimeout = 40 * time.Second

	// PortHopInterval is how long the client waits, both since its last
	// port choice and since the newest acknowledged send, before it moves
	// to a new local port.
	PortHopInterval = 10 * time.Second

	// MaxPortsOpen is the number of client sockets kept open (and read)
	// after port hops.
	MaxPortsOpen = 10

	// MaxOldSocketAge is how long old client sockets are kept once the
	// newest one has been in use.
	MaxOldSocketAge = 60 * time.Second

	// MaxDatagramIPv4 and MaxDatagramIPv6 are the datagram budgets (UDP
	// payload bytes) for an assumed path MTU of 1280 bytes.
	// FallbackDatagram is the budget after the kernel rejected a datagram
	// as too long (EMSGSIZE).
	MaxDatagramIPv4  = 1252
	MaxDatagramIPv6  = 1216
	FallbackDatagram = 500

	// MaxReceive is the receive buffer size: longer datagrams are dropped,
	// and gosh never sends one.
	MaxReceive = 2048

	// MaxInflated caps the decompressed size of one instruction.
	MaxInflated = 4 << 20

	// MaxFragmentNum is the largest fragment number: the top bit of the
	// 16-bit field is the final flag.
	MaxFragmentNum = 0x7FFF

	// MaxChaff is the longest chaff an instruction carries.
	MaxChaff = 16

	// ShutdownNum is the state number of every instruction sent once a
	// side has started shutting down (2^64-1).
	ShutdownNum = math.MaxUint64

	// NoTimestamp is the 16-bit timestamp value meaning "none". It is
	// never sent as a real timestamp.
	NoTimestamp = 0xFFFF

	// TimestampSize is the length of the two timestamps that start every
	// plaintext; FragmentHeaderSize is the length of a fragment header.
	TimestampSize      = 4
	FragmentHeaderSize = 10
)

// Timing constants of the datagram layer and the transport that have no
// exported use (docs/protocol.md sections 3.1, 3.2, 7.3 and 7.6).
const (
	initialSRTT   = 1000.0 // ms
	initialRTTVar = 500.0  // ms

	// rttSampleMax: round-trip samples this large or larger are ignored
	// (e.g. the peer was suspended).
	rttSampleMax = 5000 * time.Millisecond

	// timestampReplyMaxAge: a peer timestamp held this long or longer is
	// not reflected any more.
	timestampReplyMaxAge = 1000 * time.Millisecond

	// sentStatesLimit: when the sender holds more states, it drops the
	// sentStatesCut-th from the back.
	sentStatesLimit = 32
	sentStatesCut   = 16

	// receivedStatesLimit: with more held states, the receiver accepts new
	// states only once per receiverQuench.
	receivedStatesLimit = 1024
	receiverQuench      = 15 * time.Second

	// prospectiveSlack and prospectiveLimit: the sender diffs from the
	// known receiver state instead of the assumed one when that diff is no
	// longer, or at most prospectiveSlack bytes longer and shorter than
	// prospectiveLimit.
	prospectiveSlack = 100
	prospectiveLimit = 1000
)

// Implementation constants.
const (
	// receiverBudget bounds the memory of the peer's states a receiver
	// holds (the sum of their footprints); beyond it the least recently
	// used are evicted. Two terminal states of the largest size
	// (vt.MaxCols × vt.MaxRows cells, 16 MiB each) fit, and hundreds of
	// ordinary ones.
	receiverBudget = 40 << 20

	// senderBudget bounds the memory of the sent states a sender holds
	// until the peer acknowledges them, in the same way.
	senderBudget = 40 << 20

	// setPatience is how long an incomplete fragment set that takes no
	// new fragment is protected from datagrams older than the newest seen
	// (see Assembly.AddReordered).
	setPatience = time.Second

	// maxCompressed caps how many compressed bytes one fragment assembly
	// may collect: anything longer cannot inflate to at most MaxInflated
	// bytes with any zlib encoder.
	maxCompressed = MaxInflated + MaxInflated/1024 + 1024

	// compressBestMin is the instruction size from which gosh deflates at
	// Mosh's level 6 rather than level 1.
	compressBestMin = 2048

	// minDatagramBudget is the smallest datagram budget a Transport
	// accepts: room for the headers and one byte of fragment body.
	minDatagramBudget = sspcrypto.Overhead + TimestampSize + FragmentHeaderSize + 1

	// readRetries, readBackoffMin and readBackoffMax: a socket whose reads
	// fail is retried after a back-off that doubles from readBackoffMin to
	// readBackoffMax, and given up after readRetries failures in a row
	// (about 5 s), as wireguard-go's receive loop does.
	readRetries    = 10
	readBackoffMin = 10 * time.Millisecond
	readBackoffMax = time.Second

	// socketBuffer is the kernel send and receive buffer asked for on every
	// socket (best effort): a large instruction arrives as a burst of
	// fragments, and one dropped fragment costs the whole instruction.
	socketBuffer = 1 << 20
)

package ssp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// Aux datagrams (docs/protocol.md section 12.6) carry what two gosh ends
// exchange beside the state synchronisation: the session's stream of
// forwarded bytes. They are sealed like every datagram, under the same
// key and the same sequence counter (so no nonce is ever used twice, and
// ReserveSeq covers them), with the two timestamps, and they roam the
// server and refresh the peer's silence like any authentic datagram. In
// place of a fragment their plaintext holds:
//
//	+-----------+----------------+-------------------------+
//	| auxStream | epoch (uvarint)| the stream's packet     |
//	+-----------+----------------+-------------------------+
//
// A fragment starts with its instruction id, which never reaches 2^63
// (ids count up from FirstSeq, like sequence numbers), so its first byte
// is below 0x80: a first byte of 0x80 or more marks an aux datagram. Only
// a peer that advertised the extension receives them (the caller checks
// PeerCaps); a stock Mosh peer never does.

// auxStream is the first byte of an aux datagram that carries a stream
// packet.
const auxStream = 0x80

// auxHeader bounds the aux header: the kind and the epoch.
const auxHeader = 1 + binary.MaxVarintLen64

var (
	errAuxKind  = errors.New("ssp: aux datagram of an unknown kind")
	errAuxShort = errors.New("ssp: aux datagram truncated")
)

// SealAux returns the datagram carrying payload (a stream packet) in the
// transport's epoch, sealed with the next sequence number at now, valid
// until the next call. Send it to RemoteAddr. An error is fatal, as
// Tick's: the sequence numbers or the key's volume are exhausted.
func (t *Transport[L, R]) SealAux(now time.Time, payload []byte) ([]byte, error) {
	t.auxPlain = append(t.auxPlain[:0], auxStream)
	t.auxPlain = binary.AppendUvarint(t.auxPlain, t.epoch)
	t.auxPlain = append(t.auxPlain, payload...)
	var err error
	if t.auxOut, err = t.link.seal(t.auxOut[:0], t.auxPlain, now); err != nil {
		return nil, fmt.Errorf("ssp: %w", err)
	}
	t.stats.DatagramsSent++
	t.stats.BytesSent += uint64(len(t.auxOut))
	t.stats.AuxSent++
	return t.auxOut, nil
}

// AuxBudget returns the most bytes a stream packet may have, for the
// datagram that carries it to fit the datagram budget.
func (t *Transport[L, R]) AuxBudget() int {
	return t.link.budget - sspcrypto.Overhead - TimestampSize - auxHeader
}

// Aux returns the stream packet of the datagram the last Receive took,
// if it was an aux datagram of the transport's epoch (nil otherwise),
// valid until the next Receive.
func (t *Transport[L, R]) Aux() []byte { return t.aux }

// receiveAux takes the aux payload of an authentic datagram.
func (t *Transport[L, R]) receiveAux(payload []byte) *DropError {
	if payload[0] != auxStream {
		return &DropError{DropDecode, errAuxKind}
	}
	epoch, n := binary.Uvarint(payload[1:])
	if n <= 0 {
		return &DropError{DropShort, errAuxShort}
	}
	if epoch != t.epoch {
		return &DropError{DropEpoch, errEpoch}
	}
	t.aux = payload[1+n:]
	t.stats.AuxReceived++
	return nil
}

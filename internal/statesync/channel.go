package statesync

import (
	"errors"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Gosh channels (spec section 12.2) carry forwarded connections, such as
// the SSH agent's, between two gosh ends inside the synchronised states:
// each state holds an append-only log of channel messages, sent in its
// diffs as an Instruction extension that stock Mosh never receives. A
// message stays in its sender's state until the peer acknowledges a state
// holding it, so SSP makes the log reliable and ordered.

// ChannelKind is what a channel message does.
type ChannelKind uint8

// The channel message kinds.
const (
	ChannelOpen   ChannelKind = 1 // open channel ID for a service named by Data ("agent"; later "tcp:host:port")
	ChannelData   ChannelKind = 2 // Data is the next bytes of the channel
	ChannelClose  ChannelKind = 3 // no more data from this side; Data may hold a reason (UTF-8 text)
	ChannelCredit ChannelKind = 4 // the sender may send Credit more data bytes on channel ID (flow control)
)

// ChannelMsg is one message of a gosh channel.
type ChannelMsg struct {
	ID     uint32
	Kind   ChannelKind
	Data   []byte
	Credit uint32
}

// Limits of gosh channels.
const (
	// ChannelWindow is the credit each side of a channel starts with:
	// how many data bytes it may send on the channel, per direction,
	// before the peer grants more with ChannelCredit.
	ChannelWindow = 64 << 10

	// MaxChannelMessage is the most Data one received channel message
	// may carry.
	MaxChannelMessage = 64 << 10

	// MaxChannelBacklog is the most of received channel messages a
	// state holds (those not yet trimmed or subtracted): their Data
	// bytes, and ChannelMessageCost bytes for each message itself, so
	// that messages without Data (a flood of opens, say) are bounded too.
	MaxChannelBacklog = 4 << 20

	// ChannelMessageCost is what a held channel message counts towards
	// MaxChannelBacklog beyond its Data: about what holding it costs.
	ChannelMessageCost = chanOverhead
)

// ErrChannelBacklog is returned by Apply for a diff whose channel
// messages exceed MaxChannelMessage or MaxChannelBacklog.
var ErrChannelBacklog = errors.New("statesync: channel backlog too large")

// chanOverhead is about how many bytes a held channel message costs
// beyond its Data, for Footprint.
const chanOverhead = 64

// cloneData returns a copy of b, nil if it is empty.
func cloneData(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// equalChannelMsg reports whether a and b are the same message.
func equalChannelMsg(a, b *ChannelMsg) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Credit == b.Credit && string(a.Data) == string(b.Data)
}

// appendChannel appends a channel instruction for m at absolute position
// index.
func appendChannel(b []byte, index uint64, m *ChannelMsg) []byte {
	var body []byte
	body = protowire.AppendTag(body, fieldChanIndex, protowire.VarintType)
	body = protowire.AppendVarint(body, index)
	body = protowire.AppendTag(body, fieldChanID, protowire.VarintType)
	body = protowire.AppendVarint(body, uint64(m.ID))
	body = protowire.AppendTag(body, fieldChanKind, protowire.VarintType)
	body = protowire.AppendVarint(body, uint64(m.Kind))
	if len(m.Data) > 0 {
		body = appendBytesField(body, fieldChanData, m.Data)
	}
	if m.Credit != 0 {
		body = protowire.AppendTag(body, fieldChanCredit, protowire.VarintType)
		body = protowire.AppendVarint(body, uint64(m.Credit))
	}
	return appendInstruction(b, extChannel, body)
}

// parseChannel decodes a channel extension body (the last occurrence of
// each field wins). m.Data aliases body.
func parseChannel(body []byte) (index uint64, m ChannelMsg, err error) {
	var id, kind, credit uint64
	err = forEachField(body, func(f field) error {
		if f.typ == protowire.BytesType && f.num == fieldChanData {
			m.Data = f.bytes
			return nil
		}
		if f.typ != protowire.VarintType {
			return nil
		}
		switch f.num {
		case fieldChanIndex:
			index = f.varint
		case fieldChanID:
			id = f.varint
		case fieldChanKind:
			kind = f.varint
		case fieldChanCredit:
			credit = f.varint
		}
		return nil
	})
	if err != nil {
		return 0, ChannelMsg{}, err
	}
	if id > math.MaxUint32 || kind > math.MaxUint8 || credit > math.MaxUint32 {
		return 0, ChannelMsg{}, ErrMalformed
	}
	m.ID, m.Kind, m.Credit = uint32(id), ChannelKind(kind), uint32(credit)
	return index, m, nil
}

// admitChannel decides what a receiver whose log has total messages, of
// which the held ones count held towards MaxChannelBacklog, does with
// message m received at absolute position index: append it (true), skip
// it as one it already has (false), or reject the diff (an error).
func admitChannel(index, total uint64, held int, m *ChannelMsg) (bool, error) {
	switch {
	case len(m.Data) > MaxChannelMessage:
		return false, ErrChannelBacklog
	case index < total:
		return false, nil
	case index > total:
		return false, ErrMalformed // a gap: the diff is not from our base
	case held+len(m.Data)+chanOverhead > MaxChannelBacklog:
		return false, ErrChannelBacklog
	}
	return true, nil
}

// chanLog is the log of channel messages of a state (section 12.2).
type chanLog = entryLog[ChannelMsg, chanKind]

// chanKind makes ChannelMsg a log entry.
type chanKind struct{}

func (chanKind) size(m *ChannelMsg) int         { return len(m.Data) }
func (chanKind) cloned(m ChannelMsg) ChannelMsg { m.Data = cloneData(m.Data); return m }
func (chanKind) overhead() int                  { return chanOverhead }

// applyChannel applies a received channel extension body to l.
func applyChannel(l *chanLog, body []byte) error {
	index, m, err := parseChannel(body)
	if err != nil {
		return err
	}
	if ok, err := admitChannel(index, l.total, l.footprint(), &m); !ok {
		return err
	}
	l.push(m)
	return nil
}

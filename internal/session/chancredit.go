package session

// The channels' flow control: the credit each channel grants its peer,
// and over the stream (stream.go) the windows that grow to the path's
// bandwidth-delay product.

import (
	"github.com/gosh-term/gosh/internal/statesync"
)

// boost grants the peer, over the stream, chanBoost more credit on a new
// channel at once (within chanWindowExtra): a bulk transfer need not wait
// the round trips of the window's doublings to reach a long path's
// bandwidth-delay product.
func (cs *channels) boost(ch *channel) {
	grow := min(chanBoost, chanWindowExtra-cs.extra)
	if grow <= 0 || !cs.streaming() {
		return
	}
	cs.push(statesync.ChannelMsg{ID: ch.id, Kind: statesync.ChannelCredit, Credit: uint32(grow)})
	ch.extra += grow
	cs.extra += grow
	ch.allowed += int64(grow)
}

// grant gives the peer back the credit of what was written to the
// connection, once it is half the channel's window and the local state
// has room. Over the stream (stream.go) the window also doubles with
// each grant, up to maxChanWindow and within chanWindowExtra for the
// session: a channel that keeps draining gets the window its path's
// bandwidth-delay product needs.
func (cs *channels) grant(ch *channel) {
	win := statesync.ChannelWindow + ch.extra
	if ch.written < win/2 || ch.gotClose || !cs.room(1, chanHeldMax/2) {
		return
	}
	credit := int64(ch.written)
	if grow := min(win, maxChanWindow-win, chanWindowExtra-cs.extra); grow > 0 && cs.streaming() {
		credit += int64(grow)
		ch.extra += grow
		cs.extra += grow
	}
	cs.push(statesync.ChannelMsg{ID: ch.id, Kind: statesync.ChannelCredit, Credit: uint32(credit)})
	ch.allowed += credit
	ch.written = 0
}

// Channel windows over the stream: each channel's grows to at most
// maxChanWindow, and the growth of all together is at most
// chanWindowExtra, so that what the writers hold stays bounded (16 MiB
// at the initial windows, 8 MiB more at most).
const (
	maxChanWindow   = 4 << 20
	chanWindowExtra = 8 << 20
	chanBoost       = 448 << 10 // a new channel's window: 512 KiB
)

// dataRoom returns how many more data bytes the channels may push into
// the local state.
func (cs *channels) dataRoom() int {
	if s, ok := cs.state.(interface{ dataRoom() int }); ok {
		return s.dataRoom()
	}
	return chanInFlight - cs.state.ChannelBytes()
}

// streaming reports whether the messages go in the session's stream.
func (cs *channels) streaming() bool {
	s, ok := cs.state.(interface{ streaming() bool })
	return ok && s.streaming()
}

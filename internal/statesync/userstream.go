package statesync

import "bytes"

// UserEvent is one entry of the user input stream: typed bytes, a window
// resize or a channel message.
type UserEvent struct {
	Keys       []byte      // the typed bytes, for a keystroke event
	Resize     bool        // a resize event
	Cols, Rows int         // the new size, for a resize event (as received: not validated)
	Channel    *ChannelMsg // the message, for a channel event
}

// userSeg is a run of events: coalesced key bytes, one resize or one
// channel message.
type userSeg struct {
	keys       []byte
	resize     bool
	cols, rows int
	ch         *ChannelMsg // never modified: clones share it
}

// isKeys reports whether s is a run of key bytes.
func (s userSeg) isKeys() bool { return !s.resize && s.ch == nil }

func (s userSeg) events() uint64 {
	if !s.isKeys() {
		return 1
	}
	return uint64(len(s.keys))
}

// UserStream is the client-to-server state of the SSP transport (spec
// section 8.1): the append-only log of the user's input since the session
// began, where each typed byte and each resize is one event. Its diff is a
// Mosh ClientBuffers.UserMessage. Between gosh ends, each channel message
// (spec section 12.2) is an event too. Event positions are absolute: Subtract
// drops an acknowledged prefix but [UserStream.Total] keeps counting from
// the start of the session.
//
// A UserStream is not safe for concurrent use.
type UserStream struct {
	base   uint64 // absolute position of the first held event
	total  uint64 // events ever appended
	urgent uint64 // events before this position may not wait (see Shown)
	intr   uint64 // the position after the last interrupt key (see Urgent)
	segs   []userSeg
	chans  int // Data bytes of the channel messages in segs
	nchans int // channel messages in segs
}

// NewUserStream returns an empty stream.
func NewUserStream() *UserStream { return &UserStream{} }

// Footprint is about how many bytes the stream holds.
func (s *UserStream) Footprint() int {
	n := 64
	for _, seg := range s.segs {
		n += len(seg.keys) + 48
		if seg.ch != nil {
			n += chanOverhead
		}
	}
	return n + s.chans
}

// PushKeys appends typed bytes (copied).
func (s *UserStream) PushKeys(b []byte) {
	s.PushShownKeys(b)
	s.urgent = s.total
}

// PushShownKeys appends typed bytes (copied) whose effect the client
// already shows: its prediction engine displays them. Such keys may wait
// for the next frame interval, to share a datagram with the keys typed
// after them (see [UserStream.Shown]).
func (s *UserStream) PushShownKeys(b []byte) {
	if len(b) == 0 {
		return
	}
	if n := len(s.segs); n > 0 && s.segs[n-1].isKeys() {
		s.segs[n-1].keys = append(s.segs[n-1].keys, b...)
	} else {
		s.segs = append(s.segs, userSeg{keys: append([]byte(nil), b...)})
	}
	s.total += uint64(len(b))
	if i := bytes.LastIndexAny(b, interruptKeys); i >= 0 {
		s.intr = s.total - uint64(len(b)-i-1)
	}
}

// interruptKeys are the keys a terminal's line discipline turns into
// signals by default: Ctrl-C (SIGINT), Ctrl-\ (SIGQUIT), Ctrl-Z (SIGTSTP).
const interruptKeys = "\x03\x1c\x1a"

// Urgent reports whether s extends sent (a prefix of it) by an interrupt
// key (Ctrl-C, Ctrl-\, Ctrl-Z): typed to stop a program, often one that
// floods the screen and the path, it is not worth a retransmission's
// wait (ssp.Urgent).
func (s *UserStream) Urgent(sent *UserStream) bool { return s.intr > sent.total }

// PushResize appends a resize to cols×rows.
func (s *UserStream) PushResize(cols, rows int) {
	s.segs = append(s.segs, userSeg{resize: true, cols: cols, rows: rows})
	s.total++
	s.urgent = s.total
}

// PushChannel appends a channel message (its Data copied): one event,
// which never waits (it is not shown).
func (s *UserStream) PushChannel(m ChannelMsg) {
	m.Data = cloneData(m.Data)
	s.segs = append(s.segs, userSeg{ch: &m})
	s.chans += len(m.Data)
	s.nchans++
	s.total++
	s.urgent = s.total
}

// ChannelBytes returns the Data bytes of the channel messages the stream
// holds: for a sender's current state, whose acknowledged prefix the
// transport subtracts, the channel data still in flight.
func (s *UserStream) ChannelBytes() int { return s.chans }

// ChannelHeld returns the number of channel messages the stream holds:
// for a sender's current state, those the peer has not acknowledged.
func (s *UserStream) ChannelHeld() int { return s.nchans }

// Shown reports whether s extends sent (a prefix of it) by keys pushed
// with PushShownKeys alone: a change the user already sees, which ssp's
// gosh pacing lets wait for a frame that goes anyway (ssp.Shown).
func (s *UserStream) Shown(sent *UserStream) bool {
	return s.total > sent.total && sent.total >= s.urgent
}

// Total returns the number of events ever appended (an absolute position).
func (s *UserStream) Total() uint64 { return s.total }

// Held returns the number of events the stream still holds: those appended
// after the prefix Subtract dropped. For a sender's current state, whose
// acknowledged prefix the transport subtracts, it is the input still in
// flight.
func (s *UserStream) Held() uint64 { return s.total - s.base }

// EventsSince returns the events from absolute position total on, with
// consecutive bytes coalesced. Events already dropped by Subtract are not
// returned. The Keys slices and channel messages (a copy each, but with
// their Data) alias the stream: read them, do not modify them.
func (s *UserStream) EventsSince(total uint64) []UserEvent {
	var out []UserEvent
	s.walk(total, func(_ uint64, seg userSeg) {
		switch {
		case seg.resize:
			out = append(out, UserEvent{Resize: true, Cols: seg.cols, Rows: seg.rows})
		case seg.ch != nil:
			m := *seg.ch
			out = append(out, UserEvent{Channel: &m})
		default:
			out = append(out, UserEvent{Keys: seg.keys})
		}
	})
	return out
}

// walk calls fn for the segments (or tails of segments) at or after
// absolute position from, with the absolute position of each.
func (s *UserStream) walk(from uint64, fn func(pos uint64, seg userSeg)) {
	pos := s.base
	for _, seg := range s.segs {
		n := seg.events()
		if pos+n > from {
			skip := from - min(from, pos)
			if skip > 0 {
				seg.keys = seg.keys[skip:]
			}
			fn(pos+skip, seg)
		}
		pos += n
	}
}

// Clone returns a copy of s. Key bytes are shared; both copies only ever
// append beyond their own length.
func (s *UserStream) Clone() *UserStream {
	c := &UserStream{base: s.base, total: s.total, urgent: s.urgent, intr: s.intr, chans: s.chans, nchans: s.nchans, segs: make([]userSeg, len(s.segs))}
	for i, seg := range s.segs {
		seg.keys = seg.keys[:len(seg.keys):len(seg.keys)]
		c.segs[i] = seg
		s.segs[i].keys = seg.keys
	}
	return c
}

// Equal reports whether s and o hold the same events. Streams of one
// session share their prefix, so the events both still hold are compared.
// It does not allocate per byte: key runs are compared as slices, however
// differently the two streams coalesced them.
func (s *UserStream) Equal(o *UserStream) bool {
	if s.total != o.total {
		return false
	}
	if s == o {
		return true
	}
	from := max(s.base, o.base)
	a, b := s.segsSince(from), o.segsSince(from)
	var ka, kb []byte // unconsumed key bytes of the current runs
	for {
		for len(ka) == 0 && len(a) > 0 && a[0].isKeys() {
			ka, a = a[0].keys, a[1:]
		}
		for len(kb) == 0 && len(b) > 0 && b[0].isKeys() {
			kb, b = b[0].keys, b[1:]
		}
		switch {
		case len(ka) > 0 && len(kb) > 0:
			n := min(len(ka), len(kb))
			if string(ka[:n]) != string(kb[:n]) {
				return false
			}
			ka, kb = ka[n:], kb[n:]
		case len(ka) > 0 || len(kb) > 0:
			return false // keys on one side, another event or the end on the other
		case len(a) == 0 || len(b) == 0:
			return len(a) == len(b)
		default: // both at a resize or channel message
			if !equalEvent(&a[0], &b[0]) {
				return false
			}
			a, b = a[1:], b[1:]
		}
	}
}

// equalEvent reports whether two single-event segments (resizes or
// channel messages) are the same event.
func equalEvent(a, b *userSeg) bool {
	if a.ch != nil || b.ch != nil {
		return a.ch != nil && b.ch != nil && equalChannelMsg(a.ch, b.ch)
	}
	return a.cols == b.cols && a.rows == b.rows
}

// segsSince returns the segments (or segment tails) from absolute
// position total on; the key slices alias the stream.
func (s *UserStream) segsSince(total uint64) []userSeg {
	var out []userSeg
	s.walk(total, func(_ uint64, seg userSeg) { out = append(out, seg) })
	return out
}

// Diff returns the UserMessage that appends to from the events s has
// beyond it (from must be a prefix of s): one Keystroke instruction per run
// of bytes, one ResizeMessage instruction per resize, one channel
// instruction per channel message (with its absolute position). It is
// empty if there is nothing to send.
func (s *UserStream) Diff(from *UserStream) []byte {
	var b []byte
	s.walk(from.total, func(pos uint64, seg userSeg) {
		if seg.resize {
			b = appendResize(b, seg.cols, seg.rows)
			return
		}
		if seg.ch != nil {
			b = appendChannel(b, pos, seg.ch)
			return
		}
		var body []byte
		body = appendBytesField(body, fieldKeys, seg.keys)
		b = appendInstruction(b, extKeystroke, body)
	})
	return b
}

// Apply appends the events of a UserMessage. For each instruction the
// keystroke extension is used if present, else the resize, else the
// channel message (skipped if s already has it; see spec section 12.2 for
// the errors); unknown extensions are ignored. On error s may hold a
// prefix of the events.
func (s *UserStream) Apply(diff []byte) error {
	return parseInstructions(diff, func(in *instruction) error {
		switch {
		case in.has[extKeystroke]:
			keys, err := bytesOf(in.body[extKeystroke], fieldKeys)
			if err != nil {
				return err
			}
			s.PushKeys(keys)
		case in.has[extResize]:
			cols, rows, err := parseResize(in.body[extResize])
			if err != nil {
				return err
			}
			s.PushResize(cols, rows)
		case in.has[extChannel]:
			return s.applyChannel(in.body[extChannel])
		}
		return nil
	})
}

// applyChannel applies a received channel extension body.
func (s *UserStream) applyChannel(body []byte) error {
	index, m, err := parseChannel(body)
	if err != nil {
		return err
	}
	if ok, err := admitChannel(index, s.total, s.chans+chanOverhead*s.nchans, &m); !ok {
		return err
	}
	s.PushChannel(m)
	return nil
}

// Subtract drops the events s shares with prefix (the acknowledged part),
// keeping absolute positions.
func (s *UserStream) Subtract(prefix *UserStream) {
	drop := min(prefix.total, s.total)
	for len(s.segs) > 0 && drop > s.base {
		seg := &s.segs[0]
		n := seg.events()
		if s.base+n <= drop {
			if seg.ch != nil {
				s.chans -= len(seg.ch.Data)
				s.nchans--
			}
			s.base += n
			s.segs = s.segs[1:]
			continue
		}
		k := drop - s.base
		seg.keys = seg.keys[k:]
		s.base += k
	}
	if len(s.segs) == 0 {
		s.segs = nil
	}
}

package vt

// UserEvent is one entry of the user input stream: typed bytes or a
// window resize.
type UserEvent struct {
	Keys       []byte // the typed bytes, for a keystroke event
	Resize     bool   // a resize event
	Cols, Rows int    // the new size, for a resize event (as received: not validated)
}

// userSeg is a run of events: coalesced key bytes or one resize.
type userSeg struct {
	keys       []byte
	resize     bool
	cols, rows int
}

func (s userSeg) events() uint64 {
	if s.resize {
		return 1
	}
	return uint64(len(s.keys))
}

// UserStream is the client-to-server state of the SSP transport (spec
// section 8.1): the append-only log of the user's input since the session
// began, where each typed byte and each resize is one event. Its diff is a
// Mosh ClientBuffers.UserMessage. Event positions are absolute: Subtract
// drops an acknowledged prefix but [UserStream.Total] keeps counting from
// the start of the session.
//
// A UserStream is not safe for concurrent use.
type UserStream struct {
	base   uint64 // absolute position of the first held event
	total  uint64 // events ever appended
	urgent uint64 // events before this position may not wait (see Shown)
	segs   []userSeg
}

// NewUserStream returns an empty stream.
func NewUserStream() *UserStream { return &UserStream{} }

// Footprint is about how many bytes the stream holds.
func (s *UserStream) Footprint() int {
	n := 64
	for _, seg := range s.segs {
		n += len(seg.keys) + 48
	}
	return n
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
	if n := len(s.segs); n > 0 && !s.segs[n-1].resize {
		s.segs[n-1].keys = append(s.segs[n-1].keys, b...)
	} else {
		s.segs = append(s.segs, userSeg{keys: append([]byte(nil), b...)})
	}
	s.total += uint64(len(b))
}

// PushResize appends a resize to cols×rows.
func (s *UserStream) PushResize(cols, rows int) {
	s.segs = append(s.segs, userSeg{resize: true, cols: cols, rows: rows})
	s.total++
	s.urgent = s.total
}

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
// returned. The Keys slices alias the stream: read them before modifying
// it.
func (s *UserStream) EventsSince(total uint64) []UserEvent {
	var out []UserEvent
	s.walk(total, func(seg userSeg) {
		if seg.resize {
			out = append(out, UserEvent{Resize: true, Cols: seg.cols, Rows: seg.rows})
		} else {
			out = append(out, UserEvent{Keys: seg.keys})
		}
	})
	return out
}

// walk calls fn for the segments (or tails of segments) at or after
// absolute position from.
func (s *UserStream) walk(from uint64, fn func(userSeg)) {
	pos := s.base
	for _, seg := range s.segs {
		n := seg.events()
		if pos+n > from {
			if skip := from - min(from, pos); skip > 0 {
				seg.keys = seg.keys[skip:]
			}
			fn(seg)
		}
		pos += n
	}
}

// Clone returns a copy of s. Key bytes are shared; both copies only ever
// append beyond their own length.
func (s *UserStream) Clone() *UserStream {
	c := &UserStream{base: s.base, total: s.total, urgent: s.urgent, segs: make([]userSeg, len(s.segs))}
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
		for len(ka) == 0 && len(a) > 0 && !a[0].resize {
			ka, a = a[0].keys, a[1:]
		}
		for len(kb) == 0 && len(b) > 0 && !b[0].resize {
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
			return false // keys on one side, a resize or the end on the other
		case len(a) == 0 || len(b) == 0:
			return len(a) == len(b)
		default: // both at a resize
			if a[0].cols != b[0].cols || a[0].rows != b[0].rows {
				return false
			}
			a, b = a[1:], b[1:]
		}
	}
}

// segsSince returns the segments (or segment tails) from absolute
// position total on; the key slices alias the stream.
func (s *UserStream) segsSince(total uint64) []userSeg {
	var out []userSeg
	s.walk(total, func(seg userSeg) { out = append(out, seg) })
	return out
}

// Diff returns the UserMessage that appends to from the events s has
// beyond it (from must be a prefix of s): one Keystroke instruction per run
// of bytes, one ResizeMessage instruction per resize. It is empty if there
// is nothing to send.
func (s *UserStream) Diff(from *UserStream) []byte {
	var b []byte
	s.walk(from.total, func(seg userSeg) {
		if seg.resize {
			b = appendResize(b, seg.cols, seg.rows)
			return
		}
		var body []byte
		body = appendBytesField(body, fieldKeys, seg.keys)
		b = appendInstruction(b, extKeystroke, body)
	})
	return b
}

// Apply appends the events of a UserMessage. For each instruction the
// keystroke extension is used if present, else the resize; unknown
// extensions are ignored. On error s may hold a prefix of the events.
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
		}
		return nil
	})
}

// Subtract drops the events s shares with prefix (the acknowledged part),
// keeping absolute positions.
func (s *UserStream) Subtract(prefix *UserStream) {
	drop := min(prefix.total, s.total)
	for len(s.segs) > 0 && drop > s.base {
		seg := &s.segs[0]
		n := seg.events()
		if s.base+n <= drop {
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

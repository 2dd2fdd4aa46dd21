package statesync

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/gosh-term/gosh/internal/vt"
)

// Complete is the server-to-client state of the SSP transport (spec
// section 8.2): a terminal emulator plus the echo ack, and for a gosh peer
// a log of channel messages (section 12.2). Its diff is a Mosh
// HostBuffers.HostMessage whose host bytes come from a [vt.Display] with the
// wire profile [vt.WireDisplayCaps](caps), so a stock mosh-client renders it
// exactly when caps is 0.
//
// A Complete is not safe for concurrent use.
type Complete struct {
	emu     *vt.Emulator
	echoAck uint64
	caps    vt.Caps
	disp    *vt.Display // shared by clones; only its scratch space is mutable
	scratch *[]byte     // the display's output buffer, shared by clones
	chans   chanLog     // channel messages from the server
	scroll  scrollLog
	behind  bool        // the server's history holds lines beyond the log (section 12.3)
	hist    *vt.History // the live screen's history (a server's state only; not cloned)
}

// NewComplete returns a blank cols×rows terminal with echo ack 0 and the
// stock wire profile.
func NewComplete(cols, rows int) *Complete {
	return &Complete{emu: vt.NewEmulator(cols, rows), disp: vt.NewDisplay(vt.WireDisplayCaps(0)), scratch: new([]byte)}
}

// SetWireCaps sets what diffs may use beyond the stock Mosh set (for a
// peer known to be gosh). It also decides which differences make two
// states unequal: content the profile cannot show is ignored.
func (c *Complete) SetWireCaps(caps vt.Caps) {
	c.caps = caps
	c.disp = vt.NewDisplay(vt.WireDisplayCaps(caps))
}

// WireCaps returns the capabilities set by SetWireCaps.
func (c *Complete) WireCaps() vt.Caps { return c.caps }

// Feed interprets host output and appends the answers to its queries to
// reply (to be written back to the host application).
func (c *Complete) Feed(p, reply []byte) []byte { return c.emu.Feed(p, reply) }

// Resize changes the terminal size.
func (c *Complete) Resize(cols, rows int) { c.emu.Resize(cols, rows) }

// EchoAck returns the newest client state number whose input the host has
// had time to echo (spec section 8.3).
func (c *Complete) EchoAck() uint64 { return c.echoAck }

// SetEchoAck sets the echo ack.
func (c *Complete) SetEchoAck(n uint64) { c.echoAck = n }

// Framebuffer returns the screen; callers must not modify it (clone it to
// draw overlays).
func (c *Complete) Framebuffer() *vt.Framebuffer { return c.emu.Framebuffer() }

// AppCursorKeys reports whether the host application enabled DECCKM; the
// server then leaves ESC O A–D from the client alone (spec section 8.1).
func (c *Complete) AppCursorKeys() bool { return c.emu.Framebuffer().Modes().AppCursorKeys }

// Clone returns a deep copy (rows shared copy-on-write).
func (c *Complete) Clone() *Complete {
	n := *c
	n.emu = c.emu.Clone()
	n.chans = c.chans.clone()
	n.scroll = c.scroll.clone()
	n.hist = nil
	return &n
}

// Equal reports whether c and o have the same echo ack and channel
// message count, and show the same thing as far as the wire profile can
// tell (see [vt.Display.SameScreen]). States of one session share their
// channel log's prefix, so equal counts mean equal logs.
func (c *Complete) Equal(o *Complete) bool {
	return c.echoAck == o.echoAck && c.chans.total == o.chans.total && c.scroll.total == o.scroll.total &&
		c.behind == o.behind && c.SameScreen(o)
}

// SameScreen reports whether c and o show the same screen, as far as the
// wire profile can tell (which screen they are on included for a profile
// with [vt.CapAltScreen]), whatever else differs (echo ack, channel messages,
// scrollback).
func (c *Complete) SameScreen(o *Complete) bool {
	return c.disp.SameScreen(c.Framebuffer(), o.Framebuffer())
}

// Deferrable reports whether c differs from o in nothing but the echo
// ack: a change worth no frame of its own, which may wait for the next
// frame interval (ssp's Deferrable, for gosh's pacing). A new channel
// message never waits.
func (c *Complete) Deferrable(o *Complete) bool {
	return c.echoAck != o.echoAck && c.chans.total == o.chans.total && c.scroll.total == o.scroll.total &&
		c.behind == o.behind && c.SameScreen(o)
}

// Diff returns the HostMessage that turns from into c: an echo ack if it
// changed, a resize if the size changed, the display differ's output as
// host bytes, then one channel instruction per message beyond from's and
// one scrollback instruction per line beyond from's, and whether the
// server is behind if that changed. It is empty if there is nothing to
// send.
func (c *Complete) Diff(from *Complete) []byte {
	b := c.chans.appendDiff(c.diffScreen(from), from.chans.total, appendChannel)
	b = c.scroll.appendDiff(b, from.scroll.total, appendScroll)
	if c.behind != from.behind {
		var body []byte
		body = protowire.AppendTag(body, fieldBehind, protowire.VarintType)
		body = protowire.AppendVarint(body, protowire.EncodeBool(c.behind))
		b = appendInstruction(b, extBehind, body)
	}
	return b
}

// diffScreen returns the instructions of Diff for the terminal: echo ack,
// resize and host bytes.
func (c *Complete) diffScreen(from *Complete) []byte {
	var b []byte
	if c.echoAck != from.echoAck {
		var body []byte
		body = protowire.AppendTag(body, fieldEchoAckNum, protowire.VarintType)
		body = protowire.AppendVarint(body, c.echoAck)
		b = appendInstruction(b, extEchoAck, body)
	}
	last, next := from.Framebuffer(), c.Framebuffer()
	if c.disp.SameScreen(last, next) {
		return b
	}
	if w, h := next.Size(); w != last.Width() || h != last.Height() {
		b = appendResize(b, w, h)
	}
	hs := c.disp.NewFrame((*c.scratch)[:0], true, last, next)
	*c.scratch = hs[:0]
	if len(hs) > 0 {
		var body []byte
		body = appendBytesField(body, fieldHostString, hs)
		b = appendInstruction(b, extHostBytes, body)
	}
	return b
}

// Apply applies a HostMessage: for each instruction, host bytes are fed
// to the emulator (answers to queries are discarded), a resize resizes it,
// an echo ack is recorded and a channel message is appended (one already
// held is skipped; see section 12.2 for the errors). Host bytes are interpreted with the
// emulator's hidden modes at the defaults a differ assumes (full-screen
// scroll region, no origin or insert mode, autowrap, ASCII, no pending
// wrap), which they already are unless c is a copy of a server's state. Unknown extensions are ignored. On error c
// may be partly updated; the transport applies diffs to a clone.
func (c *Complete) Apply(diff []byte) error {
	return parseInstructions(diff, func(in *instruction) error {
		switch {
		case in.has[extHostBytes]:
			hs, err := bytesOf(in.body[extHostBytes], fieldHostString)
			if err != nil {
				return err
			}
			c.emu.FeedFrame(hs)
		case in.has[extResize]:
			cols, rows, err := parseResize(in.body[extResize])
			if err != nil {
				return err
			}
			c.emu.Resize(cols, rows)
		case in.has[extEchoAck]:
			n, err := varintOf(in.body[extEchoAck], fieldEchoAckNum)
			if err != nil {
				return err
			}
			c.echoAck = n
		case in.has[extChannel]:
			return applyChannel(&c.chans, in.body[extChannel])
		case in.has[extScroll]:
			return applyScroll(&c.scroll, in.body[extScroll])
		case in.has[extBehind]:
			v, err := varintOf(in.body[extBehind], fieldBehind)
			if err != nil {
				return err
			}
			c.behind = v != 0
		}
		return nil
	})
}

// Footprint is about how many bytes the terminal state holds: its cells,
// those of the saved normal screen while the alternate one is shown, its
// strings, and its held channel messages.
func (c *Complete) Footprint() int {
	n := c.Framebuffer().Footprint() + c.chans.footprint() + c.scroll.footprint()
	if c.hist != nil {
		n += c.hist.Footprint()
	}
	return n
}

// Subtract drops the channel messages and scrollback lines c shares with
// prefix (the acknowledged part), keeping absolute positions; a terminal
// has no prefix to drop.
func (c *Complete) Subtract(prefix *Complete) {
	c.chans.trim(prefix.chans.total)
	c.scroll.trim(prefix.scroll.total)
}

// PushChannel appends a channel message (its Data copied).
func (c *Complete) PushChannel(m ChannelMsg) { c.chans.push(m) }

// ChannelTotal returns the number of channel messages ever appended (an
// absolute position).
func (c *Complete) ChannelTotal() uint64 { return c.chans.total }

// ChannelsSince returns the held channel messages from absolute position
// pos on, in order; those dropped by TrimChannels or Subtract are not
// returned. Their Data alias c's storage: read, do not modify.
func (c *Complete) ChannelsSince(pos uint64) []ChannelMsg { return c.chans.since(pos) }

// TrimChannels drops the held channel messages below absolute position
// pos (the receiver calls it once it consumed them); ChannelTotal is
// unchanged.
func (c *Complete) TrimChannels(pos uint64) { c.chans.trim(pos) }

// ChannelBytes returns the Data bytes of the channel messages held: for a
// sender's current state, whose acknowledged prefix the transport
// subtracts, the channel data still in flight.
func (c *Complete) ChannelBytes() int { return c.chans.bytes }

// EnableHistory makes c, a server's live state, record the lines that
// scroll off the top of its primary screen in a [vt.History] of at most
// maxLines lines. Clones do not record.
func (c *Complete) EnableHistory(maxLines int) { c.hist = c.emu.EnableHistory(maxLines) }

// History returns the history EnableHistory made, or nil.
func (c *Complete) History() *vt.History { return c.hist }

// PushScroll appends a scrollback line to the state's log (its Text
// copied).
func (c *Complete) PushScroll(l vt.ScrollLine) { c.scroll.push(l) }

// ScrollTotal returns the number of lines ever appended to the state's
// log (an absolute position).
func (c *Complete) ScrollTotal() uint64 { return c.scroll.total }

// ScrollSince returns the held lines of the log from absolute position pos
// on, in order. Their Text aliases c's storage: read, do not modify.
func (c *Complete) ScrollSince(pos uint64) []vt.ScrollLine { return c.scroll.since(pos) }

// TrimScroll drops the held lines below absolute position pos (the client
// calls it once they are in the terminal's scrollback).
func (c *Complete) TrimScroll(pos uint64) { c.scroll.trim(pos) }

// SetScrollBehind records whether the server's history holds lines that
// wait for room in the log: the screen then shows lines newer than those
// the client will receive next, and the client keeps it off the
// terminal's primary screen (section 12.3).
func (c *Complete) SetScrollBehind(behind bool) { c.behind = behind }

// ScrollBehind reports what SetScrollBehind recorded.
func (c *Complete) ScrollBehind() bool { return c.behind }

// ScrollHeld returns the number of lines the state's log holds: for a
// sender's current state, the lines still in flight.
func (c *Complete) ScrollHeld() int { return len(c.scroll.ents) }

// ScrollBytes returns the Text bytes of the lines held: for a sender's
// current state, the scrollback still in flight.
func (c *Complete) ScrollBytes() int { return c.scroll.bytes }

// ResetScroll empties the state's log and starts it over at position 0,
// for a new epoch whose initial state has an empty log.
func (c *Complete) ResetScroll() { c.scroll.reset(0) }

// ChannelHeld returns the number of channel messages held: for a
// sender's current state, those the peer has not acknowledged.
func (c *Complete) ChannelHeld() int { return len(c.chans.ents) }

// ResetChannels empties the channel log and starts it over at position 0,
// for a new epoch whose initial state has an empty log.
func (c *Complete) ResetChannels() { c.chans.reset(0) }

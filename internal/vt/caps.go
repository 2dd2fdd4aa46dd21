package vt

// Caps are display capabilities beyond what a stock Mosh 1.4 peer
// understands. The zero value is the stock-Mosh-safe wire profile:
// printable UTF-8, CR, LF, BS, BEL, CUP, EL, ED 2, ECH, DECSTBM, SGR with
// bold, italic, single underline, blink, inverse, invisible and
// 16/256/24-bit colours in the semicolon form, DEC private modes 5, 25, 9,
// 1000–1006, 1015 and 2004, and OSC 0/1/2/52 ended by BEL (spec section 9).
// Screen content using anything else is sent in its nearest stock form
// (e.g. a faint or curly-underlined cell as plain or underlined), and the
// display-only extras are not sent.
type Caps uint64

// Capability bits.
const (
	// CapStyles allows SGR 2 (faint), 9 (strikethrough), 53 (overline),
	// underline styles 4:2–4:5 and underline colours 58:5:n / 58:2::r:g:b.
	CapStyles Caps = 1 << iota
	// CapHyperlinks allows OSC 8 hyperlinks (ended by ST).
	CapHyperlinks
	// CapCursorStyle allows DECSCUSR (CSI Ps SP q).
	CapCursorStyle
	// CapLongOSC allows OSC strings longer than a stock Mosh emulator
	// keeps (16384 characters): without it a clipboard that long is not
	// sent at all rather than sent cut.
	CapLongOSC
	// CapAltScreen mirrors the alternate screen: a frame that switches
	// between the primary and the alternate screen starts with DEC private
	// mode 1049 (set or reset) and then draws the whole screen, so that a
	// terminal keeping the session's scrollback on its primary screen
	// shows full-screen programs on its own alternate one (section 12.3).
	CapAltScreen
)

// DisplayCaps describe the terminal a [Display] draws on.
type DisplayCaps struct {
	ECH    bool // ECH (CSI n X) may erase runs of blanks
	BCE    bool // erased cells take the current background colour
	Titles bool // OSC 0/1/2 may set the window title and icon name
	Ext    Caps // capabilities beyond the stock Mosh set
	// KeepHistory keeps the terminal's scrollback for [Display.PushLines]
	// alone: frames scroll by deleting lines at the top instead of line
	// feeds at the bottom, and clear the screen without ED 2 or ED from
	// the home position, which some terminals (VTE; tmux's
	// scroll-on-clear) turn into scrollback.
	KeepHistory bool
}

// WireDisplayCaps returns the profile of the host diff sent to a peer with
// capabilities c (0 for a stock mosh-client): the fixed terminal Mosh's
// server assumes (ECH, BCE and titles) plus c.
func WireDisplayCaps(c Caps) DisplayCaps {
	return DisplayCaps{ECH: true, BCE: true, Titles: true, Ext: c}
}

// XtermDisplayCaps returns the profile for a modern xterm-like terminal
// (xterm, tmux, VTE, kitty, iTerm2, Windows Terminal): everything above
// plus all [Caps].
func XtermDisplayCaps() DisplayCaps {
	return DisplayCaps{ECH: true, BCE: true, Titles: true,
		Ext: CapStyles | CapHyperlinks | CapCursorStyle | CapLongOSC}
}

// mask returns the rendition parts a profile can show.
func (c DisplayCaps) mask() renditionMask {
	if c.Ext&CapStyles != 0 {
		return renditionMask{attrs: ^Attr(0), ul: true, link: c.Ext&CapHyperlinks != 0}
	}
	return renditionMask{
		attrs: AttrBold | AttrItalic | AttrBlink | AttrInverse | AttrInvisible |
			Attr(UnderlineSingle)<<attrUnderlineShift,
		link: c.Ext&CapHyperlinks != 0,
	}
}

// Shown returns r as a terminal with these capabilities shows it: the
// parts it cannot draw removed (an underline style it lacks becomes a
// single underline) and the hyperlink id cleared (hyperlink ids are local
// to a framebuffer; compare targets with [Framebuffer.Link]).
func (c DisplayCaps) Shown(r Rendition) Rendition { return c.mask().apply(r) }

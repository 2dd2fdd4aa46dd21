package session

// Native scrollback (docs/protocol.md section 12.3): a gosh server records
// the lines that scroll off its primary screen and sends them in its state
// to a gosh client that advertised capScrollback, which moves them into
// the user's terminal's own scrollback.

// capScrollback is the gosh_caps bit of a peer that takes scrollback
// lines: a client that pushes them into its terminal's scrollback (and
// so keeps the terminal's primary screen), or a server that sends them.
const capScrollback = 1 << 33

// DefaultScrollback is how many lines a server keeps for its client's
// scrollback unless told otherwise (gosh server new --scrollback).
const DefaultScrollback = 10000

// scrollInFlight and scrollLinesInFlight bound the scrollback a server
// keeps in its state beyond what the client acknowledged: the rest waits
// in the history, so one flood cannot make every frame huge and stall the
// screen, and a client that is away gets the newest lines when it is back.
const (
	scrollInFlight      = 32 << 10
	scrollLinesInFlight = 1000
)

// pushScrollback moves lines from the history into the state for a client
// that takes them, as long as what is in flight stays under the bounds
// above. It runs on every loop iteration (acks make room) and after every
// line the history records, so that a flood read in one piece cannot
// push lines out of a small history before they had their chance. Lines the history dropped before they could go are
// skipped; the client sees the gap in the line numbers.
func (s *server) pushScrollback() {
	h := s.term.History()
	if h == nil || s.peerCaps()&capScrollback == 0 {
		return
	}
	s.histPos = max(s.histPos, h.First())
	if s.histPos < h.Total() && s.term.ScrollBehind() && !s.tr.Acked().SameScreen(s.term) {
		// Catching up: more lines go only once the client has the
		// screen. The frame that heals a lost one is a diff from the
		// acknowledged state, so it carries every scrollback line in
		// flight (up to scrollInFlight) ahead of the screen: on CS244's
		// 3G link a Ctrl-C in a flood showed its prompt a second late.
		// The history keeps the lines meanwhile.
		return
	}
	for s.histPos < h.Total() && s.term.ScrollBytes() < scrollInFlight && s.term.ScrollHeld() < scrollLinesInFlight {
		l, _ := h.Line(s.histPos)
		s.term.PushScroll(l)
		s.histPos++
	}
	s.term.SetScrollBehind(s.histPos < h.Total())
}

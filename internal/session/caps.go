package session

import "github.com/gosh-term/gosh/internal/vt"

// goshCaps are the display capabilities a gosh peer advertises in the
// transport's gosh_caps field (stock Mosh sends none and ignores ours). A
// gosh server sends screen content beyond the stock Mosh set only to a
// client that advertised it. A client paints the alternate screen on its
// terminal's only when it keeps the session's scrollback (internal/termview).
const goshCaps = vt.CapStyles | vt.CapHyperlinks | vt.CapCursorStyle | vt.CapLongOSC | vt.CapAltScreen

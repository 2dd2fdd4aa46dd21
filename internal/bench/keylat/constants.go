package keylat

import "time"

// WrongWindow is how far back a shown prediction may match the reference:
// a prediction stands for keystrokes whose echo comes an RTT and a few
// frame intervals later, and can lag what has been typed since.
const WrongWindow = 2 * time.Second

// Transient is how long a screen state must last to count as shown wrong:
// the client writes each frame at once, but the terminal may deliver it
// in pieces, whose intermediate states (a scroll without the rows redrawn
// after it) were never meant to be seen.
const Transient = time.Millisecond

// InstantLatency is the "shown at once" bound.
const InstantLatency = 5 * time.Millisecond

// NeverShownCap is what a keystroke that was never shown counts as in the
// figures of [Result.Stats] and [Result.Summary].
const NeverShownCap = 10 * time.Second

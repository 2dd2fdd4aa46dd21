// Package keylat measures keystroke response time: how long after each
// keystroke a client's screen first showed it, and whether the screen ever
// showed a wrong character (a misprediction of speculative local echo).
//
// It is the pure core shared by gosh's end-to-end typing tests
// (internal/e2etest) and "gosh bench typing": the caller types a workload
// into a session, records every state the client's screen went through as
// a [Snapshot] (the screen and when it was read), and records the screens a
// program shows after each keystroke when typed into it directly, with no
// network in between (the reference). [Session.Measure] (and [Measure])
// match the two:
//
//   - a keystroke is shown when a snapshot taken after it was typed has the
//     cursor where the reference after that keystroke (or after a later one
//     already typed) has it, with the same text on the cursor's row
//     ([SameLine]), and, when that line is as it was before the
//     keystroke (a pager's scroll moves only the rows above its prompt),
//     the same text on every row; its latency is the time from typing it
//     to that snapshot, and -1 if no snapshot ever matched;
//   - a keystroke is shown wrongly when, while it was the latest typed, a
//     snapshot that stayed on screen at least [Transient] showed something
//     that neither the server's program drew nor the keys in flight make.
//     [Session.Measure] judges every cell's text and the cursor, underlined
//     or not, against the references of the keystrokes in flight (from the
//     last one shown to the latest typed) and against the screen states the
//     server's program went through (Session.Server, recorded on the
//     server's side), so that a wrong blank, a wrong cursor move, or a
//     wrong prediction that matches an older screen count, and a state of
//     the server's screen the reference never held (output half drawn)
//     does not. It also tells whether a prediction was shown at all
//     (Result.Predicted): without one, the wrong figure means nothing
//     (Stats.NoPrediction, "n/a"). [Measure], the end-to-end tests' check,
//     counts only underlined characters that no reference of the previous
//     [WrongWindow] has at that place ([WrongCell]).
//
// [Stats] condenses a measurement into the figures of a report: median,
// mean, 95th and 99th percentiles, the fraction shown within
// [InstantLatency] and the fraction shown wrongly. A keystroke never shown
// counts as a stated cap ([NeverShownCap] by default) and is counted on
// its own.
//
// The figure of merit follows Figure 2 of Winstein and Balakrishnan,
// "Mosh: An Interactive Remote Shell for Mobile Clients" (USENIX ATC 2012),
// which plots the distribution of keystroke response times for SSH and
// Mosh over the same link.
//
// keylat does no I/O and reads no clock: times arrive with the snapshots
// and keystrokes. Nothing in it is safe for concurrent use with writers of
// the framebuffers it is given.
package keylat

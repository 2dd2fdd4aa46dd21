// Package predict is gosh's speculative local echo: the client guesses
// the effect of each keystroke on the server's screen and shows the guess
// at once, instead of an RTT later when the server's echo arrives
// (Mosh's prediction engine, spec section 11.5; the Mosh paper,
// section 3.2).
//
// # Model
//
// An [Engine] keeps cell predictions (per screen cell: the character it
// will show, or "unknown", plus the earlier contents of the cell) and
// cursor predictions. Every prediction records the client state that
// carries its keystroke (the frame: the transport's newest sent state
// plus one) and an epoch.
//
// Keys predicted: printable characters, including UTF-8 and wide (CJK)
// characters, drawn at the cursor with the rest of the row shifted right
// (or overwritten, with MOSH_PREDICTION_OVERWRITE=yes); backspace (DEL);
// the left and right arrows; Enter (the cursor to the next line). Typing
// in the last column wraps to the next row.
//
// Epochs: a prediction is shown only once the server has confirmed a
// prediction of its epoch. Keys whose effect cannot be known (Enter,
// control keys, escape sequences, the up and down arrows, Escape alone)
// start a new epoch, so after them nothing is shown until the server has
// echoed a keystroke as predicted. That is what keeps a password typed
// after "sudo" or at any prompt that does not echo from ever appearing,
// and full-screen programs in command mode (vi's normal mode) from
// showing typed commands as text.
//
// Validation ([Engine.Cull]) uses the server's echo ack (spec section
// 8.3; [Link].EchoAck), not the transport ack: once the echo ack covers a prediction's
// frame, the server has had 50 ms to echo it, so the screen it sent
// either shows the prediction (confirmed: its epoch is shown from now on)
// or not (wrong: a hidden epoch is dropped; if it was shown, everything
// is). The transport ack bounds which keystrokes the screen may show
// beyond that.
//
// Display ([Engine.Apply]) follows Mosh's thresholds on the transport's
// send interval (clamp(SRTT/2, 20 ms, 250 ms)): predictions are shown
// when it exceeds 30 ms (off again at 20 ms with nothing outstanding),
// and underlined above 80 ms (off at 50 ms). A prediction pending for
// 250 ms turns display on whatever the RTT (the glitch trigger), for 5 s
// underlining too; quick confirmations, at most one per 150 ms, undo it.
// Modes ([Mode], --predict, MOSH_PREDICTION_DISPLAY): adaptive, always,
// never, experimental (shown at once, wrong guesses dropped one by one).
//
// # Beyond stock Mosh
//
// Mosh gets an Enter wrong whenever the prompt does not leave the cursor
// at column 0, and then restarts from the server's cursor as if nothing
// were in flight: while the typist keeps typing, every later guess is off
// by the keys not yet echoed and is dropped in turn, and nothing is shown
// until the typist pauses. gosh's improvements are switches of
// [Features], each gating the branches its doc names; [GoshFeatures] (what
// [NewEngine] and gosh connect use) turns them all on, and the zero
// Features models stock Mosh 1.4. With them, the engine:
//
//   - re-bases on the server's screen plus the keys still in flight
//     ([Features.Rebase]): the keys the echo ack covers are on the
//     screen, those received but not yet acked are matched against the
//     echo the screen shows left of its cursor, and the rest are
//     predicted again (rebase.go);
//   - confirms a hidden epoch as soon as the screen shows the text
//     typed since the break echoed exactly at the server's cursor, on a
//     row the server has redrawn since, or the very prompt of the last
//     confirmed line back after an Enter ([Features.QuickConfirm]);
//   - learns the column where lines start after Enter (the prompt's
//     width, or an editor's indentation), also a new program's prompt,
//     and predicts the cursor there ([Features.LineStart]);
//   - confirms a hidden epoch only if the server's cursor is where the
//     predictions put it, so a guess that matches the screen by chance
//     (a password letter equal to a prompt letter) confirms nothing
//     ([Features.CursorCheck]);
//   - does not count a mismatch as wrong when a key of unpredicted
//     effect typed after it may already have changed the screen
//     ([Features.BlameOpaque]);
//   - predicts wide characters and the right arrow over them
//     ([Features.WideChars]), backspace and the left arrow across a
//     wrapped row's start ([Features.WrapBack]), wrapping at the margin
//     on the primary screen (a shell) without hiding the next
//     characters ([Features.ShellWrap]), no move past the end of the
//     text or into the prompt ([Features.LineBounds]), and blank (not
//     stale) cells after a deletion ([Features.BlankEnd]);
//   - keeps a shown guess on the screen when a later, hidden one
//     replaces it, until that one is confirmed or its own echo is due
//     ([Features.HoldShown]);
//   - follows the mode of a modal program ([Features.EditorModes],
//     editor.go): vi's insert mode, which its screen shows ("-- INSERT
//     --" on the bottom row); its normal mode, entered with Escape; a
//     prompt on the bottom row opened by vi's : / ? or less's / ?; less
//     waiting for a command (":" alone on the bottom row). In a known
//     mode, Escape (the cursor one column left), vi's motions (h l 0 $ w
//     b j k G), x, the keys that start insert mode (i a A I o, with "--
//     INSERT --" on the bottom row) and those that open a prompt are
//     predicted as the program acts on them, less's scrolls (j k space b
//     g) from the lines of its file it has shown before (a document
//     built from its screens, pager.go), other commands are not
//     guessed as text, and a key typed when the server has echoed every
//     earlier one starts a confirmed epoch. Each effect (a key in a mode)
//     is predicted hidden until the server has shown it once as
//     predicted; a shown prediction found wrong forgets the mode and all
//     that was learned.
//
// Each switch works alone, and the tests turn each one off in a scenario
// where it matters (features_test.go). A simulated 500 ms path with a
// readline-like shell (netsim_test.go) compares gosh with the stock Mosh
// model: the continuous-typing tests show gosh displaying far more
// keystrokes at once and none wrongly.
//
// # References
//
//   - K. Winstein and H. Balakrishnan, "Mosh: An Interactive Remote Shell
//     for Mobile Clients", USENIX ATC 2012, section 3.2.
//   - gosh's spec, docs/protocol.md sections 8.3 (echo ack), 11.1 (client
//     loop, paste heuristic) and 11.5 (prediction engine).
//   - Mosh issue #702 (a split UTF-8 character predicted as "Gück").
package predict

package predict

// Features switches gosh's improvements over stock Mosh 1.4's prediction
// engine, one field per improvement; each names the branches it gates
// (file and function). [GoshFeatures] turns every one on, as gosh
// connect does. The zero Features behaves as stock Mosh 1.4's engine: the
// tests run that model to compare gosh with. Each switch works alone, so
// turning any one off gives gosh without just that improvement.
type Features struct {
	// Rebase re-predicts the keystrokes still in flight on the server's
	// screen after a hidden epoch is killed or a shown prediction is
	// wrong (cull.go Cull calling rebase.go rebase): the screen is taken
	// to show the keys up to the echo ack and, as far as its echo shows,
	// the ones received since; the rest are predicted again.
	//
	// Off, killEpoch (cull.go) restarts the cursor from the server's as
	// if nothing were in flight, as Mosh does: while the typist keeps
	// typing, every later guess is off by the keys not yet echoed and is
	// killed in turn, so nothing shows until the typist pauses. The
	// restart belongs to this switch because re-basing replaces it.
	Rebase bool

	// QuickConfirm confirms a hidden epoch as soon as the server's screen
	// shows its outcome, instead of waiting for the echo ack of one of
	// its predictions: the text typed since the last break key (Enter,
	// Tab, an arrow up...) echoed exactly at the server's cursor, on a
	// row the server has redrawn since (rebase.go confirmByEcho, and
	// rebase when a killed epoch's line shows echoed), or after an Enter
	// the prompt of the last confirmed line back, with the cursor right
	// after it and nothing typed since received (rebase.go
	// confirmByPrompt). The keys in flight are then re-based, shown: what
	// is typed right after Enter shows at once, not an RTT later. It
	// re-bases whether or not [Features.Rebase] is on. [Stats].Quick
	// counts these confirmations.
	QuickConfirm bool

	// LineStart predicts the cursor after Enter at the column where the
	// last line the server confirmed started (the prompt's width, or an
	// editor's indentation), learned from the server's screen
	// (motion.go newline). When the server contradicts the guess after
	// Enter (a program with a prompt of its own, such as python's ">>> "
	// after the shell's "$ "), the line is taken to start where the
	// server's cursor is when the next key is typed (rebase.go rebase,
	// keys.go initCursor), so that the echo confirming that key teaches
	// the new prompt. Off, Enter predicts column 0 as in Mosh,
	// which a prompt makes wrong, so what is typed after Enter is killed
	// and hidden until re-based (or, with [Features.QuickConfirm],
	// confirmed as its echo shows).
	LineStart bool

	// CursorCheck confirms a hidden epoch only if the server's cursor is
	// where the predictions put it after one of the keys the screen may
	// show (cull.go judgeCells, using rebase.go cursorConsistent): a guess
	// that matches the screen by chance, such as the first letter of a
	// password typed where the password prompt has that letter, confirms
	// nothing, so the rest of the password is never shown.
	CursorCheck bool

	// BlameOpaque counts a mismatch as inconclusive (no credit, not
	// wrong) when a key of unpredicted effect (Enter, a control key, an
	// escape sequence) typed after the prediction has reached the server,
	// which may already have acted on it (cull.go inconclusive): the
	// screen can show the effect of every key up to the transport ack.
	// Off, as in Mosh, Ctrl-U typed right after a shown character makes
	// that character wrong and resets every prediction.
	BlameOpaque bool

	// WideChars predicts wide (CJK) characters: two columns, wrapping
	// first if one does not fit (keys.go printRune); the right arrow over
	// a whole one (motion.go moveRight); and in overwrite mode, typing
	// over the first half of one blanks its second half (keys.go
	// putRune). Off, as in Mosh, a character of any width but 1 has an
	// unknown effect and starts a hidden epoch. Backspace and the left
	// arrow move over a wide character shown on the screen either way.
	WideChars bool

	// WrapBack predicts backspace and the left arrow at column 0 of a row
	// that continues the one above (a wrapped command line) as a line
	// editor does: the cursor goes to the end of the row above, and
	// backspace deletes the character there, the text after the cursor
	// moving up (motion.go backspace, backspaceWrapped, moveLeft; not
	// backspace in overwrite mode). Off, as in Mosh, the cursor is
	// predicted to stay at column 0, which the echo then shows wrong.
	WrapBack bool

	// ShellWrap predicts a character typed in the last column of the
	// primary screen to wrap plainly onto the next row, as line editors
	// do (readline, zle, a tty in canonical mode), keeping the epoch
	// shown (keys.go trustWrap). Off, as in Mosh, the wrap starts a
	// hidden epoch: the characters typed after it show only once one of
	// them is confirmed. On the alternate screen, where a full-screen
	// program may draw a continuation mark, and on the bottom row, where
	// the screen would scroll, the wrap is hidden either way.
	ShellWrap bool

	// LineBounds keeps predicted cursor motion within the line's text, as
	// line editors do: backspace and the left arrow do not delete or
	// enter the prompt, left of where the server confirmed the line
	// starts (motion.go beforeLineStart); the key's effect is unknown
	// instead, starting a hidden epoch. And the right arrow at the end of
	// the text stays put (motion.go moveRight). Off, as in Mosh, both
	// move the cursor, which the echo then shows wrong.
	LineBounds bool

	// BlankEnd predicts the last cells of a row that a deletion
	// (backspace in insert mode) shifts left blank when the row does not
	// continue on the next one (keys.go shiftLeft). Off, as in Mosh, they
	// are unknown, so the server's old text stays there, underlined,
	// until the echo arrives.
	BlankEnd bool

	// HoldShown keeps a shown prediction on the screen when a later
	// prediction of a hidden epoch replaces it (keys.go startCell), until
	// that epoch is confirmed or the shown one's own keystroke has been
	// echoed. Off, as in Mosh, the shown prediction disappears at once:
	// typing Escape and then a motion key after text inserted in the
	// middle of a line in vi hides the shifted text right of the cursor.
	HoldShown bool

	// EditorModes follows the mode of a modal program reading the keys
	// (editor.go): vi's insert mode, which its screen shows ("-- INSERT
	// --" on the bottom row); its normal mode, entered with Escape from
	// insert mode; a prompt on the bottom row opened by vi's : / ? or
	// less's / ?; and less waiting for a command (":" alone on the bottom
	// row). In a known mode, Escape, vi's motions h l 0 $ w b j k, x, the
	// keys that start insert mode (i a A I, and o where the end of the
	// file shows) and those that open a prompt are predicted as the
	// program acts on them, less's scrolls (j k space b g) whole screens
	// at a time when every line they bring was on its screen before
	// (pager.go), the other commands are not taken for text,
	// and a key typed when the server's screen shows every earlier key
	// starts a confirmed epoch (editor.go settle). Each effect is shown
	// only once the server has shown it as predicted (a hidden epoch
	// before), and a shown prediction found wrong forgets them all. Off,
	// as in Mosh, every key is a line editor's: normal-mode commands are
	// guessed as text and hidden, and what is typed after them shows
	// only once its echo confirms it.
	EditorModes bool
}

// GoshFeatures is every improvement on: the engine gosh connect uses.
var GoshFeatures = Features{
	Rebase:       true,
	QuickConfirm: true,
	LineStart:    true,
	CursorCheck:  true,
	BlameOpaque:  true,
	WideChars:    true,
	WrapBack:     true,
	ShellWrap:    true,
	LineBounds:   true,
	BlankEnd:     true,
	HoldShown:    true,
	EditorModes:  true,
}

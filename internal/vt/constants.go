package vt

// Protocol constants: Mosh 1.4's emulator behaviour that a peer relies on
// (spec section 10).
const (
	// MaxParamValue is the largest parameter value; larger values read as
	// absent (0), as in Mosh, so "CSI 99999999 ; 99999999 H" homes the
	// cursor.
	MaxParamValue = 65535

	// maxCellBytes caps the UTF-8 size of a cell's grapheme; further
	// combining characters are dropped.
	maxCellBytes = 32

	// moshOSCLimit is how many OSC characters a stock Mosh emulator keeps;
	// the wire profile never sends a longer OSC string.
	moshOSCLimit = 16384
)

// Implementation limits: longer or larger input is cut, never buffered or
// allocated without bound.
const (
	// MaxParams is the number of CSI/DCS parameters (including colon
	// sub-parameters) kept; further ones are dropped.
	MaxParams = 32

	// maxInter is the number of intermediate bytes kept; a sequence with
	// more is ignored.
	maxInter = 2

	// MaxOSC is the number of bytes of an OSC string kept (large enough for
	// big OSC 52 clipboard payloads); the rest is dropped and the string is
	// reported as truncated, and a truncated string is not acted upon
	// (except a title, which is cut at MaxTitle anyway).
	MaxOSC = 1 << 20

	// MaxTitle is the number of bytes of a title or icon name kept.
	MaxTitle = 1024

	// MaxLinks is the number of distinct hyperlink targets a framebuffer
	// keeps; beyond it, unused ones are dropped (at most once per
	// screenful of printed cells), and if all are in use a new link is not
	// recorded.
	MaxLinks = 512

	// MaxLinkLen is the longest hyperlink (params;URI) recorded.
	MaxLinkLen = 4096

	// maxBells is the most BELs one frame sends: one per bell rung since
	// the last frame (Mosh sends one), so that a receiver's bell counter
	// follows the sender's in all but floods.
	maxBells = 8

	// MaxCols and MaxRows bound the screen size; a resize beyond them is
	// clamped.
	MaxCols = 1024
	MaxRows = 512
)

// Package vt is gosh's terminal emulator and screen differ, compatible
// with Mosh 1.4. The states the SSP transport synchronises, built on them,
// are in package statesync.
//
// # Pieces
//
//   - [Parser]: a DEC VT500-series state machine (Paul Williams' model) over
//     UTF-8-decoded input: ground, escape, CSI, DCS, OSC and SOS/PM/APC
//     states with private markers, intermediates and parameters including
//     colon sub-parameters. Invalid UTF-8 becomes U+FFFD; C1 controls are
//     recognised as code points U+0080–U+009F and as 7-bit ESC Fe.
//   - [Framebuffer]: rows of compact [Cell]s (a grapheme, its width and a
//     [Rendition]), cursor, modes, titles, clipboard, bell counter,
//     hyperlinks, and the emulator state that is not displayed (scroll
//     region, tab stops, saved cursor, character sets). Rows are shared
//     copy-on-write, so [Framebuffer.Clone] is cheap.
//   - [Emulator]: the control functions (below). Answers to queries are
//     returned by [Emulator.Feed], never written to a pipe.
//   - [Display]: the differ that turns one screen into another with a short
//     escape stream, for the wire ([WireDisplayCaps]) and for the user's
//     terminal ([XtermDisplayCaps]).
//   - [History]: the lines that scroll off the top of the primary screen,
//     recorded as a terminal keeps its scrollback ([Emulator.EnableHistory])
//     as [ScrollLine]s, and [Display.PushLines], which moves such lines
//     into the scrollback of the user's terminal (spec section 12.3).
//   - [Width]: character widths from one bundled table (glibc 2.36, as a
//     stock Mosh peer on Debian 12 computes them).
//
// # Emulation
//
// Everything stock Mosh's emulator does (spec section 10): C0/C1 controls,
// ICH, CUU/CUD/CUF/CUB, CNL, CPL, CHA, HPA, HPR, CUP, HVP, VPA, VPR, CHT, CBT,
// ED, EL (and the DEC selective forms), IL, DL, DCH, SU, SD, ECH, TBC, HTS,
// DECSTBM, DECSC/DECRC, RIS, DECSTR, DECALN, SM/RM 4 (insert), DEC private
// modes 1, 3, 5, 6, 7, 25, 9, 1000–1006, 1015, 1007, 2004, SGR, OSC 0/1/2/52,
// DA, DA2, DSR 5/6; Mosh's rules for wrapping (pending wrap, wide characters
// at the margin), combining characters (U+00A0 fallback on empty cells,
// 32-byte cells), background colour erase, tab stops and resizing.
//
// Beyond Mosh: alternate screen (47, 1047, 1048, 1049), DEC special graphics
// and UK character sets (G0–G3, SO/SI, LS2/LS3, SS2/SS3), REP, faint, italic,
// strikethrough, overline, underline styles (4:0–4:5, 21) and underline
// colour (58/59), 256 and 24-bit colours in semicolon and colon forms,
// DECSCUSR, SCOSC/SCORC, DECXCPR, DECRQM, XTWINOPS 18, OSC 8 hyperlinks,
// origin mode confining the cursor, and scrollback: given a [History],
// the emulator records the rows that leave the top of its primary screen
// (by a line feed or SU in a scroll region starting at the top, or by a
// shrink above the cursor), as xterm keeps them. Not implemented:
// left/right margins (DECLRMM/DECSLRM), double-width lines, DCS functions
// (DECRQSS, sixel: their content is swallowed), soft fonts, 8-bit C1 bytes
// (they are invalid UTF-8, as in Mosh).
//
// Where Mosh and xterm disagree the emulator follows Mosh, whose differ
// output it must interpret exactly; the tmux conformance test lists the
// remaining differences from tmux with their reasons.
//
// # Limits
//
// Hostile output cannot make the emulator allocate without bound or take
// more than linear time: at most [MaxParams] parameters, values above
// [MaxParamValue] read as absent, [MaxOSC] bytes of OSC string, titles cut
// at [MaxTitle] bytes, [MaxLinks] hyperlink targets of [MaxLinkLen] bytes,
// REP limited to one line, and sizes clamped to [MaxCols]×[MaxRows].
//
// # Display profiles
//
// The wire profile ([WireDisplayCaps](0)) emits only what a stock
// mosh-client applies correctly: printable UTF-8, CR, LF, BS, BEL, CUP, EL,
// ED 2, ECH, DECSTBM, absolute SGR in Mosh's form (0, 1, 3, 4, 5, 7, 8 and
// colours as 3N/4N, 38;5;N/48;5;N, 38;2;R;G;B/48;2;R;G;B), DEC private modes
// 5, 25, 9, 1000–1006, 1015, 2004, and OSC 0/1/2/52 ended by BEL. Content
// it cannot express is sent in its nearest form (a faint cell as normal, a
// curly underline as an underline) and states differing only in it are
// equal. [Caps] bits add, for a gosh peer or a modern terminal: SGR 2, 9,
// 53, 4:n and 58 ([CapStyles]); OSC 8 ended by ST ([CapHyperlinks]); DECSCUSR
// ([CapCursorStyle]); OSC 52 beyond Mosh's 16384-character limit
// ([CapLongOSC]). [DisplayCaps] also says whether ECH and background colour
// erase may be used and whether titles are set.
//
// # References
//
//   - Mosh 1.4 wire and behaviour notes: gosh's spec, sections 9, 10 and
//     12.3; K. Winstein and H. Balakrishnan, "Mosh: An Interactive Remote
//     Shell for Mobile Clients", USENIX ATC 2012, section 3.1.
//   - ECMA-48, Control Functions for Coded Character Sets, 5th edition.
//   - P. Williams, "A parser for DEC's ANSI-compatible video terminals",
//     https://vt100.net/emu/dec_ansi_parser, and the VT100/VT510 manuals at
//     https://vt100.net/docs/.
//   - xterm control sequences (ctlseqs), for the extensions.
package vt

package terminfo

import "strings"

// TrueColor is the colour count of a terminal with 24-bit colour, as
// terminfo's direct-colour entries give it (colors#0x1000000).
const TrueColor = 1 << 24

// trueColorPrograms are TERM_PROGRAM values of terminals with 24-bit
// colour.
var trueColorPrograms = []string{"ghostty", "WezTerm", "iTerm.app", "vscode", "Tabby", "Hyper", "rio", "contour"}

// trueColorTerms are TERM values (or their prefixes, up to a '-') of
// terminals with 24-bit colour whose terminfo entries the hosts they log
// in to, or this one, often lack.
var trueColorTerms = []string{"xterm-ghostty", "ghostty", "xterm-kitty", "kitty", "alacritty", "wezterm", "foot", "contour", "rio"}

// Colors is the number of colours of the user's terminal, from what
// terminals put in the environment (getenv) where it tells, else from
// its terminfo entry (nil: none was found), else 8:
//   - COLORTERM=truecolor or 24bit, Windows Terminal (WT_SESSION), a
//     TERM_PROGRAM or TERM of a terminal known for 24-bit colour
//     (ghostty, kitty, Alacritty, WezTerm, foot, iTerm2, …), a TERM
//     ending in -direct, and the Windows console with no TERM (goos
//     "windows": it has had 24-bit colour since Windows 10 1703) are
//     [TrueColor];
//   - Apple's Terminal (TERM_PROGRAM=Apple_Terminal) and a TERM naming
//     256 colours have at least 256.
//
// It is pure: the caller passes the environment and the platform.
func Colors(getenv func(string) string, goos string, entry *Terminal) int {
	term := getenv("TERM")
	switch ct := strings.ToLower(getenv("COLORTERM")); {
	case ct == "truecolor" || ct == "24bit",
		getenv("WT_SESSION") != "",
		goos == "windows" && term == "",
		knownTrueColor(getenv("TERM_PROGRAM"), term):
		return TrueColor
	}
	n := 8
	if entry != nil && entry.Colors > 0 {
		n = entry.Colors
	}
	if getenv("TERM_PROGRAM") == "Apple_Terminal" || strings.Contains(term, "256color") {
		n = max(n, 256)
	}
	return n
}

// knownTrueColor reports whether TERM_PROGRAM or TERM names a terminal
// with 24-bit colour.
func knownTrueColor(program, term string) bool {
	for _, p := range trueColorPrograms {
		if strings.EqualFold(program, p) {
			return true
		}
	}
	if strings.HasSuffix(term, "-direct") {
		return true
	}
	for _, t := range trueColorTerms {
		if term == t || strings.HasPrefix(term, t+"-") {
			return true
		}
	}
	return false
}

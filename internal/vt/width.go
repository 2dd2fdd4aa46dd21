package vt

//go:generate sh -c "gcc -O2 -o /tmp/gosh-wcwidth testdata/widthgen/wcwidth.c && /tmp/gosh-wcwidth > testdata/wcwidth-glibc.txt"
//go:generate go run testdata/widthgen/gen.go testdata/wcwidth-glibc.txt width_table.go

// Width reports how many terminal columns r occupies: 1 or 2 for printable
// characters, 0 for combining characters (they join the preceding cell) and
// -1 for characters that are not printable (the emulator drops them).
//
// The table is bundled, so client and server agree whatever their C
// library says. It is Mosh's rule on a Debian 12 host, which is what a stock
// mosh-server or mosh-client there computes:
//
//   - printable ISO-8859-1 (U+0020–U+007E, U+00A0–U+00FF) is 1;
//   - everything else is glibc 2.36's wcwidth() in the C.UTF-8 locale (all
//     glibc UTF-8 locales share that width data), dumped over every code
//     point by testdata/widthgen/wcwidth.c into testdata/wcwidth-glibc.txt
//     and compiled into width_table.go by testdata/widthgen/gen.go
//     (`go generate` rebuilds both on a glibc host).
//
// glibc 2.36 derives its widths from Unicode 14.0: East Asian Wide and
// Fullwidth characters and emoji with Emoji_Presentation are 2, nonspacing
// and enclosing marks (Mn, Me), format characters (Cf, except U+00AD) and
// Hangul medial vowels and final consonants (U+1160–U+11FF) are 0, and
// unassigned code points, surrogates and controls are -1. Characters added
// in Unicode 15 or later are therefore not printable here, exactly as for a
// stock Mosh peer built against the same glibc; a peer built against another
// C library (macOS, musl, a newer glibc) can disagree on those, which is a
// Mosh limitation gosh cannot fix from one side.
func Width(r rune) int {
	if r < 0x100 {
		switch {
		case r >= 0x20 && r < 0x7F, r >= 0xA0:
			return 1
		case r == 0:
			return 0
		}
		return -1
	}
	if r > 0x10FFFF {
		return -1
	}
	blk := widthStage1[r>>8]
	i := r & 0xFF
	w := (widthStage2[blk][i>>2] >> (2 * (i & 3))) & 3
	if w == 3 {
		return -1
	}
	return int(w)
}

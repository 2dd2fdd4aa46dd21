package vttest

import (
	"fmt"
	"math/rand/v2"
)

// RandomOutput returns n random pieces of host output for a w×h screen:
// text (ASCII, wide, combining, line drawing) and the control functions
// the emulator knows, with parameters often out of range.
func RandomOutput(rng *rand.Rand, w, h, n int) []byte {
	var b []byte
	for range n {
		b = appendRandomOp(b, rng, w, h)
	}
	return b
}

var (
	randomText = []string{
		"hello", "a", " ", "  x", "wide中文", "한글", "e\u0301", "\u0301", "😀", "x\u200dy",
		"\u00a0", "ü", "\t", "\u3000", "abcdefghijklmnopqrstuvwxyz", "\x7f", "\ufffd", "\xff",
	}
	randomSGR = []string{
		"0", "1", "2", "3", "4", "4:3", "4:0", "5", "7", "8", "9", "21", "22", "24", "27", "53",
		"31", "42", "97", "104", "39", "49", "38;5;200", "48;5;3", "38;2;1;2;3", "48;2;250;0;9",
		"38:2::10:20:30", "38:5:17", "58:5:9", "58:2::1:2:3", "59", "1;4;7;31;44", "38;5", "",
	}
	randomCSI = []string{
		"A", "B", "C", "D", "E", "F", "G", "d", "e", "a", "`", "H", "f", "I", "Z", "J", "K",
		"L", "M", "P", "S", "T", "X", "@", "b", "g", "s", "u", " q", "!p",
	}
	randomModes = []string{
		"?7", "?6", "4", "?25", "?5", "?2004", "?1000", "?1002", "?1006", "?1004", "?1049",
		"?1047", "?47", "?1", "?3", "?1048", "?1005", "?1003",
	}
	randomOther = []string{
		"\r\n", "\n", "\r", "\b", "\x1b7", "\x1b8", "\x1bM", "\x1bD", "\x1bE", "\x1bH",
		"\x1b(0lqk\x1b(B", "\x1b)0\x0ex\x0f", "\x07", "\x1b]0;title\x07", "\x1b]2;win\x1b\\",
		"\x1b]1;icon\x07", "\x1b]52;c;aGk=\x07", "\x1b]8;;http://x/\x1b\\link\x1b]8;;\x1b\\",
		"\x1b]8;id=1;http://y/\x07", "\x1b]8;;\x07", "\x1b#8", "\x1bc", "\x1b[?25l", "\x1b[?25h",
	}
)

// appendRandomOp appends one random piece of output to b.
func appendRandomOp(b []byte, rng *rand.Rand, w, h int) []byte {
	num := func() int {
		if rng.IntN(8) == 0 {
			return rng.IntN(3 * max(w, h))
		}
		return rng.IntN(4)
	}
	switch k := rng.IntN(20); {
	case k < 7:
		return append(b, randomText[rng.IntN(len(randomText))]...)
	case k < 9:
		return fmt.Appendf(b, "\x1b[%sm", randomSGR[rng.IntN(len(randomSGR))])
	case k < 13:
		return fmt.Appendf(b, "\x1b[%d%s", num(), randomCSI[rng.IntN(len(randomCSI))])
	case k == 13:
		return fmt.Appendf(b, "\x1b[%d;%dH", rng.IntN(h+2), rng.IntN(w+2))
	case k == 14:
		return fmt.Appendf(b, "\x1b[%d;%dr", rng.IntN(h+1), rng.IntN(h+2))
	case k == 15:
		return fmt.Appendf(b, "\x1b[%s%c", randomModes[rng.IntN(len(randomModes))], "hl"[rng.IntN(2)])
	case k == 16:
		return fmt.Appendf(b, "\x1b[%dJ", rng.IntN(4))
	}
	s := randomOther[rng.IntN(len(randomOther))]
	if s == "\x1bc" && rng.IntN(4) != 0 {
		s = "x"
	}
	return append(b, s...)
}

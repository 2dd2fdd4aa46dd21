package vt_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/vt"
	"github.com/gosh-term/gosh/internal/vt/vttest"
)

// emuCase is one emulator behaviour: input fed to a w×h emulator, the
// expected row texts (trailing blanks trimmed; missing rows are blank) and
// cursor (column, row).
type emuCase struct {
	name   string
	w, h   int
	input  []string
	want   []string
	cursor [2]int
	check  func(t *testing.T, fb *vt.Framebuffer) // optional extra checks
}

func runEmuCases(t *testing.T, cases []emuCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := vt.NewEmulator(tc.w, tc.h)
			for _, in := range tc.input {
				if reply := e.Feed([]byte(in), nil); len(reply) != 0 {
					t.Errorf("Feed(%q) replied %q", in, reply)
				}
			}
			fb := e.Framebuffer()
			got := vttest.Rows(fb)
			want := make([]string, tc.h)
			copy(want, tc.want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("Feed(%q) rows =\n%q\nwant\n%q", tc.input, got, want)
			}
			if x, y := fb.Cursor(); x != tc.cursor[0] || y != tc.cursor[1] {
				t.Errorf("Feed(%q) cursor = (%d,%d), want (%d,%d)", tc.input, x, y, tc.cursor[0], tc.cursor[1])
			}
			if tc.check != nil {
				tc.check(t, fb)
			}
		})
	}
}

func TestCursor(t *testing.T) {
	runEmuCases(t, []emuCase{
		{name: "CUP", w: 10, h: 3, input: []string{
			"\x1b[2;3H", // CUP row 2 column 3
			"x",
		}, want: []string{"", "  x"}, cursor: [2]int{3, 1}},
		{name: "CUP defaults and zero", w: 10, h: 3, input: []string{
			"abc",
			"\x1b[0;0H", // CUP with 0 parameters: home
			"X",
		}, want: []string{"Xbc"}, cursor: [2]int{1, 0}},
		{name: "CUP absurd parameters read as default", w: 10, h: 3, input: []string{
			"\x1b[2;2H",               // CUP 2;2
			"\x1b[99999999;99999999H", // CUP beyond 65535: absent, so home
		}, cursor: [2]int{0, 0}},
		{name: "CUP clamped", w: 10, h: 3, input: []string{
			"\x1b[50;50H", // CUP past the screen
		}, cursor: [2]int{9, 2}},
		{name: "HVP", w: 10, h: 3, input: []string{
			"\x1b[3;4f", // HVP row 3 column 4
		}, cursor: [2]int{3, 2}},
		{name: "relative moves", w: 10, h: 5, input: []string{
			"\x1b[3B", // CUD 3
			"\x1b[4C", // CUF 4
			"\x1b[A",  // CUU 1
			"\x1b[2D", // CUB 2
		}, cursor: [2]int{2, 2}},
		{name: "relative moves clamp", w: 10, h: 5, input: []string{
			"\x1b[99A", // CUU 99
			"\x1b[99D", // CUB 99
		}, cursor: [2]int{0, 0}},
		{name: "CNL CPL", w: 10, h: 5, input: []string{
			"abc",
			"\x1b[2E", // CNL 2
			"d",
			"\x1b[F", // CPL 1
		}, want: []string{"abc", "", "d"}, cursor: [2]int{0, 1}},
		{name: "CHA HPA VPA HPR VPR", w: 10, h: 5, input: []string{
			"\x1b[5G", // CHA column 5
			"\x1b[3d", // VPA row 3
			"\x1b[2a", // HPR +2
			"\x1b[e",  // VPR +1
			"\x1b[2`", // HPA column 2
		}, cursor: [2]int{1, 3}},
		{name: "BS stops at column 0", w: 10, h: 2, input: []string{
			"ab\b\b\bX",
		}, want: []string{"Xb"}, cursor: [2]int{1, 0}},
		{name: "CR LF", w: 10, h: 3, input: []string{
			"ab\r\ncd",
		}, want: []string{"ab", "cd"}, cursor: [2]int{2, 1}},
		{name: "LF keeps the column", w: 10, h: 3, input: []string{
			"ab\ncd",
		}, want: []string{"ab", "  cd"}, cursor: [2]int{4, 1}},
		{name: "VT FF act as LF", w: 10, h: 3, input: []string{
			"a\x0bb\x0cc",
		}, want: []string{"a", " b", "  c"}, cursor: [2]int{3, 2}},
		{name: "HT and tab stops", w: 20, h: 2, input: []string{
			"a\tb\tc",
		}, want: []string{"a       b       c"}, cursor: [2]int{17, 0}},
		{name: "HT to last column without stop", w: 12, h: 2, input: []string{
			"\t\t\tx",
		}, want: []string{"           x"}, cursor: [2]int{11, 0}},
		{name: "HTS TBC", w: 20, h: 2, input: []string{
			"\x1b[3g", // TBC 3: clear all stops
			"\x1b[4G", // CHA column 4
			"\x1bH",   // HTS
			"\r\tx",
		}, want: []string{"   x"}, cursor: [2]int{4, 0}},
		{name: "CHT CBT", w: 30, h: 2, input: []string{
			"\x1b[2I", // CHT 2
			"x",
			"\x1b[2Z", // CBT 2
			"y",
		}, want: []string{"        y       x"}, cursor: [2]int{9, 0}},
		{name: "DECSC DECRC", w: 10, h: 3, input: []string{
			"\x1b[2;3H", // CUP 2;3
			"\x1b7",     // DECSC
			"\x1b[H",    // CUP home
			"\x1b8",     // DECRC
			"x",
		}, want: []string{"", "  x"}, cursor: [2]int{3, 1}},
		{name: "SCOSC SCORC", w: 10, h: 3, input: []string{
			"\x1b[3;5H", // CUP 3;5
			"\x1b[s",    // SCOSC
			"\x1b[H",    // CUP home
			"\x1b[u",    // SCORC
		}, cursor: [2]int{4, 2}},
		{name: "origin mode", w: 10, h: 6, input: []string{
			"\x1b[2;4r", // DECSTBM rows 2-4
			"\x1b[?6h",  // DECOM on: home is the region's top
			"a",
			"\x1b[9;1H", // CUP beyond the region: clamped to its bottom
			"b",
		}, want: []string{"", "a", "", "b"}, cursor: [2]int{1, 3}},
		{name: "CUU stops at the top margin", w: 10, h: 6, input: []string{
			"\x1b[3;5r", // DECSTBM rows 3-5
			"\x1b[4;1H", // CUP row 4
			"\x1b[9A",   // CUU 9
		}, cursor: [2]int{0, 2}},
		{name: "RI at top scrolls down", w: 5, h: 3, input: []string{
			"a\r\nb",
			"\x1b[H", // CUP home
			"\x1bM",  // RI
		}, want: []string{"", "a", "b"}, cursor: [2]int{0, 0}},
		{name: "IND NEL", w: 5, h: 3, input: []string{
			"ab",
			"\x1bD", // IND
			"c",
			"\x1bE", // NEL
			"d",
		}, want: []string{"ab", "  c", "d"}, cursor: [2]int{1, 2}},
		{name: "C1 controls as code points", w: 5, h: 3, input: []string{
			"ab\u0085c", // NEL as U+0085
			"\u0084d",   // IND as U+0084
		}, want: []string{"ab", "c", " d"}, cursor: [2]int{2, 2}},
		{name: "raw C1 bytes are invalid UTF-8", w: 5, h: 2, input: []string{
			"a\x85b", // 0x85 alone: U+FFFD, not NEL
		}, want: []string{"a\ufffdb"}, cursor: [2]int{3, 0}},
	})
}

func TestErase(t *testing.T) {
	fill := "\x1b#8" // DECALN: fill the screen with E
	runEmuCases(t, []emuCase{
		{name: "ED 0", w: 4, h: 3, input: []string{fill,
			"\x1b[2;2H", // CUP 2;2
			"\x1b[J",    // ED 0
		}, want: []string{"EEEE", "E"}, cursor: [2]int{1, 1}},
		{name: "ED 1", w: 4, h: 3, input: []string{fill,
			"\x1b[2;2H", // CUP 2;2
			"\x1b[1J",   // ED 1
		}, want: []string{"", "  EE", "EEEE"}, cursor: [2]int{1, 1}},
		{name: "ED 2", w: 4, h: 3, input: []string{fill,
			"\x1b[2;2H", // CUP 2;2
			"\x1b[2J",   // ED 2: cursor stays
		}, cursor: [2]int{1, 1}},
		{name: "ED 3 erases no screen content", w: 4, h: 2, input: []string{fill,
			"\x1b[3J", // ED 3 (scrollback)
		}, want: []string{"EEEE", "EEEE"}},
		{name: "EL 0 1 2", w: 5, h: 3, input: []string{fill,
			"\x1b[1;3H\x1b[K",  // CUP 1;3, EL 0
			"\x1b[2;3H\x1b[1K", // CUP 2;3, EL 1
			"\x1b[3;3H\x1b[2K", // CUP 3;3, EL 2
		}, want: []string{"EE", "   EE", ""}, cursor: [2]int{2, 2}},
		{name: "ECH", w: 6, h: 1, input: []string{"abcdef",
			"\x1b[1;2H", // CUP 1;2
			"\x1b[3X",   // ECH 3
		}, want: []string{"a   ef"}, cursor: [2]int{1, 0}},
		{name: "ECH huge count", w: 6, h: 1, input: []string{"abcdef",
			"\x1b[1;3H",   // CUP 1;3
			"\x1b[65535X", // ECH 65535
		}, want: []string{"ab"}, cursor: [2]int{2, 0}},
		{name: "ICH", w: 6, h: 1, input: []string{"abcdef",
			"\x1b[1;2H", // CUP 1;2
			"\x1b[2@",   // ICH 2
		}, want: []string{"a  bcd"}, cursor: [2]int{1, 0}},
		{name: "DCH", w: 6, h: 1, input: []string{"abcdef",
			"\x1b[1;2H", // CUP 1;2
			"\x1b[2P",   // DCH 2
		}, want: []string{"adef"}, cursor: [2]int{1, 0}},
		{name: "erase uses the background colour", w: 4, h: 2, input: []string{
			"\x1b[1;41m", // SGR bold, red background
			"\x1b[2J",    // ED 2
		}, check: func(t *testing.T, fb *vt.Framebuffer) {
			if got := fb.Cell(3, 1).Rend; got != (vt.Rendition{BG: vt.PaletteColor(1)}) {
				t.Errorf("erased cell rendition = %+v, want background 1 only", got)
			}
		}},
		{name: "DECALN", w: 3, h: 2, input: []string{
			"\x1b[2;2H", // CUP 2;2
			"\x1b#8",    // DECALN
		}, want: []string{"EEE", "EEE"}},
	})
}

func TestScroll(t *testing.T) {
	rows := "1\r\n2\r\n3\r\n4" // four numbered rows
	runEmuCases(t, []emuCase{
		{name: "LF at bottom scrolls", w: 3, h: 3, input: []string{rows},
			want: []string{"2", "3", "4"}, cursor: [2]int{1, 2}},
		{name: "region scroll", w: 3, h: 4, input: []string{"a\r\nb\r\nc\r\nd",
			"\x1b[2;3r", // DECSTBM rows 2-3
			"\x1b[3;1H", // CUP row 3
			"\n",
		}, want: []string{"a", "c", "", "d"}, cursor: [2]int{0, 2}},
		{name: "SU SD", w: 3, h: 4, input: []string{"a\r\nb\r\nc\r\nd",
			"\x1b[2S", // SU 2
			"\x1b[T",  // SD 1
		}, want: []string{"", "c", "d"}, cursor: [2]int{1, 3}},
		{name: "IL DL", w: 3, h: 4, input: []string{"a\r\nb\r\nc\r\nd",
			"\x1b[2;2H", // CUP 2;2
			"\x1b[L",    // IL 1: cursor to column 0
			"x",
			"\x1b[3;1H", // CUP row 3
			"\x1b[2M",   // DL 2
		}, want: []string{"a", "x"}, cursor: [2]int{0, 2}},
		{name: "IL huge count", w: 3, h: 3, input: []string{"a\r\nb\r\nc",
			"\x1b[2;1H",  // CUP row 2
			"\x1b[9999L", // IL 9999
		}, want: []string{"a"}, cursor: [2]int{0, 1}},
		{name: "LF below the region does not scroll", w: 3, h: 4, input: []string{
			"\x1b[1;2r", // DECSTBM rows 1-2
			"\x1b[4;1H", // CUP row 4
			"x\n\ny",
		}, want: []string{"", "", "", "xy"}, cursor: [2]int{2, 3}},
		{name: "invalid DECSTBM ignored", w: 3, h: 3, input: []string{
			"\x1b[2;2H", // CUP 2;2
			"\x1b[3;2r", // DECSTBM bottom above top: ignored, cursor stays
		}, cursor: [2]int{1, 1}},
	})
}

func TestWrap(t *testing.T) {
	runEmuCases(t, []emuCase{
		{name: "pending wrap", w: 4, h: 3, input: []string{"abcd"},
			want: []string{"abcd"}, cursor: [2]int{3, 0},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if fb.Row(0).Wrapped() {
					t.Error("row wrapped before the next character")
				}
			}},
		{name: "wrap on next character", w: 4, h: 3, input: []string{"abcde"},
			want: []string{"abcd", "e"}, cursor: [2]int{1, 1},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if !fb.Row(0).Wrapped() {
					t.Error("row 0 not marked wrapped")
				}
			}},
		{name: "80th column: CR LF after a full row", w: 4, h: 3, input: []string{"abcd\r\nef"},
			want: []string{"abcd", "ef"}, cursor: [2]int{2, 1}},
		{name: "CUP clears pending wrap", w: 4, h: 3, input: []string{"abcd",
			"\x1b[1;4H", // CUP 1;4
			"X",
		}, want: []string{"abcX"}, cursor: [2]int{3, 0}},
		{name: "SGR keeps pending wrap", w: 4, h: 3, input: []string{"abcd",
			"\x1b[1m", // SGR bold
			"e",
		}, want: []string{"abcd", "e"}, cursor: [2]int{1, 1}},
		{name: "HT keeps pending wrap", w: 4, h: 3, input: []string{"abcd\te"},
			want: []string{"abcd", "e"}, cursor: [2]int{1, 1}},
		{name: "autowrap off", w: 4, h: 3, input: []string{
			"\x1b[?7l", // DECAWM off
			"abcdefg",
		}, want: []string{"abcg"}, cursor: [2]int{3, 0}},
		{name: "wrap at bottom scrolls", w: 2, h: 2, input: []string{"abcdef"},
			want: []string{"cd", "ef"}, cursor: [2]int{1, 1},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if !fb.Row(0).Wrapped() || fb.Row(1).Wrapped() {
					t.Error("want row 0 wrapped and row 1 not")
				}
			}},
		{name: "EL clears the wrap flag", w: 3, h: 2, input: []string{"abcd",
			"\x1b[1;2H", // CUP 1;2
			"\x1b[K",    // EL 0
		}, want: []string{"a", "d"}, cursor: [2]int{1, 0},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if fb.Row(0).Wrapped() {
					t.Error("row 0 still wrapped")
				}
			}},
		{name: "insert mode", w: 6, h: 1, input: []string{"abc",
			"\x1b[4h",   // SM IRM: insert
			"\x1b[1;2H", // CUP 1;2
			"XY",
			"\x1b[4l", // RM IRM
			"Z",
		}, want: []string{"aXYZc"}, cursor: [2]int{4, 0}},
		{name: "REP", w: 10, h: 2, input: []string{"ab",
			"\x1b[3b", // REP 3
		}, want: []string{"abbbb"}, cursor: [2]int{5, 0}},
		{name: "REP huge count is clamped", w: 3, h: 2, input: []string{"x",
			"\x1b[65535b", // REP 65535: clamped to the screen width (3)
		}, want: []string{"xxx", "x"}, cursor: [2]int{1, 1}},
	})
}

func TestWideAndCombining(t *testing.T) {
	runEmuCases(t, []emuCase{
		{name: "wide characters", w: 6, h: 2, input: []string{"中文a"},
			want: []string{"中文a"}, cursor: [2]int{5, 0},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if !fb.Cell(0, 0).IsWide() || !fb.Cell(1, 0).IsContinuation() {
					t.Error("want a wide cell then its continuation")
				}
			}},
		{name: "wide character at the last column wraps", w: 5, h: 2, input: []string{"abcd中"},
			want: []string{"abcd", "中"}, cursor: [2]int{2, 1},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if fb.Row(0).Wrapped() {
					t.Error("row 0 marked wrapped (Mosh: not wrapped)")
				}
			}},
		{name: "overwriting half of a wide character blanks it", w: 6, h: 1, input: []string{"中文",
			"\x1b[1;2H", // CUP 1;2: the right half of 中
			"x",
		}, want: []string{" x文"}, cursor: [2]int{2, 0}},
		{name: "combining mark joins the previous cell", w: 5, h: 1, input: []string{"e\u0301x"},
			want: []string{"e\u0301x"}, cursor: [2]int{2, 0}},
		{name: "combining after a move lands on a NBSP", w: 5, h: 1, input: []string{"ab",
			"\x1b[1;4H", // CUP 1;4
			"\u0301",
		}, want: []string{"ab \u00a0\u0301"}, cursor: [2]int{4, 0}},
		{name: "combining on a cleared cell", w: 5, h: 1, input: []string{"0",
			"\x1b[1J", // ED 1 (Mosh's unicode-combine-fallback-assert test)
			"\u0334",
		}, want: []string{"\u00a0\u0334"}, cursor: [2]int{1, 0}},
		{name: "emoji and ZWJ", w: 6, h: 1, input: []string{"😀\u200d😀"},
			want: []string{"😀\u200d😀"}, cursor: [2]int{4, 0}},
		{name: "non-printable characters are dropped", w: 5, h: 1, input: []string{"a\u0378b\u0007"},
			want: []string{"ab"}, cursor: [2]int{2, 0}},
		{name: "invalid UTF-8", w: 8, h: 1, input: []string{"a\xe2\x82b\xf0\x9f\x98c\xc0\xafd"},
			want: []string{"a\ufffdb\ufffdc\ufffd\ufffdd"}, cursor: [2]int{8 - 1, 0}},
		{name: "UTF-8 split across writes", w: 5, h: 1, input: []string{"\xe4", "\xb8", "\xad"},
			want: []string{"中"}, cursor: [2]int{2, 0}},
		{name: "wide character on a 1-column screen is dropped", w: 1, h: 2, input: []string{"中a"},
			want: []string{"a"}, cursor: [2]int{0, 0}},
	})
}

func TestCharsets(t *testing.T) {
	runEmuCases(t, []emuCase{
		{name: "DEC special graphics in G0", w: 10, h: 1, input: []string{
			"\x1b(0", // designate G0 DEC special graphics
			"lqk",
			"\x1b(B", // designate G0 ASCII
			"lqk",
		}, want: []string{"┌─┐lqk"}, cursor: [2]int{6, 0}},
		{name: "SO SI with G1", w: 10, h: 1, input: []string{
			"\x1b)0", // designate G1 DEC special graphics
			"x\x0ex", // SO: G1 into GL
			"\x0fx",  // SI: back to G0
		}, want: []string{"x│x"}, cursor: [2]int{3, 0}},
		{name: "UK set", w: 5, h: 1, input: []string{
			"\x1b(A", // designate G0 UK
			"#1",
		}, want: []string{"£1"}, cursor: [2]int{2, 0}},
		{name: "DECSC saves the charset", w: 5, h: 1, input: []string{
			"\x1b(0", // designate G0 DEC special graphics
			"\x1b7",  // DECSC
			"\x1b(B", // designate G0 ASCII
			"\x1b8",  // DECRC: DEC graphics again
			"q",
		}, want: []string{"─"}, cursor: [2]int{1, 0}},
		{name: "single shift SS2", w: 5, h: 1, input: []string{
			"\x1b*0",  // designate G2 DEC special graphics
			"\x1bNqq", // SS2: only the next character from G2
		}, want: []string{"─q"}, cursor: [2]int{2, 0}},
	})
}

func TestParserStates(t *testing.T) {
	runEmuCases(t, []emuCase{
		{name: "unknown CSI ignored", w: 5, h: 1, input: []string{"a",
			"\x1b[5;6~", // unknown final
			"b",
		}, want: []string{"ab"}, cursor: [2]int{2, 0}},
		{name: "truncated sequence then text", w: 8, h: 1, input: []string{"a\x1b[1;",
			"\x18", // CAN aborts the sequence
			"b",
		}, want: []string{"ab"}, cursor: [2]int{2, 0}},
		{name: "C0 inside CSI is executed", w: 8, h: 2, input: []string{"ab",
			"\x1b[\r2C", // CR inside CSI, then CUF 2
		}, want: []string{"ab"}, cursor: [2]int{2, 0}},
		{name: "DCS content swallowed", w: 8, h: 1, input: []string{"a",
			"\x1bP1$qm\x1b\\", // DCS DECRQSS ... ST
			"b",
		}, want: []string{"ab"}, cursor: [2]int{2, 0}},
		{name: "APC PM SOS swallowed", w: 8, h: 1, input: []string{"a",
			"\x1b_Gf=24;AAAA\x1b\\", // APC (kitty graphics) ... ST
			"\x1b^private\x1b\\",    // PM ... ST
			"\x1bXsos\x1b\\",        // SOS ... ST
			"b",
		}, want: []string{"ab"}, cursor: [2]int{2, 0}},
		{name: "private marker after digits ignores the sequence", w: 8, h: 1, input: []string{
			"\x1b[1?5C", // malformed: ignored
			"x",
		}, want: []string{"x"}, cursor: [2]int{1, 0}},
		{name: "8-bit CSI as U+009B", w: 8, h: 1, input: []string{
			"\u009b3Cx", // CSI as a C1 code point, CUF 3
		}, want: []string{"   x"}, cursor: [2]int{4, 0}},
		{name: "ESC in the middle restarts", w: 8, h: 1, input: []string{
			"\x1b[3\x1b[2Cx", // an ESC interrupts the first CSI
		}, want: []string{"  x"}, cursor: [2]int{3, 0}},
	})
}

func TestModesAndOSC(t *testing.T) {
	runEmuCases(t, []emuCase{
		{name: "mirrored modes", w: 5, h: 1, input: []string{
			"\x1b[?2004h",      // bracketed paste on
			"\x1b[?1002h",      // button-event mouse tracking
			"\x1b[?1006h",      // SGR mouse encoding
			"\x1b[?1004h",      // focus events
			"\x1b[?5h",         // reverse video
			"\x1b[?1h\x1b=",    // DECCKM, DECKPAM
			"\x1b[?25l",        // hide the cursor
			"\x1b[5 q",         // DECSCUSR blinking bar
			"\x1b[?1000h",      // normal mouse tracking replaces 1002
			"\x1b[?1003l",      // any reset of a mouse mode turns reporting off
			"\x1b[?1000;1015h", // two modes at once
		}, check: func(t *testing.T, fb *vt.Framebuffer) {
			want := vt.Modes{ReverseVideo: true, BracketedPaste: true, Mouse: 1000,
				MouseEncoding: 1015, FocusEvents: true, AppCursorKeys: true, AppKeypad: true}
			if got := fb.Modes(); got != want {
				t.Errorf("Modes = %+v, want %+v", got, want)
			}
			if fb.CursorVisible() || fb.CursorStyle() != vt.CursorBlinkingBar {
				t.Errorf("cursor visible %v style %d", fb.CursorVisible(), fb.CursorStyle())
			}
		}},
		{name: "alternate screen 1049", w: 5, h: 2, input: []string{"main",
			"\x1b[?1049h", // save cursor, alternate screen, cleared
			"alt",
			"\x1b[?1049l", // back, cursor restored
		}, want: []string{"main"}, cursor: [2]int{4, 0}},
		{name: "alternate screen shows its own content", w: 5, h: 2, input: []string{"main",
			"\x1b[?1049h", // alternate screen
			"\x1b[Halt",   // CUP home
		}, want: []string{"alt"}, cursor: [2]int{3, 0},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if !fb.Modes().AltScreen {
					t.Error("AltScreen not set")
				}
			}},
		{name: "alternate screen 47 keeps the cursor", w: 5, h: 2, input: []string{"ab",
			"\x1b[?47h", // alternate screen
			"c",
			"\x1b[?47l", // back to the main screen
		}, want: []string{"ab"}, cursor: [2]int{3, 0}},
		{name: "titles", w: 5, h: 1, input: []string{
			"\x1b]0;both\x07",    // OSC 0: icon and title
			"\x1b]2;title\x1b\\", // OSC 2: title, ST-terminated
		}, check: func(t *testing.T, fb *vt.Framebuffer) {
			if fb.Title() != "title" || fb.IconName() != "both" || !fb.TitleSet() {
				t.Errorf("title %q icon %q set %v", fb.Title(), fb.IconName(), fb.TitleSet())
			}
		}},
		{name: "clipboard", w: 5, h: 1, input: []string{
			"\x1b]52;c;aGk=\x07", // OSC 52 set clipboard to "hi"
		}, check: func(t *testing.T, fb *vt.Framebuffer) {
			if c := fb.Clipboard(); c.Selection != "c" || c.Data != "aGk=" {
				t.Errorf("Clipboard = %+v", c)
			}
		}},
		{name: "hyperlink", w: 10, h: 1, input: []string{
			"\x1b]8;id=1;http://a/\x1b\\", // OSC 8 start
			"ab",
			"\x1b]8;;\x1b\\", // OSC 8 end
			"c",
		}, want: []string{"abc"}, cursor: [2]int{3, 0},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if l := fb.Link(fb.Cell(1, 0).Rend.Link); l != "id=1;http://a/" {
					t.Errorf("link of b = %q", l)
				}
				if fb.Cell(2, 0).Rend.Link != 0 {
					t.Error("c is linked")
				}
			}},
		{name: "unknown OSC and endless OSC are dropped", w: 5, h: 1, input: []string{
			"\x1b]7;file:///tmp\x07",                       // OSC 7: ignored
			"\x1b]2;" + strings.Repeat("x", 3*vt.MaxTitle), // an OSC string without end
			"\x07ok", // BEL ends it
		}, want: []string{"ok"}, cursor: [2]int{2, 0},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if len(fb.Title()) != vt.MaxTitle {
					t.Errorf("title length %d, want %d", len(fb.Title()), vt.MaxTitle)
				}
			}},
		{name: "RIS", w: 5, h: 2, input: []string{"ab",
			"\x1b]0;t\x07", // title
			"\x1b[?5h",     // reverse video
			"\x1bc",        // RIS
		}, cursor: [2]int{0, 0},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if fb.Title() != "" || fb.Modes().ReverseVideo {
					t.Errorf("after RIS: title %q modes %+v", fb.Title(), fb.Modes())
				}
			}},
		{name: "DECSTR", w: 5, h: 2, input: []string{
			"\x1b[?25l\x1b[1m\x1b[4h", // hide cursor, bold, insert mode
			"\x1b[!p",                 // DECSTR
			"ab",
		}, want: []string{"ab"}, cursor: [2]int{2, 0},
			check: func(t *testing.T, fb *vt.Framebuffer) {
				if !fb.CursorVisible() || fb.Rendition() != (vt.Rendition{}) {
					t.Error("DECSTR did not reset cursor visibility and rendition")
				}
			}},
	})
}

func TestReplies(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"DA", "\x1b[c", "\x1b[?62c"},                                   // DA
		{"DA with 0", "\x1b[0c", "\x1b[?62c"},                           // DA 0
		{"DA2", "\x1b[>c", "\x1b[>1;10;0c"},                             // DA2
		{"DSR status", "\x1b[5n", "\x1b[0n"},                            // DSR 5
		{"CPR", "\x1b[3;7H\x1b[6n", "\x1b[3;7R"},                        // CUP 3;7 then DSR 6
		{"DECXCPR", "\x1b[2;2H\x1b[?6n", "\x1b[?2;2R"},                  // CUP 2;2 then DSR ?6
		{"CPR in origin mode", "\x1b[2;4r\x1b[?6h\x1b[6n", "\x1b[1;1R"}, // region, DECOM, DSR 6
		{"DECRQM set", "\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},     // bracketed paste, DECRQM
		{"DECRQM unknown", "\x1b[?9999$p", "\x1b[?9999;0$y"},            // DECRQM unknown mode
		{"DECRQM IRM", "\x1b[4$p", "\x1b[4;2$y"},                        // ANSI DECRQM insert mode
		{"window size", "\x1b[18t", "\x1b[8;24;80t"},                    // XTWINOPS 18
		{"DECID", "\x1bZ", "\x1b[?62c"},                                 // DECID
		{"two queries", "\x1b[c\x1b[5n", "\x1b[?62c\x1b[0n"},            // DA then DSR 5
		{"no reply", "\x1b[>5c\x1b[7n", ""},                             // unknown variants
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := vt.NewEmulator(80, 24)
			if got := string(e.Feed([]byte(tc.input), []byte{})); got != tc.want {
				t.Errorf("Feed(%q) = %q, want %q", tc.input, got, tc.want)
			}
		})
	}
}

func TestHyperlinkTableBounded(t *testing.T) {
	e := vt.NewEmulator(20, 5)
	for i := range 5 * vt.MaxLinks {
		e.Feed(fmt.Appendf(nil, "\x1b]8;;http://h/%d\x1b\\x\x1b]8;;\x1b\\", i), nil) // a new link per cell
	}
	fb := e.Framebuffer()
	seen := map[string]bool{}
	for y := range 5 {
		for x := range 20 {
			if l := fb.Link(fb.Cell(x, y).Rend.Link); l != "" {
				seen[l] = true
			}
		}
	}
	// The last screenful of links is intact (100 cells, each its own link).
	if len(seen) < 50 {
		t.Errorf("only %d distinct links on screen", len(seen))
	}
	if l := fb.Link(fb.Cell(fb.Cursor()).Rend.Link); l != "" && !strings.HasPrefix(l, ";http://h/") {
		t.Errorf("unexpected link %q", l)
	}
}

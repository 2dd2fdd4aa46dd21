// Package terminfo reads the few capabilities gosh needs from a compiled
// terminfo entry (term(5), both the legacy and the 32-bit-number format):
// whether the terminal erases with the background colour (bce), how it
// enters and leaves its alternate screen (smcup, rmcup), whether it has
// ECH (ech), and how many colours it has (colors). Mosh's client asks the
// same questions of ncurses; gosh reads the database files directly so the
// binary stays static.
//
// Parse is pure. Load looks the entry up in the usual directories.
package terminfo

import (
	"encoding/binary"
	"errors"
	"strings"
)

// Terminal is what gosh knows about the user's terminal.
type Terminal struct {
	// Names are the entry's names, primary first.
	Names []string
	// BCE reports back_color_erase: erasing fills with the current
	// background colour.
	BCE bool
	// Colors is max_colors, or -1 if absent.
	Colors int
	// EnterCA and ExitCA are smcup and rmcup: the sequences that switch to
	// and from the alternate screen ("" if absent).
	EnterCA, ExitCA string
	// ECH reports whether erase_chars is present.
	ECH bool
}

// Capability indices in the standard order of term.h.
const (
	boolBCE     = 28
	numColors   = 13
	strSmcup    = 28
	strECH      = 37
	strRmcup    = 40
	magicLegacy = 0o432
	magic32     = 0o1036
	headerSize  = 12
	maxEntry    = 1 << 16 // compiled entries are far smaller; refuse absurd input
)

var errBadEntry = errors.New("terminfo: malformed compiled entry")

// Parse decodes a compiled terminfo entry. It never panics on bad input.
func Parse(b []byte) (*Terminal, error) {
	if len(b) < headerSize || len(b) > maxEntry {
		return nil, errBadEntry
	}
	le := binary.LittleEndian
	magic := le.Uint16(b[0:])
	numSize := 2
	switch magic {
	case magicLegacy:
	case magic32:
		numSize = 4
	default:
		return nil, errBadEntry
	}
	namesLen, nBools := int(int16(le.Uint16(b[2:]))), int(int16(le.Uint16(b[4:])))
	nNums, nStrs := int(int16(le.Uint16(b[6:]))), int(int16(le.Uint16(b[8:])))
	tableLen := int(int16(le.Uint16(b[10:])))
	if namesLen < 0 || nBools < 0 || nNums < 0 || nStrs < 0 || tableLen < 0 {
		return nil, errBadEntry
	}
	off := headerSize
	names, ok := slice(b, off, namesLen)
	if !ok {
		return nil, errBadEntry
	}
	off += namesLen
	bools, ok := slice(b, off, nBools)
	if !ok {
		return nil, errBadEntry
	}
	off += nBools
	if off%2 == 1 {
		off++
	}
	nums, ok := slice(b, off, nNums*numSize)
	if !ok {
		return nil, errBadEntry
	}
	off += nNums * numSize
	offsets, ok := slice(b, off, nStrs*2)
	if !ok {
		return nil, errBadEntry
	}
	off += nStrs * 2
	table, ok := slice(b, off, tableLen)
	if !ok {
		return nil, errBadEntry
	}

	t := &Terminal{Colors: -1}
	t.Names = strings.Split(strings.TrimRight(string(names), "\x00"), "|")
	t.BCE = nBools > boolBCE && bools[boolBCE] == 1
	if nNums > numColors {
		if numSize == 2 {
			t.Colors = int(int16(le.Uint16(nums[numColors*2:])))
		} else {
			t.Colors = int(int32(le.Uint32(nums[numColors*4:])))
		}
		if t.Colors < 0 {
			t.Colors = -1
		}
	}
	str := func(i int) (string, bool) {
		if i >= nStrs {
			return "", false
		}
		o := int(int16(le.Uint16(offsets[i*2:])))
		if o < 0 || o >= len(table) {
			return "", false
		}
		s := table[o:]
		if end := indexByte(s, 0); end >= 0 {
			s = s[:end]
		}
		return string(s), true
	}
	t.EnterCA, _ = str(strSmcup)
	t.ExitCA, _ = str(strRmcup)
	_, t.ECH = str(strECH)
	return t, nil
}

func slice(b []byte, off, n int) ([]byte, bool) {
	if off < 0 || n < 0 || off > len(b) || n > len(b)-off {
		return nil, false
	}
	return b[off : off+n], true
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// Fallback is used when no terminfo entry can be found: an xterm-like
// terminal, which is what nearly every terminal emulator today claims to be.
func Fallback(name string) *Terminal {
	t := &Terminal{
		Names:   []string{name},
		BCE:     true,
		Colors:  8,
		EnterCA: "\x1b[?1049h\x1b[22;0;0t",
		ExitCA:  "\x1b[?1049l\x1b[23;0;0t",
		ECH:     true,
	}
	if strings.Contains(name, "256color") {
		t.Colors = 256
	}
	return t
}

package vt

import (
	"fmt"
	"testing"
)

// fuzzSeeds are golden streams covering every parser state.
var fuzzSeeds = []string{
	"hello\r\nworld",
	"\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[38:5:9m",
	"\x1b[2J\x1b[H\x1b[?1049h\x1b[5;10r\x1b[3L\x1b[2M\x1b[4@\x1b[3P\x1b[5X",
	"中文😀e\u0301\u0301\u0301\x1b[1;79H中",
	"\x1b]0;title\x07\x1b]52;c;aGk=\x1b\\\x1b]8;;http://x\x1b\\a\x1b]8;;\x1b\\",
	"\x1bP1$qm\x1b\\\x1b_apc\x1b\\\x1b^pm\x9c\x1bXsos\x1b\\",
	"\x1b(0lqqk\x0e\x0f\x1b)0\x1bN`",
	"\x1b[99999999;99999999H\x1b[65535b\x1b[65535L\x1b[65535@",
	"\xe2\x82\xff\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80",
	"\x1b[c\x1b[>c\x1b[5n\x1b[6n\x1b[?6n\x1b[?25$p\x1b[18t",
	"\x1b7\x1b8\x1b[s\x1b[u\x1bc\x1b#8\x1b[!p\x1b[4h\x1b[?7l",
}

// checkInvariants reports the first broken invariant of fb's structure.
func checkInvariants(fb *Framebuffer) error {
	if fb.x < 0 || fb.x >= fb.w || fb.y < 0 || fb.y >= fb.h {
		return fmt.Errorf("cursor (%d,%d) outside %dx%d", fb.x, fb.y, fb.w, fb.h)
	}
	if fb.top < 0 || fb.bottom >= fb.h || fb.top >= fb.bottom && fb.h > 1 {
		return fmt.Errorf("scroll region %d..%d in %d rows", fb.top, fb.bottom, fb.h)
	}
	if len(fb.rows) != fb.h || len(fb.tabs) != fb.w {
		return fmt.Errorf("%d rows, %d tab stops for %dx%d", len(fb.rows), len(fb.tabs), fb.w, fb.h)
	}
	if fb.rows[fb.h-1].wrap {
		return fmt.Errorf("last row wrapped")
	}
	for y, r := range fb.rows {
		if len(r.cells) != fb.w {
			return fmt.Errorf("row %d has %d cells", y, len(r.cells))
		}
		for x, c := range r.cells {
			wide, cont := c.flags&cellWide != 0, c.flags&cellCont != 0
			switch {
			case wide && (x+1 >= fb.w || r.cells[x+1].flags&cellCont == 0):
				return fmt.Errorf("wide cell (%d,%d) without continuation", x, y)
			case cont && (x == 0 || r.cells[x-1].flags&cellWide == 0):
				return fmt.Errorf("continuation (%d,%d) without wide cell", x, y)
			case c.comb != nil && len(*c.comb)+4 > maxCellBytes+4:
				return fmt.Errorf("cell (%d,%d) holds %d bytes", x, y, len(*c.comb))
			case int(c.Rend.Link) > len(fb.links):
				return fmt.Errorf("cell (%d,%d) link %d of %d", x, y, c.Rend.Link, len(fb.links))
			}
		}
	}
	if len(fb.links) > MaxLinks {
		return fmt.Errorf("%d links", len(fb.links))
	}
	return nil
}

// FuzzEmulator feeds arbitrary output, in two writes with an optional
// resize between them: no panic, structural invariants hold, replies and
// buffers stay bounded.
func FuzzEmulator(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(40), uint8(7), uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, w, h uint8, split uint16) {
		e := NewEmulator(int(w%100)+1, int(h%40)+1)
		cut := min(int(split), len(data))
		reply := e.Feed(data[:cut], nil)
		if split%3 == 0 {
			e.Resize(int(w%50)+1, int(split%30)+1)
		}
		reply = e.Feed(data[cut:], reply)
		if len(reply) > 32*len(data) {
			t.Fatalf("%d reply bytes for %d input bytes", len(reply), len(data))
		}
		if len(e.p.osc) > MaxOSC || cap(e.p.osc) > 2*MaxOSC {
			t.Fatalf("OSC buffer %d/%d", len(e.p.osc), cap(e.p.osc))
		}
		if err := checkInvariants(e.Framebuffer()); err != nil {
			t.Fatal(err)
		}
		if split%3 != 0 { // where a write is split does not matter
			whole := NewEmulator(int(w%100)+1, int(h%40)+1)
			if r := whole.Feed(data, nil); string(r) != string(reply) || !whole.Framebuffer().Equal(e.Framebuffer()) {
				t.Fatalf("feeding %q at once differs from feeding it split at %d", data, cut)
			}
		}
	})
}

// countHandler counts actions.
type countHandler struct{ n int }

func (c *countHandler) Print(rune)               { c.n++ }
func (c *countHandler) PrintASCII(s []byte)      { c.n += len(s) }
func (c *countHandler) Execute(rune)             { c.n++ }
func (c *countHandler) ESCDispatch(*Sequence)    { c.n++ }
func (c *countHandler) CSIDispatch(s *Sequence)  { c.n += s.Params.Len() }
func (c *countHandler) OSCDispatch([]byte, bool) { c.n++ }
func (c *countHandler) DCSHook(*Sequence)        { c.n++ }
func (c *countHandler) DCSPut(rune)              { c.n++ }
func (c *countHandler) DCSUnhook()               { c.n++ }

// FuzzParser: no panic, parameters within limits, and never more actions
// than input bytes plus one (each byte yields at most one action, an
// invalid byte at most two U+FFFD).
func FuzzParser(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Parser
		var h countHandler
		p.Feed(data, &h)
		if p.seq.Params.n > MaxParams || p.seq.NInter > maxInter {
			t.Fatalf("params %d inter %d", p.seq.Params.n, p.seq.NInter)
		}
		if h.n > 2*len(data)+MaxParams {
			t.Fatalf("%d actions for %d bytes", h.n, len(data))
		}
	})
}

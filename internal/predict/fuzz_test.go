package predict

import (
	"fmt"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// FuzzEngine drives an engine with arbitrary keystrokes, server output,
// acks, clock steps, send intervals and resizes, with any set of
// features. It must never panic, and painting must never touch anything
// outside the screen: the painted screen has the server's size and
// differs from it only in cells, the cursor and underlines.
//
// mode holds the Mode (bits 0-1), Overwrite (bit 2) and, in bit 3, the
// stock Mosh model (no features); otherwise bit i of off turns feature i
// (in featureSwitches order) off.
func FuzzEngine(f *testing.F) {
	f.Add([]byte("\x00ls -l\r\x01\x02$ ls\x03\x04\x00\x7f\x7f\x1b[D\x1b[Cx\x05\x06日本\r"), uint8(0), uint16(0))
	f.Add([]byte("\x00\x1b[?1049h\x01\x00ihello\x1b\x02\x03jj:wq\r"), uint8(1), uint16(0))
	f.Add([]byte("\x00xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\x01\x01\x02\x02\x07\x00\x7f\x7f\x7f\x7f"), uint8(2), uint16(0))
	f.Add([]byte("\x00\xc3\x02\xbc\x03\x00\x1bO\x00C\x04\x08\x00abc"), uint8(3), uint16(0))
	f.Add([]byte("\x05\x00\x24\xe6\x97\xa5\x00\x7f"), uint8(1), uint16(0)) // a 1-column screen, a wide character
	f.Add([]byte("\x00ls -l\r\x01\x02$ ls\x03\x04\x00\x7f\x7f\x1b[D\x1b[Cx\x05\x06日本\r"), uint8(0), uint16(0b101))
	f.Add([]byte("\x00xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\x01\x01\x02\x02\x07\x00\x7f\x7f\x7f\x7f"), uint8(4), uint16(0b10_1010_1010))
	// vi (12×4): insert mode on the bottom row, then Escape, motions,
	// x, o and a prompt, each echoed and acked in turn.
	f.Add(fuzzOps(
		0xF4, "\x1b[H\x1b[2Jab cd\r\n~ ", 0xE2, "\x1b[4;1H-- INSERT", 0x88, " --\x1b[1;3H",
		0x00, "\x1b", 0x02, "\x02", 0x03, "\x02", 0xE2, "\x1b[4;1H\x1b[K\x1b[1;2H",
		0x00, "0", 0x00, "w", 0x00, "x", 0x00, "o", 0x00, ":", 0x00, "k",
		0x07, "w", 0x00, "i", 0x00, "A", 0x00, "\x1b", 0x00, "j", 0x00, "b", 0x00, "$", 0x00, "G", 0x00, "h", 0x00, "l",
	), uint8(1), uint16(0))
	// less (12×4): its command prompt, a count, a search.
	f.Add(fuzzOps(0xF4, "\x1b[H\x1b[2J1\r\n2\r\n3\r\n", 0x01, ":", 0x00, "j", 0x00, "5", 0x00, "%", 0x00, "/", 0x00, "a", 0x10, "/a", 0x00, "\r", 0x00, "?"), uint8(1), uint16(0))
	// less (12×4) over a file of lines long enough to place its screens:
	// scrolls over lines seen, across a join after space, and after g.
	var pager []any
	for _, ev := range []string{"o" + fuzzPage(1), "t\r", "a", "o" + fuzzPage(2), "t j", "a", "o" + fuzzPage(1), "tk", "a",
		"o" + fuzzPage(2), "tj", "a", "o" + fuzzPage(5), "t ", "a", "tb", "tk", "o" + fuzzPage(1), "a", "tg", "tjj5j", "a"} {
		pager = append(pager, fuzzEvent(ev[0], ev[1:])...)
	}
	f.Add(fuzzOps(pager...), uint8(1), uint16(0))
	f.Fuzz(runFuzzScript)
}

// fuzzPage is less on a 12×4 screen showing lines top to top+2.
func fuzzPage(top int) string {
	return fmt.Sprintf("\x1b[H\x1b[2Jline %02d abc\r\nline %02d abc\r\nline %02d abc\r\n:", top, top+1, top+2)
}

// fuzzEvent builds fuzzOps operations: output (o), typed keys (t) or
// an echo of every key (a), cut to the operations' argument lengths.
func fuzzEvent(kind byte, arg string) []any {
	want := map[byte]int{'t': 0, 'o': 1, 'a': 7}[kind]
	if kind == 'a' {
		arg = "\x07"
	}
	var ops []any
	for len(arg) > 0 {
		n := min(len(arg), 16)
		op := (n - 1) << 4
		for op%9 != want {
			op++
		}
		ops = append(ops, op, arg[:n])
		arg = arg[n:]
	}
	return ops
}

// fuzzOps builds a FuzzEngine script from operation bytes and their
// arguments, each argument as long as its operation says (1 plus the
// high nibble).
func fuzzOps(ops ...any) []byte {
	var b []byte
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i].(int), ops[i+1].(string)
		if n := 1 + op>>4; len(arg) != n {
			panic(fmt.Sprintf("fuzzOps: argument %q of operation %#x is not %d bytes", arg, op, n))
		}
		b = append(append(b, byte(op)), arg...)
	}
	return b
}

func runFuzzScript(t *testing.T, script []byte, mode uint8, off uint16) {
	{
		cfg := Config{Mode: Mode(mode % 4), Overwrite: mode&4 != 0, Features: GoshFeatures}
		for i, sw := range featureSwitches {
			if off&(1<<i) != 0 {
				*sw.field(&cfg.Features) = false
			}
		}
		if mode&8 != 0 {
			cfg.Features = stockMosh
		}
		e := New(cfg)
		em := vt.NewEmulator(12, 4)
		now := t0
		var sent, acked, echo uint64
		var link Link
		for len(script) > 1 {
			op, arg := script[0], script[1:]
			n := min(len(arg), 1+int(op>>4))
			chunk := arg[:n]
			script = arg[n:]
			now = now.Add(time.Duration(op) * 7 * time.Millisecond)
			switch op % 9 {
			case 0: // typed
				link.Sent = sent
				e.NewUserInput(now, chunk, em.Framebuffer(), link)
				sent++
			case 1: // server output
				em.Feed(chunk, nil)
			case 2: // transport ack
				acked = min(acked+uint64(chunk[0]%3), sent)
				link.Acked = acked
			case 3: // echo ack
				echo = min(echo+uint64(chunk[0]%3), acked)
				link.EchoAck = echo
			case 4:
				link.SendInterval = time.Duration(chunk[0]) * time.Millisecond
			case 5:
				em.Resize(1+int(chunk[0]%20), 1+int(chunk[0]/20%6))
			case 6:
				e.Reset()
			case 7: // the server echoes what it got, as a shell would
				em.Feed(chunk, nil)
				acked, echo = sent, sent
				link.Acked, link.EchoAck = acked, echo
			default:
				_ = e.NextDeadline()
			}
			checkPaint(t, e, now, em.Framebuffer(), link)
		}
	}
}

func checkPaint(t *testing.T, e *Engine, now time.Time, server *vt.Framebuffer, link Link) {
	t.Helper()
	e.Cull(now, server, link)
	fb := server.Clone()
	e.Apply(fb)
	w, h := server.Size()
	if fw, fh := fb.Size(); fw != w || fh != h {
		t.Fatalf("painted screen %dx%d, server %dx%d", fw, fh, w, h)
	}
	if x, y := fb.Cursor(); x < 0 || y < 0 || x >= w || y >= h {
		t.Fatalf("painted cursor (%d,%d) outside %dx%d", x, y, w, h)
	}
	if fb.Title() != server.Title() || fb.Modes() != server.Modes() || fb.Rendition() != server.Rendition() {
		t.Fatalf("painting changed more than cells and the cursor")
	}
}

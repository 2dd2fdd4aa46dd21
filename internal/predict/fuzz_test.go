package predict

import (
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// FuzzEngine drives an engine with arbitrary keystrokes, server output,
// acks, clock steps, send intervals and resizes. It must never panic, and
// painting must never touch anything outside the screen: the painted
// screen has the server's size and differs from it only in cells, the
// cursor and underlines.
func FuzzEngine(f *testing.F) {
	f.Add([]byte("\x00ls -l\r\x01\x02$ ls\x03\x04\x00\x7f\x7f\x1b[D\x1b[Cx\x05\x06日本\r"), uint8(0))
	f.Add([]byte("\x00\x1b[?1049h\x01\x00ihello\x1b\x02\x03jj:wq\r"), uint8(1))
	f.Add([]byte("\x00xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\x01\x01\x02\x02\x07\x00\x7f\x7f\x7f\x7f"), uint8(2))
	f.Add([]byte("\x00\xc3\x02\xbc\x03\x00\x1bO\x00C\x04\x08\x00abc"), uint8(3))
	f.Add([]byte("\x05\x00\x24\xe6\x97\xa5\x00\x7f"), uint8(1)) // a 1-column screen, a wide character
	f.Fuzz(runFuzzScript)
}

func runFuzzScript(t *testing.T, script []byte, mode uint8) {
	{
		e := NewEngine(Mode(mode%4), mode&4 != 0)
		e.stock = mode&8 != 0
		em := vt.NewEmulator(12, 4)
		now := t0
		var sent, acked, echo uint64
		for len(script) > 1 {
			op, arg := script[0], script[1:]
			n := min(len(arg), 1+int(op>>4))
			chunk := arg[:n]
			script = arg[n:]
			now = now.Add(time.Duration(op) * 7 * time.Millisecond)
			switch op % 9 {
			case 0: // typed
				e.SetLocalFrameSent(sent)
				e.NewUserInput(now, chunk, em.Framebuffer())
				sent++
			case 1: // server output
				em.Feed(chunk, nil)
			case 2: // transport ack
				acked = min(acked+uint64(chunk[0]%3), sent)
				e.SetLocalFrameAcked(acked)
			case 3: // echo ack
				echo = min(echo+uint64(chunk[0]%3), acked)
				e.SetLateAcked(echo)
			case 4:
				e.SetSendInterval(time.Duration(chunk[0]) * time.Millisecond)
			case 5:
				em.Resize(1+int(chunk[0]%20), 1+int(chunk[0]/20%6))
			case 6:
				e.Reset()
			case 7: // the server echoes what it got, as a shell would
				em.Feed(chunk, nil)
				acked, echo = sent, sent
				e.SetLocalFrameAcked(acked)
				e.SetLateAcked(echo)
			default:
				_ = e.NextDeadline()
			}
			checkPaint(t, e, now, em.Framebuffer())
		}
	}
}

func checkPaint(t *testing.T, e *Engine, now time.Time, server *vt.Framebuffer) {
	t.Helper()
	e.Cull(now, server)
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

package statesync_test

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/gosh-term/gosh/internal/pb/hostpb"
	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
	"github.com/gosh-term/gosh/internal/vt/vttest"
)

// decodeHost parses a HostMessage with the generated code (the oracle).
func decodeHost(t *testing.T, b []byte) []*hostpb.Instruction {
	t.Helper()
	var m hostpb.HostMessage
	if err := proto.Unmarshal(b, &m); err != nil {
		t.Fatalf("oracle cannot parse %x: %v", b, err)
	}
	return m.GetInstruction()
}

func TestCompleteDiffGolden(t *testing.T) {
	c := statesync.NewComplete(80, 24)
	n := c.Clone()
	n.SetEchoAck(1)
	if got := hex.EncodeToString(n.Diff(c)); got != "0a043a024001" { // spec section 6.3
		t.Errorf("echo-ack diff = %s, want 0a043a024001", got)
	}
	if d := c.Diff(c.Clone()); len(d) != 0 {
		t.Errorf("diff of equal states = %x, want empty", d)
	}
}

func TestCompleteDiffOrder(t *testing.T) {
	old := statesync.NewComplete(80, 24)
	c := old.Clone()
	c.SetEchoAck(7)
	c.Resize(100, 30)
	c.Feed([]byte("abc"), nil)
	ins := decodeHost(t, c.Diff(old))
	if len(ins) != 3 {
		t.Fatalf("%d instructions, want echoack, resize, hostbytes", len(ins))
	}
	if a := proto.GetExtension(ins[0], hostpb.E_Echoack).(*hostpb.EchoAck); a.GetEchoAckNum() != 7 {
		t.Errorf("first instruction echo ack = %d, want 7", a.GetEchoAckNum())
	}
	if r := proto.GetExtension(ins[1], hostpb.E_Resize).(*hostpb.ResizeMessage); r.GetWidth() != 100 || r.GetHeight() != 30 {
		t.Errorf("second instruction resize = %dx%d, want 100x30", r.GetWidth(), r.GetHeight())
	}
	hb := proto.GetExtension(ins[2], hostpb.E_Hostbytes).(*hostpb.HostBytes).GetHoststring()
	if !bytes.Contains(hb, []byte("abc")) || !bytes.HasPrefix(hb, []byte("\x1b[r\x1b[0m\x1b[H\x1b[2J")) {
		t.Errorf("host bytes = %q, want a full repaint containing abc", hb)
	}
	for i, in := range ins { // exactly one extension per instruction
		n := 0
		for _, e := range []*hostpbExt{{hostpb.E_Hostbytes}, {hostpb.E_Resize}, {hostpb.E_Echoack}} {
			if proto.HasExtension(in, e.t) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("instruction %d has %d extensions", i, n)
		}
	}
}

type hostpbExt struct{ t protoreflect.ExtensionType }

// TestCompleteRoundTrip: the client applies the diff to its copy and gets
// a state Equal to the server's (docs/style.md rule 23, for SSP states), for both
// wire profiles.
func TestCompleteRoundTrip(t *testing.T) {
	for _, caps := range []vt.Caps{0, vt.CapStyles | vt.CapHyperlinks | vt.CapCursorStyle | vt.CapLongOSC | vt.CapAltScreen} {
		rng := rand.New(rand.NewPCG(3, uint64(caps)))
		server := statesync.NewComplete(30, 10)
		server.SetWireCaps(caps)
		prev := server.Clone()   // the server's copy of the last sent state
		client := server.Clone() // the client's own state, built from diffs only
		for i := range 400 {
			server.Feed(vttest.RandomOutput(rng, 30, 10, rng.IntN(40)), nil)
			if rng.IntN(20) == 0 {
				server.Resize(1+rng.IntN(40), 1+rng.IntN(15))
			}
			server.SetEchoAck(uint64(i / 3))
			sent := server.Clone()
			if err := client.Apply(sent.Diff(prev)); err != nil {
				t.Fatal(err)
			}
			if diff := vttest.Diff(sent.Framebuffer(), client.Framebuffer(), vt.WireDisplayCaps(caps)); diff != "" {
				t.Fatalf("step %d caps %b: client differs:\n%s", i, caps, diff)
			}
			if alt := sent.Framebuffer().Modes().AltScreen; caps&vt.CapAltScreen != 0 && client.Framebuffer().Modes().AltScreen != alt {
				t.Fatalf("step %d: the client's alternate screen is %v, want %v", i, !alt, alt)
			}
			if client.EchoAck() != sent.EchoAck() {
				t.Fatalf("echo ack %d, want %d", client.EchoAck(), sent.EchoAck())
			}
			// The transport's contract: applying Diff to a copy of the
			// state it was computed from gives an Equal state.
			copyOfPrev := prev.Clone()
			if err := copyOfPrev.Apply(sent.Diff(prev)); err != nil || !copyOfPrev.Equal(sent) {
				t.Fatalf("step %d: Apply(Diff(prev)) to prev is not Equal to sent (%v): %s\nbells %d %d", i, err,
					vttest.Diff(sent.Framebuffer(), copyOfPrev.Framebuffer(), vt.WireDisplayCaps(caps)),
					sent.Framebuffer().Bell(), copyOfPrev.Framebuffer().Bell())
			}
			prev = sent
		}
	}
}

func FuzzHostMessage(f *testing.F) {
	f.Add(mustHex("0a043a024001"))
	f.Add(mustHex("0a061a0428503018"))
	f.Add([]byte("\x0a\x07\x12\x05\x22\x03abc"))
	f.Add([]byte("\x0a\x09\x12\x07\x22\x05\x1b[6n"))
	f.Add([]byte{0x0a, 0x06, 0x1a, 0x04, 0x28, 0xff, 0x30, 0x01})

	// gosh channels (spec section 12.2)
	f.Add(mustHex("0a043a024001" + "0a0f520d08001001180122056167656e74")) // echo ack, channel open
	f.Add(mustHex("0a085206080010021802" + "0a085206080010021802"))       // a duplicate
	f.Add(mustHex("0a06520408051802"))                                    // a gap
	f.Add(mustHex("0a0b520908001002180428ac02"))                          // credit
	// gosh scrollback lines (spec section 12.3)
	f.Add(mustHex("0a0d5a0b080010051a033132332050")) // index 0, line 5, "123", width 80
	f.Add(mustHex("0a0a5a0808011000200a2801"))       // a gap, wrapped
	f.Fuzz(func(t *testing.T, msg []byte) {
		c := statesync.NewComplete(20, 5)
		err := c.Apply(msg)
		var m hostpb.HostMessage
		if err == nil && proto.Unmarshal(msg, &m) != nil {
			t.Fatalf("accepted %x that the oracle rejects", msg)
		}
		w, h := c.Framebuffer().Size()
		if w < 1 || h < 1 || w > vt.MaxCols || h > vt.MaxRows {
			t.Fatalf("size %dx%d out of bounds", w, h)
		}
	})
}

// TestCompleteCorpus replays the recorded programs through the wire: the
// server feeds each recording in chunks, and after every chunk the client
// applies the diff and must show what the server shows; the client's
// terminal painter (xterm profile) must reproduce its screen too.
func TestCompleteCorpus(t *testing.T) {
	files, _ := filepath.Glob("../vt/testdata/corpus/*.out") // the emulator's recordings
	if len(files) == 0 {
		t.Fatal("no recordings in ../vt/testdata/corpus")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			for _, caps := range []vt.Caps{0, vt.CapStyles | vt.CapHyperlinks | vt.CapCursorStyle} {
				server := statesync.NewComplete(80, 24)
				server.SetWireCaps(caps)
				prev, client := server.Clone(), server.Clone()
				paint := vt.NewDisplay(vt.XtermDisplayCaps())
				user := vt.NewEmulator(80, 24) // the user's terminal
				var shown *vt.Framebuffer
				for off := 0; off < len(data); {
					n := min(len(data)-off, 1+(off*7919)%700) // uneven chunks
					server.Feed(data[off:off+n], nil)
					off += n
					sent := server.Clone()
					if err := client.Apply(sent.Diff(prev)); err != nil {
						t.Fatal(err)
					}
					prev = sent
					if d := vttest.Diff(sent.Framebuffer(), client.Framebuffer(), vt.WireDisplayCaps(caps)); d != "" {
						t.Fatalf("caps %b offset %d: client differs from server:\n%s", caps, off, d)
					}
					next := client.Framebuffer().Clone()
					user.Feed(paint.NewFrame(nil, shown != nil, shown, next), nil)
					shown = next
					if d := vttest.Diff(next, user.Framebuffer(), vt.XtermDisplayCaps()); d != "" {
						t.Fatalf("caps %b offset %d: user's terminal differs:\n%s", caps, off, d)
					}
				}
			}
		})
	}
}

// TestCompleteDeferrable: a change of the echo ack alone may wait for the
// next frame; a change of the screen, with or without one, may not; and no
// change is not a deferrable one.
func TestCompleteDeferrable(t *testing.T) {
	sent := statesync.NewComplete(80, 24)
	sent.Feed([]byte("abc"), nil)
	ack := sent.Clone()
	ack.SetEchoAck(7)
	screen := sent.Clone()
	screen.Feed([]byte("d"), nil)
	both := ack.Clone()
	both.Feed([]byte("d"), nil)
	for _, tc := range []struct {
		name string
		c    *statesync.Complete
		want bool
	}{
		{"no change", sent.Clone(), false},
		{"echo ack only", ack, true},
		{"screen only", screen, false},
		{"screen and echo ack", both, false},
	} {
		if got := tc.c.Deferrable(sent); got != tc.want {
			t.Errorf("%s: Deferrable = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCompleteAltScreen: with CapAltScreen, states that differ only in
// which screen shows are unequal, and the diff switches the client's
// screen; without it (a stock peer) they are equal and nothing is sent.
func TestCompleteAltScreen(t *testing.T) {
	for _, caps := range []vt.Caps{0, vt.CapAltScreen} {
		server := statesync.NewComplete(20, 5)
		server.SetWireCaps(caps)
		prev := server.Clone()
		server.Feed([]byte("\x1b[?1049h"), nil) // blank, like the primary screen
		if eq := server.Equal(prev); eq != (caps == 0) {
			t.Fatalf("caps %b: Equal = %v across a switch to the alternate screen", caps, eq)
		}
		diff := server.Diff(prev)
		if caps == 0 {
			if len(diff) != 0 {
				t.Fatalf("a stock peer was sent %q", diff)
			}
			continue
		}
		if !bytes.Contains(diff, []byte("\x1b[?1049h")) {
			t.Fatalf("diff %q does not switch screens", diff)
		}
		client := prev.Clone()
		if err := client.Apply(diff); err != nil || !client.Framebuffer().Modes().AltScreen {
			t.Fatalf("the client is not on the alternate screen (%v)", err)
		}
	}
}

// TestCompleteScrollBehind: whether the server is behind goes in a diff
// when it changes, takes part in equality, and reaches the client.
func TestCompleteScrollBehind(t *testing.T) {
	server := statesync.NewComplete(20, 5)
	prev := server.Clone()
	server.SetScrollBehind(true)
	if server.Equal(prev) {
		t.Fatal("states that differ in being behind are Equal")
	}
	client := prev.Clone()
	if err := client.Apply(server.Diff(prev)); err != nil || !client.ScrollBehind() || !client.Equal(server) {
		t.Fatalf("the client is not behind after the diff (%v)", err)
	}
	if d := server.Clone().Diff(server); len(d) != 0 {
		t.Fatalf("no change, diff %q", d)
	}
	prev = server.Clone()
	server.SetScrollBehind(false)
	if err := client.Apply(server.Diff(prev)); err != nil || client.ScrollBehind() {
		t.Fatalf("the client is still behind (%v)", err)
	}
}

// TestCompleteHistory: a server's state records the lines that scroll off
// its screen in the history EnableHistory made; its clones neither carry
// nor record it.
func TestCompleteHistory(t *testing.T) {
	c := statesync.NewComplete(10, 2)
	if c.History() != nil {
		t.Fatal("a new state has a history")
	}
	c.EnableHistory(10)
	c.Feed([]byte("red\r\n\r\n"), nil)
	if h := c.History(); h == nil || h.Total() != 1 || h.Texts()[0] != "red" {
		t.Fatalf("history %v, want the line red", c.History())
	}
	cl := c.Clone()
	cl.Feed([]byte("\r\n\r\n\r\n"), nil)
	if c.History().Total() != 1 || cl.History() != nil {
		t.Fatal("a clone recorded into the history")
	}
}

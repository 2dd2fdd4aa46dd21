package vt

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a Handler that logs actions as text.
type recorder struct{ log []string }

func (r *recorder) Print(c rune)            { r.log = append(r.log, fmt.Sprintf("print %q", c)) }
func (r *recorder) PrintASCII(s []byte)     { r.log = append(r.log, fmt.Sprintf("text %q", s)) }
func (r *recorder) Execute(c rune)          { r.log = append(r.log, fmt.Sprintf("exec %#x", c)) }
func (r *recorder) ESCDispatch(s *Sequence) { r.log = append(r.log, "esc "+seqString(s)) }
func (r *recorder) CSIDispatch(s *Sequence) { r.log = append(r.log, "csi "+seqString(s)) }
func (r *recorder) OSCDispatch(d []byte, trunc bool) {
	r.log = append(r.log, fmt.Sprintf("osc %q %v", d, trunc))
}
func (r *recorder) DCSHook(s *Sequence) { r.log = append(r.log, "hook "+seqString(s)) }
func (r *recorder) DCSPut(c rune)       { r.log = append(r.log, fmt.Sprintf("put %q", c)) }
func (r *recorder) DCSUnhook()          { r.log = append(r.log, "unhook") }

func seqString(s *Sequence) string {
	var b strings.Builder
	if s.Marker != 0 {
		b.WriteByte(s.Marker)
	}
	for i := range s.Params.Len() {
		if i > 0 {
			if s.Params.IsSub(i) {
				b.WriteByte(':')
			} else {
				b.WriteByte(';')
			}
		}
		fmt.Fprint(&b, s.Params.Raw(i))
	}
	b.Write(s.Inter[:s.NInter])
	b.WriteRune(s.Final)
	if s.bad {
		b.WriteString(" bad")
	}
	return b.String()
}

func TestParser(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"text", "ab", []string{`text "ab"`}},
		{"utf8", "é中", []string{`print 'é'`, `print '中'`}},
		{"C0", "a\r\n", []string{`text "a"`, "exec 0xd", "exec 0xa"}},
		{"CSI params", "\x1b[1;22;333m", []string{"csi 1;22;333m"}},                                   // SGR with three params
		{"CSI empty params", "\x1b[;5H", []string{"csi 0;5H"}},                                        // CUP with empty first param
		{"CSI colon", "\x1b[38:2::1:2:3m", []string{"csi 38:2:0:1:2:3m"}},                             // colon sub-parameters
		{"CSI private", "\x1b[?1049h", []string{"csi ?1049h"}},                                        // DECSET
		{"CSI intermediate", "\x1b[2 q", []string{"csi 2 q"}},                                         // DECSCUSR
		{"CSI overflow", "\x1b[99999999;70000H", []string{"csi 0;0H"}},                                // values > 65535 read as absent
		{"CSI too many intermediates", "\x1b[1 !\"p", []string{"csi 1 !p bad"}},                       // three intermediates (two kept)
		{"CSI marker after digit ignored", "\x1b[1?hx", []string{`text "x"`}},                         // CSI-ignore state
		{"ESC", "\x1b7\x1b(0", []string{"esc 7", "esc (0"}},                                           // DECSC, designate G0
		{"OSC BEL", "\x1b]0;hi\x07", []string{`osc "0;hi" false`}},                                    // OSC ended by BEL
		{"OSC ST", "\x1b]2;x\x1b\\", []string{`osc "2;x" false`, `esc \`}},                            // OSC ended by ESC \
		{"OSC C1 ST", "\x1b]2;x\u009c", []string{`osc "2;x" false`}},                                  // OSC ended by U+009C
		{"OSC drops C0", "\x1b]2;a\rb\x07", []string{`osc "2;ab" false`}},                             // CR inside OSC dropped
		{"DCS", "\x1bP1$qm\x1b\\", []string{"hook 1$q", `put 'm'`, "unhook", `esc \`}},                // DECRQSS
		{"CAN aborts", "\x1b[12\x18x", []string{"exec 0x18", `text "x"`}},                             // CAN in CSI
		{"invalid UTF-8", "\xe2\x82x", []string{"print '\ufffd'", `text "x"`}},                        // truncated 3-byte sequence
		{"surrogate", "\xed\xa0\x80", []string{"print '\ufffd'", "print '\ufffd'", "print '\ufffd'"}}, // encoded surrogate
		{"C1 CSI", "\u009b5A", []string{"csi 5A"}},                                                    // U+009B
		{"wide final ignored", "\x1b[1é", []string{"csi 1é"}},                                         // final >= U+00A0
		{"SOS swallowed", "\x1bXabc\x1b\\z", []string{`esc \`, `text "z"`}},                           // SOS ... ST
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Parser
			var r recorder
			p.Feed([]byte(tc.input), &r)
			if strings.Join(r.log, "|") != strings.Join(tc.want, "|") {
				t.Errorf("Feed(%q) = %q, want %q", tc.input, r.log, tc.want)
			}
		})
	}
}

func TestParserSplitAnywhere(t *testing.T) {
	// Feeding a stream byte by byte gives the same actions as at once
	// (apart from how ASCII runs are batched).
	in := "ab\x1b[1;31mé中\x1b]0;t\x07\xe2\x82x\x1bP1q\x1b\\\x1b[38:5:1mz"
	var whole, split recorder
	var p1, p2 Parser
	p1.Feed([]byte(in), &whole)
	for i := range len(in) {
		p2.Feed([]byte{in[i]}, &split)
	}
	norm := func(log []string) string {
		s := strings.Join(log, "|")
		return strings.NewReplacer(`text "ab"`, `text "a"|text "b"`).Replace(s)
	}
	if norm(whole.log) != norm(split.log) {
		t.Errorf("split feed differs:\n%q\n%q", whole.log, split.log)
	}
}

func TestParserOSCLimit(t *testing.T) {
	var p Parser
	var r recorder
	p.Feed([]byte("\x1b]52;c;"), &r)
	chunk := []byte(strings.Repeat("A", 1<<16))
	for range (2*MaxOSC)/len(chunk) + 1 {
		p.Feed(chunk, &r)
	}
	if len(p.osc) > MaxOSC {
		t.Fatalf("OSC buffer grew to %d", len(p.osc))
	}
	p.Feed([]byte("\a"), &r)
	if len(r.log) != 1 || !strings.HasSuffix(r.log[0], " true") {
		t.Errorf("want one truncated OSC, got %d actions", len(r.log))
	}
}

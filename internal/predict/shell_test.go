package predict

import (
	"strings"
	"unicode/utf8"

	"github.com/gosh-term/gosh/internal/vt"
)

// fakeShell is a line editor standing in for the application on the
// server in simulations: it echoes what is typed the way readline does
// (insert at the cursor, backspace, left and right arrows), runs a few
// canned commands on Enter, and has a password prompt that does not
// echo. Its output drives a vt.Emulator, the server's screen.
type fakeShell struct {
	em       *vt.Emulator
	prompt   string
	text     []rune
	cur      int
	password bool // reading a password: no echo
	esc      []byte
}

func newFakeShell(w, h int, prompt string) *fakeShell {
	s := &fakeShell{em: vt.NewEmulator(w, h), prompt: prompt}
	s.out(prompt)
	return s
}

func (s *fakeShell) out(p string) { s.em.Feed([]byte(p), nil) }

// input feeds typed bytes to the shell.
func (s *fakeShell) input(b []byte) {
	for len(b) > 0 {
		if len(s.esc) > 0 || b[0] == 0x1b {
			s.esc = append(s.esc, b[0])
			b = b[1:]
			s.escape()
			continue
		}
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		s.key(r)
	}
}

func (s *fakeShell) escape() {
	switch q := string(s.esc); {
	case q == "\x1b", q == "\x1b[", q == "\x1bO":
		return // incomplete
	case q == "\x1b[D" || q == "\x1bOD":
		s.left()
	case q == "\x1b[C" || q == "\x1bOC":
		s.right()
	}
	s.esc = s.esc[:0]
}

func (s *fakeShell) key(r rune) {
	switch {
	case r == '\r':
		s.enter()
	case r == 0x7f:
		s.backspace()
	case r < 0x20:
		// other control keys: ignored
	case s.password:
		s.text = append(s.text, r)
	default:
		s.insert(r)
	}
}

func width(r rune) int { return max(vt.Width(r), 1) }

func (s *fakeShell) insert(r rune) {
	s.text = append(s.text, 0)
	copy(s.text[s.cur+1:], s.text[s.cur:])
	s.text[s.cur] = r
	s.cur++
	tail := string(s.text[s.cur:])
	s.out(string(r) + tail + strings.Repeat("\b", textWidth(s.text[s.cur:])))
}

func (s *fakeShell) backspace() {
	if s.password {
		if len(s.text) > 0 {
			s.text = s.text[:len(s.text)-1]
		}
		return
	}
	if s.cur == 0 {
		s.out("\a")
		return
	}
	wd := width(s.text[s.cur-1])
	s.text = append(s.text[:s.cur-1], s.text[s.cur:]...)
	s.cur--
	tail := string(s.text[s.cur:])
	s.out(strings.Repeat("\b", wd) + tail + "\x1b[K" + strings.Repeat("\b", textWidth(s.text[s.cur:])))
}

func (s *fakeShell) left() {
	if s.password || s.cur == 0 {
		return
	}
	s.cur--
	s.out(strings.Repeat("\b", width(s.text[s.cur])))
}

func (s *fakeShell) right() {
	if s.password || s.cur == len(s.text) {
		return
	}
	s.out(string(s.text[s.cur]))
	s.cur++
}

// enter runs the line.
func (s *fakeShell) enter() {
	line := string(s.text)
	s.text, s.cur = s.text[:0], 0
	if s.password {
		s.password = false
		s.out("\r\n")
		if line == "hunter2" {
			s.out("root\r\n")
		} else {
			s.out("Sorry, try again.\r\n")
		}
		s.out(s.prompt)
		return
	}
	s.out("\r\n")
	switch f := strings.Fields(line); {
	case len(f) == 0:
	case f[0] == "sudo":
		s.password = true
		s.out("[sudo] password for user: ")
		return
	case f[0] == "ls":
		s.out("a.txt  b.txt\r\nnotes  src\r\n")
	case f[0] == "echo":
		s.out(strings.Join(f[1:], " ") + "\r\n")
	case f[0] == "cd" || f[0] == "true":
	default:
		s.out("sh: " + f[0] + ": not found\r\n")
	}
	s.out(s.prompt)
}

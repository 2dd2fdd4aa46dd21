package bootstrap

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"
)

// TerminalPrompter asks questions on the controlling terminal (/dev/tty),
// as OpenSSH does, so prompts work even when stdin and stdout are
// redirected. It is safe for concurrent use.
type TerminalPrompter struct {
	mu  sync.Mutex // guards following
	tty *os.File
	br  *bufio.Reader
}

// NewTerminalPrompter opens /dev/tty. It fails when the process has no
// controlling terminal; callers then leave [Config.Prompt] nil.
func NewTerminalPrompter() (*TerminalPrompter, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoPrompt, err)
	}
	return &TerminalPrompter{tty: tty, br: bufio.NewReader(tty)}, nil
}

// Ask writes question to the terminal and reads one line; with echo false
// the terminal does not show what is typed.
func (p *TerminalPrompter) Ask(question string, echo bool) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.tty.WriteString(question); err != nil {
		return "", err
	}
	if !echo {
		b, err := term.ReadPassword(int(p.tty.Fd()))
		p.tty.WriteString("\r\n")
		return string(b), err
	}
	line, err := p.br.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// Close closes the terminal.
func (p *TerminalPrompter) Close() error { return p.tty.Close() }

package session

import (
	"fmt"
	"strconv"
)

// Scrollback is how many lines that scrolled off the screen a server keeps
// for a gosh client's own scrollback (docs/protocol.md section 12.3). The
// zero value means DefaultScrollback, so a configuration that leaves it
// out gets the default; NoScrollback keeps none. It is the flag value of
// gosh server new --scrollback, which takes a count of lines where 0
// means none.
type Scrollback int

// NoScrollback keeps no lines: a gosh client gets no scrollback, as with
// a stock mosh-server.
const NoScrollback Scrollback = -1

// MaxScrollback bounds the lines a server may be asked to keep (each line
// may take a few hundred bytes of the server's memory).
const MaxScrollback = 1_000_000

// Lines is the number of lines s keeps: DefaultScrollback for the zero
// value, 0 for NoScrollback (or any negative value), at most
// MaxScrollback.
func (s Scrollback) Lines() int {
	switch {
	case s == 0:
		return DefaultScrollback
	case s < 0:
		return 0
	}
	return min(int(s), MaxScrollback)
}

// String is the line count as --scrollback takes it: "0" for none
// (pflag.Value).
func (s Scrollback) String() string { return strconv.Itoa(s.Lines()) }

// Set parses a --scrollback line count, 0 meaning none (pflag.Value).
func (s *Scrollback) Set(text string) error {
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 || n > MaxScrollback {
		return fmt.Errorf("bad line count %q: want 0 (none) to %d", text, MaxScrollback)
	}
	if n == 0 {
		*s = NoScrollback
	} else {
		*s = Scrollback(n)
	}
	return nil
}

// Type names the flag's value type (pflag.Value).
func (s *Scrollback) Type() string { return "lines" }

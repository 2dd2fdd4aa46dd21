package resume

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
)

// maxAnswer bounds an answer line; the rest of a longer line is skipped.
const maxAnswer = 64

// askTries is how many times AskResume asks before it takes an answer it
// does not understand as no.
const askTries = 3

// AskResume asks on out, in one line, whether to resume the detached
// session r, and reads the answer from in: an empty line or y[es] is
// yes, n[o] is no, anything else asks again. It reads in a byte at a time
// and never past the answer's newline, so that no typing meant for the
// session is consumed; call it before the terminal goes raw (in cooked
// mode, the terminal echoes the answer and ends it with a newline). At
// the end of in without an answer it returns io.EOF.
func AskResume(in io.Reader, out io.Writer, r Record) (bool, error) {
	when := "detached"
	if r.PID != 0 {
		when = "last active" // its client died without letting go
	}
	q := fmt.Sprintf("gosh: resume session %s on %s (%s %s)? [Y/n] ",
		r.Name(), printable(r.Host), when, ago(time.Since(r.Updated)))
	for range askTries {
		if _, err := io.WriteString(out, q); err != nil {
			return false, err
		}
		line, err := readLine(in)
		if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
			return false, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return false, nil
}

// readLine reads up to a newline, which it consumes and drops, keeping
// the first maxAnswer bytes. At the end of in it returns what it read
// and io.EOF.
func readLine(in io.Reader) (string, error) {
	var line []byte
	var b [1]byte
	for {
		n, err := in.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return string(line), nil
			}
			if len(line) < maxAnswer {
				line = append(line, b[0])
			}
			continue
		}
		if err != nil {
			return string(line), err
		}
	}
}

// ago formats how long ago something was, coarsely: "just now", "5m
// ago", "3h ago", "2d ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
}

// printable replaces what a terminal would interpret in s.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
}

package workload

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Key is one keystroke of a workload.
type Key struct {
	// Key is the bytes the terminal sends: a character, a control
	// character ("\r" Enter, "\x7f" backspace, "\x03" Ctrl-C) or a whole
	// escape sequence ("\x1b[A" up arrow).
	Key string
	// Gap is the pause before the keystroke, after the previous one (or,
	// for the first, after the session is ready).
	Gap time.Duration
}

// Workload is what a typist types into a session. It is a plain value;
// callers may change their copy.
type Workload struct {
	// Name identifies the workload on the command line and in reports.
	Name string
	// Description says what is typed, and where the gaps come from.
	Description string
	// Shell is the command interpreter the keys are typed into: [ShellSh]
	// (a POSIX shell, bash where there is one; "" means it too) or
	// [ShellCmd] (Windows' cmd.exe).
	Shell string
	// Program is an executable the workload needs on the server, besides
	// the shell ("" for none); the keys start it from the shell.
	Program string
	// Requires are more executables the workload needs (nil for none).
	Requires []string
	// Files are created in the session's working directory before it
	// starts: relative slash-separated name to content.
	Files map[string]string
	// Ready, if not empty, is text the screen shows when the first key may
	// be typed (the shell prompt).
	Ready string
	// Keys are the keystrokes, in order.
	Keys []Key
}

// The shells a workload can be typed into.
const (
	ShellSh  = "sh"  // a POSIX shell: bash if installed, else sh (Unix)
	ShellCmd = "cmd" // cmd.exe (Windows)
)

// Limits of a valid workload.
const (
	MaxKeys     = 100_000     // keystrokes in a workload
	MaxKeyLen   = 4096        // bytes sent by one keystroke
	MaxGap      = time.Minute // pause before a keystroke
	MaxFiles    = 64          // setup files
	MaxFileSize = 1 << 20     // bytes in one setup file
	MaxRequires = 16          // programs in Requires
)

const (
	maxText     = 4096        // bytes of a description, program or ready text
	maxInput    = 16 << 20    // bytes of a workload file
	defaultName = "custom"    // the name of a workload that has none
	nameChars   = "a-z0-9._-" // what a name may contain (quoted in errors)
)

// validName reports whether name is 1 to 64 of nameChars. It is a loop,
// not a regular expression: a package-level regexp.MustCompile ran in
// every gosh process's start-up (52 KB in 733 allocations, and the
// regexp code's pages mapped) for a check only gosh bench makes.
func validName(name string) bool {
	if len(name) < 1 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ErrUnknown is returned (wrapped) by [Lookup] for a name that is not a
// built-in workload.
var ErrUnknown = errors.New("workload: unknown workload")

// Programs returns every executable the workload needs besides the shell:
// Program and Requires.
func (w *Workload) Programs() []string {
	var ps []string
	if w.Program != "" {
		ps = append(ps, w.Program)
	}
	return append(ps, w.Requires...)
}

// Validate reports the first problem that makes w unusable, or nil.
func (w *Workload) Validate() error {
	if !validName(w.Name) {
		return fmt.Errorf("workload: name %q must be 1 to 64 of %s", w.Name, nameChars)
	}
	for _, f := range []struct{ field, s string }{{"description", w.Description}, {"program", w.Program}, {"ready", w.Ready}} {
		if len(f.s) > maxText {
			return fmt.Errorf("workload: %s is longer than %d bytes", f.field, maxText)
		}
	}
	if w.Shell != "" && w.Shell != ShellSh && w.Shell != ShellCmd {
		return fmt.Errorf("workload: shell %q is neither %q nor %q", w.Shell, ShellSh, ShellCmd)
	}
	if len(w.Requires) > MaxRequires {
		return fmt.Errorf("workload: %d required programs, at most %d", len(w.Requires), MaxRequires)
	}
	for _, p := range append([]string{w.Program}, w.Requires...) {
		if strings.ContainsFunc(p, unicode.IsControl) || len(p) > maxText {
			return fmt.Errorf("workload: program %q contains a control character or is too long", p)
		}
	}
	for _, p := range w.Requires {
		if p == "" {
			return errors.New("workload: an empty name in requires")
		}
	}
	if err := validateFiles(w.Files); err != nil {
		return err
	}
	return validateKeys(w.Keys)
}

// validateFiles checks the number, names and sizes of setup files.
func validateFiles(files map[string]string) error {
	if len(files) > MaxFiles {
		return fmt.Errorf("workload: %d files, at most %d", len(files), MaxFiles)
	}
	for name, body := range files {
		if !localName(name) {
			return fmt.Errorf("workload: file name %q must be a relative path inside the directory", name)
		}
		if len(body) > MaxFileSize {
			return fmt.Errorf("workload: file %q is larger than %d bytes", name, MaxFileSize)
		}
	}
	return nil
}

// localName reports whether name is a clean relative slash-separated path
// that stays inside the directory it is created in.
func localName(name string) bool {
	return name != "" && len(name) <= 255 && utf8.ValidString(name) &&
		!strings.ContainsAny(name, "\\:\x00") && !strings.ContainsFunc(name, unicode.IsControl) &&
		path.Clean(name) == name && filepath.IsLocal(filepath.FromSlash(name))
}

// validateKeys checks the number, sizes and gaps of keystrokes.
func validateKeys(keys []Key) error {
	if len(keys) == 0 {
		return errors.New("workload: no keys")
	}
	if len(keys) > MaxKeys {
		return fmt.Errorf("workload: %d keys, at most %d", len(keys), MaxKeys)
	}
	for i, k := range keys {
		switch {
		case k.Key == "":
			return fmt.Errorf("workload: key %d is empty", i)
		case len(k.Key) > MaxKeyLen:
			return fmt.Errorf("workload: key %d is longer than %d bytes", i, MaxKeyLen)
		case !utf8.ValidString(k.Key):
			return fmt.Errorf("workload: key %d is not valid UTF-8", i)
		case k.Gap < 0:
			return fmt.Errorf("workload: key %d: gap %v is negative", i, k.Gap)
		case k.Gap > MaxGap:
			return fmt.Errorf("workload: key %d: gap %v is longer than %v", i, k.Gap, MaxGap)
		}
	}
	return nil
}

// Duration returns the sum of the gaps: how long typing w takes.
func (w *Workload) Duration() time.Duration {
	var d time.Duration
	for _, k := range w.Keys {
		d += k.Gap
	}
	return d
}

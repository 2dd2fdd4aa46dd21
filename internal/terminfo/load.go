package terminfo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Load finds and parses the entry for term in the directories ncurses
// searches: $TERMINFO, ~/.terminfo, $TERMINFO_DIRS, then the system
// directories. Entries live in a subdirectory named by the first letter of
// the name or (macOS) its hexadecimal code.
func Load(term string) (*Terminal, error) {
	if term == "" || strings.ContainsAny(term, "/\x00") || term == "." || term == ".." {
		return nil, fmt.Errorf("terminfo: bad terminal name %q", term)
	}
	for _, dir := range searchPath() {
		for _, sub := range []string{term[:1], fmt.Sprintf("%02x", term[0])} {
			b, err := os.ReadFile(filepath.Join(dir, sub, term))
			if err != nil {
				continue
			}
			t, err := Parse(b)
			if err != nil {
				return nil, fmt.Errorf("terminfo: %s: %w", filepath.Join(dir, sub, term), err)
			}
			return t, nil
		}
	}
	return nil, fmt.Errorf("terminfo: no entry for %q", term)
}

func searchPath() []string {
	var dirs []string
	if d := os.Getenv("TERMINFO"); d != "" {
		dirs = append(dirs, d)
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".terminfo"))
	}
	for _, d := range filepath.SplitList(os.Getenv("TERMINFO_DIRS")) {
		if d == "" {
			d = "/usr/share/terminfo"
		}
		dirs = append(dirs, d)
	}
	return append(dirs, "/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo",
		"/usr/lib/terminfo", "/usr/share/lib/terminfo", "/usr/local/share/terminfo")
}

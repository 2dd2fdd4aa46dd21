package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// envVar is one environment variable gosh reads.
type envVar struct {
	name, meaning, def string
}

// envGroup is the variables one part of gosh reads.
type envGroup struct {
	title string
	vars  []envVar
}

// environment lists every MOSH_* and GOSH_* variable gosh reads (a test
// checks the sources against it), for gosh help environment and the man
// page's ENVIRONMENT section.
var environment = []envGroup{
	{"gosh connect (and gosh client, as mosh-client)", []envVar{
		{"MOSH_KEY", "the session key for --direct and gosh client, as mosh-client reads it; removed from the environment once read", "none; --direct needs it"},
		{"MOSH_ESCAPE_KEY", "the escape key: one ASCII character; the empty string turns the escape key off", "Ctrl-^"},
		{"MOSH_PREDICTION_DISPLAY", "local echo when none of --predict, -a and -n is given: adaptive, always, never or experimental", "adaptive"},
		{"MOSH_PREDICTION_OVERWRITE", "yes: predicted characters overwrite instead of inserting, as -o", "insert"},
		{"MOSH_TITLE_NOPREFIX", "set to anything: the window title is the remote's, without \"[gosh] \" in front", "the prefix"},
		{"MOSH_NO_TERM_INIT", "set to anything: the terminal is not switched to its alternate screen, as --no-init", "switched"},
		{"GOSH_BINARY_CACHE", "directory of gosh-<os>-<arch> binaries to upload to remotes of other platforms (--binary-cache)", "gosh/VERSION in the user cache directory"},
		{"GOSH_RELEASE_URL", "where release archives are downloaded from when the cache has no binary for the remote's platform", "the project's release of this version"},
		{"GOSH_RELEASE_ALLOW_HTTP", "1: release downloads (and gosh server install) may use plain http:// URLs and follow redirects to them; the signature of the release is checked all the same", "https only"},
	}},
	{"gosh server new (as mosh-server)", []envVar{
		{"MOSH_SERVER_NETWORK_TMOUT", "seconds without hearing from the client after which the session ends", "0, never"},
		{"MOSH_SERVER_SIGNAL_TMOUT", "seconds the client must have been silent for SIGUSR1 to end the session", "0, SIGUSR1 always ends it"},
		{"GOSH_SERVER_CPUPROFILE", "file name: each session writes a CPU profile to NAME.PID, for go tool pprof", "none"},
		{"GOSH_ALLOW_TCP_FORWARDING", "which TCP forwarding the server takes part in, as --allow-tcp-forwarding: yes, local (-L and -D only), remote (-R only) or no; with the flag too, the stricter applies", "yes"},
		{"GOSH_GATEWAY_PORTS", "where the server listens for -R, as --gateway-ports: no (the loopback address, whatever the client asks), clientspecified or yes (every interface); with the flag too, the stricter applies", "no"},
		{"GOSH_ALLOW_AGENT_FORWARDING", "whether --forward-agent gives the program an agent socket, as --allow-agent-forwarding: yes or no; with the flag too, the stricter applies", "yes"},
	}},
	{"gosh bench", []envVar{
		{"GOSH_TYPING_DEBUG", "set to anything: gosh bench typing and paper log, for each keystroke, the screens judged against the reference and why one was wrong", "unset"},
	}},
	{"internal", []envVar{
		{"GOSH_PTY_HELPER", "set by gosh on Windows for its own pseudo-console helper process; not for users", "unset"},
	}},
}

// environmentOthers are the other variables gosh reads, in a paragraph.
const environmentOthers = `gosh connect also reads TERM, COLORTERM, WT_SESSION and TERM_PROGRAM
to learn the terminal's colours (a terminal with 24-bit colour, Windows
Terminal among them, gives the remote TERM=xterm-256color, and
COLORTERM=truecolor with a gosh server), TERMINFO and TERMINFO_DIRS to
find its terminfo entry, the locale variables (LANG, LC_*) to pass to
the server, SSH_AUTH_SOCK for the agent, and XDG_STATE_HOME for its saved
sessions. The server's program gets TERM, COLORTERM and
NCURSES_NO_UTF8_ACS=1 from gosh, and never MOSH_KEY. GOMEMLIMIT, when
set, replaces the soft memory limit of 64 MiB that gosh connect and the
session daemon set for themselves.`

// newEnvironmentTopic is "gosh help environment", a help topic.
func newEnvironmentTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "The environment variables gosh reads",
		Long:  "The environment variables gosh reads, what each means, and its default.\n\n" + environmentText(),
	}
}

// environmentText is the table for the terminal.
func environmentText() string {
	var b strings.Builder
	for _, g := range environment {
		fmt.Fprintf(&b, "%s:\n", g.title)
		for _, v := range g.vars {
			fmt.Fprintf(&b, "  %s\n      %s. Default: %s.\n", v.name, v.meaning, v.def)
		}
		b.WriteString("\n")
	}
	b.WriteString(environmentOthers)
	return b.String()
}

// manEnvironment is the ENVIRONMENT section of gosh(1), in roff.
func manEnvironment() string {
	var b strings.Builder
	b.WriteString(".SH ENVIRONMENT\n")
	for _, g := range environment {
		fmt.Fprintf(&b, ".SS %s\n", roffEscape(g.title))
		for _, v := range g.vars {
			fmt.Fprintf(&b, ".TP\n.B %s\n%s. Default: %s.\n", v.name, roffEscape(v.meaning), roffEscape(v.def))
		}
	}
	fmt.Fprintf(&b, ".PP\n%s\n", roffEscape(strings.ReplaceAll(environmentOthers, "\n", " ")))
	return b.String()
}

// roffEscape keeps text from being read as roff requests or escapes.
func roffEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// withManSection puts section into a man page before its SEE ALSO
// section, or at its end when it has none.
func withManSection(page []byte, section string) []byte {
	if i := bytes.Index(page, []byte("\n.SH SEE ALSO")); i >= 0 {
		out := append([]byte{}, page[:i+1]...)
		out = append(out, section...)
		return append(out, page[i+1:]...)
	}
	if len(page) > 0 && page[len(page)-1] != '\n' {
		page = append(page, '\n')
	}
	return append(page, section...)
}

// addManEnvironment adds the ENVIRONMENT section to the man page at path
// (gosh.1, which cobra's generator writes without one).
func addManEnvironment(path string) error {
	page, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, withManSection(page, manEnvironment()), 0o644)
}

package daemon

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/terminfo"
)

// ctypeLocale is the effective LC_CTYPE of environ: LC_ALL, else LC_CTYPE,
// else LANG.
func ctypeLocale(environ []string) string {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v, ok := lookupEnv(environ, name); ok && v != "" {
			return v
		}
	}
	return ""
}

// isUTF8Locale reports whether a locale name selects UTF-8 ("en_US.UTF-8",
// "C.utf8", or macOS's bare "UTF-8").
func isUTF8Locale(name string) bool {
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name = name[:i]
	}
	cs := name
	if i := strings.IndexByte(name, '.'); i >= 0 {
		cs = name[i+1:]
	}
	cs = strings.ToLower(strings.ReplaceAll(cs, "-", ""))
	return cs == "utf8"
}

// serverEnv builds the shell's environment from the server's own, the
// client's locale settings, and the terminal's colour count, as
// mosh-server does:
//   - TERM is xterm-256color for a client of 256 colours or more, else
//     xterm; a client with 24-bit colour (terminfo.TrueColor, which only
//     a gosh client passes) adds COLORTERM=truecolor, and the server's
//     own COLORTERM, which described another terminal, is dropped;
//   - NCURSES_NO_UTF8_ACS=1 (line drawing as UTF-8, which every peer renders);
//   - STY is removed (a shell inside screen must not think it still is);
//   - if the server's own locale is not UTF-8, every locale variable is
//     cleared and the client's settings applied; if that is still not
//     UTF-8, LC_CTYPE falls back to C.UTF-8 (UTF-8 on macOS) where mosh
//     would give up.
//
// It returns the environment and a note for the log when it had to change
// the locale.
func serverEnv(own []string, clientLocale []string, colors int, home string) (env []string, note string) {
	env = make([]string, 0, len(own)+8)
	for _, kv := range own {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "TERM", "COLORTERM", "STY", "NCURSES_NO_UTF8_ACS", "PWD", "MOSH_KEY":
			continue
		}
		env = append(env, kv)
	}
	if !isUTF8Locale(ctypeLocale(env)) {
		env = withoutLocale(env)
		env = append(env, clientLocale...)
		note = "server locale is not UTF-8; using the client's locale settings"
		if !isUTF8Locale(ctypeLocale(env)) {
			fallback := "C.UTF-8"
			if runtime.GOOS == "darwin" {
				fallback = "UTF-8"
			}
			env = setEnv(env, "LC_CTYPE", fallback)
			if _, ok := lookupEnv(env, "LC_ALL"); ok {
				env = setEnv(env, "LC_ALL", fallback)
			}
			note = "neither the server's nor the client's locale is UTF-8; using LC_CTYPE=" + fallback
		}
	}
	term := "xterm"
	if colors >= 256 {
		term = "xterm-256color"
	}
	env = append(env, "TERM="+term, "NCURSES_NO_UTF8_ACS=1")
	if colors >= terminfo.TrueColor {
		env = append(env, "COLORTERM=truecolor")
	}
	if home != "" {
		env = append(env, "PWD="+home)
	}
	return env, note
}

func withoutLocale(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "LANG" || name == "LANGUAGE" || strings.HasPrefix(name, "LC_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// sshLocalAddr is the server-side address of $SSH_CONNECTION ("client-ip
// client-port server-ip server-port"), with an IPv4-mapped prefix removed,
// or the zero Addr (any interface) with a warning, as mosh-server -s
// behaves.
func sshLocalAddr(conn string, warn io.Writer) netip.Addr {
	if conn == "" {
		fmt.Fprintln(warn, "Warning: SSH_CONNECTION not found; binding to any interface.")
		return netip.Addr{}
	}
	f := strings.Fields(conn)
	if len(f) != 4 {
		fmt.Fprintln(warn, "Warning: Could not parse SSH_CONNECTION; binding to any interface.")
		return netip.Addr{}
	}
	ip := f[2]
	if len(ip) > 7 && strings.EqualFold(ip[:7], "::ffff:") {
		ip = ip[7:]
	}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		fmt.Fprintln(warn, "Warning: Could not parse SSH_CONNECTION; binding to any interface.")
		return netip.Addr{}
	}
	return a.WithZone("")
}

// maxTimeout caps the timeouts read from the environment.
const maxTimeout = 100 * 365 * 24 * time.Hour

// envSeconds reads a whole number of seconds from the value of an
// environment variable (ok: it is set), warning about and ignoring
// anything that is not a non-negative integer, as mosh-server does.
func envSeconds(name, value string, ok bool, warn io.Writer) time.Duration {
	if !ok || value == "" {
		return 0
	}
	n, err := strconv.ParseInt(value, 10, 64)
	switch {
	case err != nil:
		fmt.Fprintf(warn, "%s not a valid integer, ignoring\n", name)
		return 0
	case n < 0:
		fmt.Fprintf(warn, "%s is negative, ignoring\n", name)
		return 0
	case n > int64(maxTimeout/time.Second):
		return maxTimeout
	}
	return time.Duration(n) * time.Second
}

// motdFiles are read, in order, for the message of the day; the first
// existing of each group.
var motdFiles = [][]string{{"/run/motd.dynamic", "/var/run/motd.dynamic"}, {"/etc/motd"}}

// maxMOTD bounds each message-of-the-day file.
const maxMOTD = 64 << 10

// motd is the message of the day a login shows, unless home has a
// .hushlogin; newlines become CR LF as the terminal would output them.
func motd(home string) []byte {
	if home != "" {
		if _, err := os.Stat(filepath.Join(home, ".hushlogin")); err == nil {
			return nil
		}
	}
	var out []byte
	for _, group := range motdFiles {
		for _, f := range group {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			if len(b) <= maxMOTD {
				out = append(out, b...)
			}
			break
		}
	}
	return []byte(strings.ReplaceAll(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n", "\r\n"))
}

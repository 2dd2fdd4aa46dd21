package session

import (
	"runtime"
	"strings"
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
//   - TERM is xterm-256color for a 256-colour client, else xterm;
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
		case "TERM", "STY", "NCURSES_NO_UTF8_ACS", "PWD", "MOSH_KEY":
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
	if colors == 256 {
		term = "xterm-256color"
	}
	env = append(env, "TERM="+term, "NCURSES_NO_UTF8_ACS=1")
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

package bootstrap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gosh-term/gosh/internal/ssp"

	"github.com/gosh-term/gosh/internal/buildinfo"
)

// Remote scripts run with "sh -c" through the user's login shell, so they
// are one line without '!' (csh history) and are quoted as one word.

// Lines the start script prints on stdout (besides the server's own).
const (
	needUploadPrefix = "GOSH UPLOAD " // GOSH UPLOAD <uname -s> <uname -m>
	havePrefix       = "GOSH HAVE "   // GOSH HAVE <sha256>: an uploaded binary
	gzipLine         = "GOSH GZIP"    // the remote's gzip -dc reads what compress/gzip writes
	uploadedLine     = "GOSH UPLOADED"
	usingPrefix      = "GOSH USING " // GOSH USING <the gosh that is started>
)

// shellQuote quotes s as one POSIX shell word.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// serverArgv returns the options after "new" (docs/protocol.md 1.1 and
// 1.7), or "attach ID" for a.Attach.
func serverArgv(a ServerArgs) []string {
	if a.Attach != "" {
		return []string{"attach", a.Attach}
	}
	argv := []string{"new"}
	if a.Colors != 0 {
		argv = append(argv, "-c", strconv.Itoa(a.Colors))
	}
	switch a.Bind {
	case "", "ssh":
		argv = append(argv, "-s")
	case "any":
	default:
		argv = append(argv, "-i", a.Bind)
	}
	for range a.Verbose {
		argv = append(argv, "-v")
	}
	for _, l := range a.Locale {
		argv = append(argv, "-l", l)
	}
	if a.Ports.IsSet() {
		argv = append(argv, "-p", a.Ports.String())
	}
	if a.Pacing != ssp.PacingGosh {
		argv = append(argv, "--pacing="+a.Pacing.String())
	}
	if a.ForwardAgent {
		argv = append(argv, "--forward-agent")
	}
	if len(a.Command) > 0 {
		argv = append(argv, "--")
		argv = append(argv, a.Command...)
	}
	return argv
}

// serverCommandLine is the shell command that starts the server: the
// server command as given (it may hold several words, as mosh's --server
// does), then the quoted options.
func serverCommandLine(serverCommand string, a ServerArgs) string {
	var b strings.Builder
	b.WriteString(serverCommand)
	for _, arg := range serverArgv(a) {
		b.WriteByte(' ')
		b.WriteString(shellQuote(arg))
	}
	return b.String()
}

// reportSSHConnection prints the remote view of the SSH connection, as
// mosh's wrapper asks for it with --experimental-remote-ip=remote.
const reportSSHConnection = `[ -n "$SSH_CONNECTION" ] && printf '\nMOSH SSH_CONNECTION %s\n' "$SSH_CONNECTION"; `

// uploadDirExpr is the remote directory of uploaded binaries, each in a
// subdirectory named by its SHA-256 (content-addressed: a different build
// under the same version name is never run for another).
func uploadDirExpr() string {
	return `"${XDG_DATA_HOME:-$HOME/.local/share}/gosh"`
}

// versionDirName is buildinfo.Version restricted to file-name characters.
func versionDirName() string {
	v := []byte(buildinfo.Version)
	for i, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == '_') {
			v[i] = '_'
		}
	}
	if len(v) == 0 || v[0] == '.' {
		return "v" + string(v)
	}
	return string(v)
}

// startScript is the remote command of the embedded client. For a custom
// server command (or upload=never) it just runs it. For the default gosh it
// picks a usable gosh: the one on PATH if it speaks this protocol (unless
// upload=always), else the uploaded binary whose SHA-256 is want (the one
// the client would upload; "" for none known); when there is none it
// prints "GOSH UPLOAD <os> <machine>", "GOSH GZIP" if its gzip decompresses
// the client's probe stream (see [gzipProbe]), and a "GOSH HAVE <sha256>"
// line for each binary uploaded earlier, and exits 0 so the client can
// choose.
func startScript(serverCommand string, a ServerArgs, upload UploadMode, want string) string {
	if serverCommand != DefaultServerCommand || upload == UploadNever {
		return "exec sh -c " + shellQuote(reportSSHConnection+"exec "+serverCommandLine(serverCommand, a))
	}
	proto := fmt.Sprintf("mosh protocol %d,", buildinfo.MoshProtocolVersion)
	var s strings.Builder
	s.WriteString(reportSSHConnection)
	s.WriteString("d=" + uploadDirExpr() + "; g=; ")
	if upload != UploadAlways {
		s.WriteString(`if command -v gosh >/dev/null 2>&1 && gosh version 2>/dev/null | grep '` + proto + `' >/dev/null; then g=gosh; fi; `)
	}
	if isSHA256(want) {
		s.WriteString(useUploaded(want))
	}
	s.WriteString(`if [ -z "$g" ]; then echo "` + needUploadPrefix + `$(uname -s) $(uname -m)"; ` +
		`if [ "$(printf '` + gzipProbe() + `' | gzip -dc 2>/dev/null)" = ` + gzipProbeWord + ` ]; then echo "` + gzipLine + `"; fi; ` +
		`for f in "$d"/*/gosh; do [ -x "$f" ] && h=${f%/gosh} && echo "` + havePrefix + `${h##*/}"; done; exit 0; fi; `)
	s.WriteString(`echo "` + usingPrefix + `$g"; `)
	s.WriteString(`exec "$g" ` + strings.TrimPrefix(serverCommandLine(serverCommand, a), "gosh "))
	return "exec sh -c " + shellQuote(s.String())
}

// useUploaded is the part of a script that picks the uploaded binary
// whose SHA-256 is want, if there is one and $g is still empty, and marks
// it used: it touches its directory, whose time orders the uploads for
// [pruneScript]. The mark comes before the check, so that a prune that
// runs meanwhile sees the binary in use (or this script sees it gone).
func useUploaded(want string) string {
	return `if [ -z "$g" ]; then touch -c "$d/` + want + `" 2>/dev/null; if [ -x "$d/` + want + `/gosh" ]; then g="$d/` + want + `/gosh"; fi; fi; `
}

// uploadScript receives a binary on stdin into the upload directory, checks
// its SHA-256 with whichever tool the remote has, and moves it into place
// atomically. With gzipped, stdin is the binary's gzip stream, which gzip
// -dc decompresses into the same temporary file. Nothing is left behind on
// failure: not a truncated or corrupt stream (cat or gzip fails, or the
// SHA-256 does not match), nor a binary other than sha256Hex. The SHA-256
// tool reads the file on its stdin, so that its output holds the digest
// and no file name (the path holds sha256Hex, and would match any digest).
// Once the binary is in place, [pruneScript] removes old uploads.
func uploadScript(sha256Hex string, gzipped bool) string {
	receive := "cat"
	if gzipped {
		receive = "gzip -dc"
	}
	s := "umask 077; D=" + uploadDirExpr() + `; d="$D/` + sha256Hex + `"; t="$d/.gosh-upload.$$"; ` +
		`mkdir -p "$d" || exit 1; e=$(` + receive + ` 2>&1 > "$t") || { r=$?; rm -f "$t"; set -f; set -- $e; e="$*"; ` +
		`printf '` + receiveFailed + `\n' "${e:-exit status $r}" >&2; exit 1; }; ` +
		`s=$( (sha256sum || shasum -a 256 || sha256 -q || openssl dgst -sha256) < "$t" 2>/dev/null ); ` +
		`case "$s" in *` + sha256Hex + `*) chmod 755 "$t" && mv -f "$t" "$d/gosh" || { rm -f "$t"; exit 1; }; echo ` + uploadedLine + ` "$d/gosh";; ` +
		`*) rm -f "$t"; echo "SHA-256 check failed (got: ${s:-no sha256 tool})" >&2; exit 1;; esac; ` +
		pruneScript()
	return "exec sh -c " + shellQuote(s)
}

// keptUploads is how many uploads a prune keeps whatever their age: the
// one just uploaded and the one used before it.
const keptUploads = 2

// pruneGraceMinutes: an upload used, uploaded or being uploaded within
// this many minutes is never removed, so that a client that has just
// chosen or sent a binary finds it when it runs it.
const pruneGraceMinutes = 60

// The command lines of the running processes, one way or the other.
const (
	procArgs = `cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\000' ' '`
	psArgs   = `ps -A -ww -o args= 2>/dev/null`
)

// pruneScript is the end of the upload script: from the upload directory
// $D it removes every upload but these, and exits 0:
//
//   - the keptUploads most recently used or uploaded (by the time of
//     their directory, which [useUploaded] and an upload set);
//   - one with anything in it changed within pruneGraceMinutes (used or
//     uploaded lately, or being uploaded: its temporary file grows);
//   - one that a running process was started from: a session's server
//     keeps its binary's path in its arguments, and runs the binary again
//     for a relay (a running program does not need its file on Unix, but
//     starting one does).
//
// The processes are read from /proc where there is one, else from ps -A;
// without either, or without a find that knows -mmin, nothing is removed.
// An upload is renamed before it is deleted, so that a start script sees
// it whole or not at all. Only directories named by a SHA-256 count.
func pruneScript() string {
	hex64 := strings.Repeat("[0-9a-f]", 64)
	return `P=$(if [ -r /proc/self/cmdline ]; then ` + procArgs + `; else ` + psArgs + `; fi) && ` +
		`[ -n "$P" ] && cd "$D" && n=0 && for e in $(ls -td -- */ 2>/dev/null); do s=${e%/}; ` +
		`case $s in ` + hex64 + `) ;; *) continue;; esac; n=$((n+1)); [ $n -le ` + strconv.Itoa(keptUploads) + ` ] && continue; ` +
		`case $P in *$s*) continue;; esac; ` +
		`r=$(find "$s" -mmin -` + strconv.Itoa(pruneGraceMinutes) + ` 2>/dev/null) && [ -z "$r" ] && mv "$s" ".gosh-old.$s.$$" 2>/dev/null && rm -rf ".gosh-old.$s.$$"; ` +
		`done; exit 0`
}

// receiveFailed is the upload script's printf format for a stream that
// was not received whole; %s is what cat or gzip said (on one line), or
// its exit status.
const receiveFailed = "gosh: receiving the upload failed (%s); nothing was installed"

// isSHA256 reports whether s is 64 lowercase hex digits (safe in a script).
func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// platform maps `uname -s` and `uname -m` to GOOS and GOARCH.
func platform(unameS, unameM string) (goos, goarch string, ok bool) {
	switch strings.ToLower(unameS) {
	case "linux", "darwin", "freebsd", "openbsd", "netbsd", "dragonfly":
		goos = strings.ToLower(unameS)
	case "sunos":
		goos = "solaris"
	default:
		return "", "", false
	}
	switch m := strings.ToLower(unameM); {
	case m == "x86_64" || m == "amd64":
		goarch = "amd64"
	case m == "aarch64" || m == "arm64" || m == "aarch64_be":
		goarch = "arm64"
	case m == "i386" || m == "i486" || m == "i586" || m == "i686" || m == "i86pc":
		goarch = "386"
	case strings.HasPrefix(m, "armv") || m == "arm":
		goarch = "arm"
	case m == "riscv64" || m == "ppc64le" || m == "ppc64" || m == "s390x" || m == "mips64" || m == "loong64":
		goarch = m
	default:
		return "", "", false
	}
	return goos, goarch, true
}

package bootstrap

import (
	"strconv"
	"strings"

	"github.com/gosh-term/gosh/internal/crypto"
)

// Lines the remote side prints on stdout or stderr that the client reads
// (mosh-wire.md sections 1.3 and 1.7).
const (
	connectPrefix        = "MOSH CONNECT "
	sshConnectionPrefix  = "MOSH SSH_CONNECTION "
	detachedPrefix       = "[mosh-server detached, pid = "
	goshDetachedPrefix   = "[gosh server detached, pid = "
	keyLen               = 22 // base64 of 16 bytes without "=="
	maxLineLen           = 4096
	maxCapturedStderrLen = 64 << 10
)

// ParseConnectLine recognises the server's "MOSH CONNECT <port> <key>" line,
// accepting exactly what mosh's wrapper accepts (the Perl regular expression
// ^MOSH CONNECT (\d+?) ([A-Za-z0-9/+]{22})\s*$) and additionally requiring
// a port in 1..65535 and a key that [crypto.ParseKey] accepts. Leading
// bytes are not skipped: callers split the stream into lines first.
func ParseConnectLine(line string) (port uint16, key crypto.Key, ok bool) {
	rest, found := strings.CutPrefix(line, connectPrefix)
	if !found {
		return 0, crypto.Key{}, false
	}
	rest = strings.TrimRight(rest, " \t\r\n\v\f")
	digits, keyText, found := strings.Cut(rest, " ")
	if !found || len(keyText) != keyLen || !allDigits(digits) {
		return 0, crypto.Key{}, false
	}
	n, err := strconv.ParseUint(digits, 10, 16)
	if err != nil || n == 0 {
		return 0, crypto.Key{}, false
	}
	for i := 0; i < len(keyText); i++ {
		if !isBase64Char(keyText[i]) {
			return 0, crypto.Key{}, false
		}
	}
	k, err := crypto.ParseKey(keyText)
	if err != nil {
		return 0, crypto.Key{}, false
	}
	return uint16(n), k, true
}

// parseDetachedLine returns the daemon's pid from mosh-server's
// "[mosh-server detached, pid = N]" or gosh's "[gosh server detached, pid =
// N]" stderr line.
func parseDetachedLine(line string) (pid int, ok bool) {
	line = strings.TrimSpace(line)
	rest, found := strings.CutPrefix(line, detachedPrefix)
	if !found {
		rest, found = strings.CutPrefix(line, goshDetachedPrefix)
	}
	if !found {
		return 0, false
	}
	digits, found := strings.CutSuffix(rest, "]")
	if !found || !allDigits(digits) {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// parseSSHConnectionLine returns the server-side address from a
// "MOSH SSH_CONNECTION <client-ip> <client-port> <server-ip> <server-port>"
// line printed by the remote start script.
func parseSSHConnectionLine(line string) (serverIP string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(line), sshConnectionPrefix)
	if !found {
		return "", false
	}
	f := strings.Fields(rest)
	if len(f) != 4 {
		return "", false
	}
	return f[2], true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// Package connectline formats and parses the lines a session server prints
// for whatever started it (gosh connect's bootstrap, mosh's wrapper, a
// test): "MOSH CONNECT <port> <key>" on stdout, which carries the UDP port
// and the session key (docs/protocol.md section 1.3), and the detach notice
// "[mosh-server detached, pid = N]" (or gosh's "[gosh server detached, pid
// = N, session = ID]") on stderr, which carries the daemon's pid and, from
// gosh, the session's ID (the one gosh sessions lists).
//
// This package is the only place that knows these formats: the server
// writes them with [Append] and [AppendDetached]; clients and tests read
// them with [Parse] and [ParseDetached].
package connectline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gosh-term/gosh/internal/buildinfo"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// The fixed parts of the lines.
const (
	connectPrefix      = "MOSH CONNECT "
	moshDetachedPrefix = "[mosh-server detached, pid = "
	goshDetachedPrefix = "[gosh server detached, pid = "
	goshBannerPrefix   = "gosh server (gosh "
	sessionInfix       = ", session = "
	keyLen             = 22 // base64 of 16 bytes without "=="
)

// Append appends the CONNECT line for port and key, with its newline, to
// dst: exactly what mosh-server prints.
func Append(dst []byte, port uint16, key sspcrypto.Key) []byte {
	dst = append(dst, connectPrefix...)
	dst = strconv.AppendUint(dst, uint64(port), 10)
	dst = append(dst, ' ')
	dst = append(dst, key.Base64()...)
	return append(dst, '\n')
}

// Parse recognises a CONNECT line, accepting exactly what mosh's wrapper
// accepts (the Perl pattern ^MOSH CONNECT (\d+?) ([A-Za-z0-9/+]{22})\s*$)
// and additionally requiring a port in 1..65535 and a key that
// [sspcrypto.ParseKey] accepts. Leading bytes are not skipped: callers split
// the stream into lines first.
func Parse(line string) (port uint16, key sspcrypto.Key, ok bool) {
	rest, found := strings.CutPrefix(line, connectPrefix)
	if !found {
		return 0, sspcrypto.Key{}, false
	}
	rest = strings.TrimRight(rest, " \t\r\n\v\f")
	digits, keyText, found := strings.Cut(rest, " ")
	if !found || len(keyText) != keyLen || !allDigits(digits) {
		return 0, sspcrypto.Key{}, false
	}
	n, err := strconv.ParseUint(digits, 10, 16)
	if err != nil || n == 0 {
		return 0, sspcrypto.Key{}, false
	}
	for i := 0; i < len(keyText); i++ {
		if !isBase64Char(keyText[i]) {
			return 0, sspcrypto.Key{}, false
		}
	}
	k, err := sspcrypto.ParseKey(keyText)
	if err != nil {
		return 0, sspcrypto.Key{}, false
	}
	return uint16(n), k, true
}

// Detached is what a detach notice tells: the daemon's pid and, from a
// gosh server, the session's ID.
type Detached struct {
	// PID is the daemon's process id.
	PID int
	// Session is the session's ID on its host (gosh sessions lists it):
	// 8 lowercase hex digits, or "" from mosh-server, from an earlier
	// gosh, or from a daemon that has no control socket.
	Session string
}

// sessionIDLen is the length of a session ID.
const sessionIDLen = 8

// ValidSessionID reports whether id has the form of a session ID, 8
// lowercase hex digits, so that it is safe in a file name and a command
// line.
func ValidSessionID(id string) bool {
	if len(id) != sessionIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// AppendDetached appends gosh's detach banner for d to dst: a blank line,
// the version line and the detach notice, each with its newline, as
// mosh-server prints its own on stderr. A d.Session that is not a session
// ID is left out.
func AppendDetached(dst []byte, d Detached) []byte {
	dst = fmt.Appendf(dst, "\n%s%s, mosh protocol %d)\n", goshBannerPrefix, buildinfo.Version, buildinfo.MoshProtocolVersion)
	dst = append(dst, goshDetachedPrefix...)
	dst = strconv.AppendInt(dst, int64(d.PID), 10)
	if ValidSessionID(d.Session) {
		dst = append(dst, sessionInfix...)
		dst = append(dst, d.Session...)
	}
	return append(dst, "]\n"...)
}

// bannerPrefixes start the lines mosh-server and gosh server print on
// stderr as they detach.
var bannerPrefixes = []string{
	"mosh-server (mosh ", "Copyright 2012 Keith Winstein", "License GPLv3+: GNU GPL",
	"This is free software: you are free", "There is NO WARRANTY", moshDetachedPrefix,
	goshBannerPrefix, goshDetachedPrefix,
}

// IsBanner reports whether a line a server printed on stderr is part of
// its detach banner (mosh-server's or gosh's), or blank: a starter shows
// the user everything else.
func IsBanner(line string) bool {
	if strings.TrimSpace(line) == "" {
		return true
	}
	for _, p := range bannerPrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// ParseDetached reads mosh-server's "[mosh-server detached, pid = N]"
// or gosh's "[gosh server detached, pid = N, session = ID]" line
// (surrounding white space ignored; gosh's may lack the session).
func ParseDetached(line string) (Detached, bool) {
	line = strings.TrimSpace(line)
	rest, found := strings.CutPrefix(line, moshDetachedPrefix)
	gosh := false
	if !found {
		rest, found = strings.CutPrefix(line, goshDetachedPrefix)
		gosh = true
	}
	if !found {
		return Detached{}, false
	}
	rest, found = strings.CutSuffix(rest, "]")
	if !found {
		return Detached{}, false
	}
	var d Detached
	if digits, id, ok := strings.Cut(rest, sessionInfix); ok {
		if !gosh || !ValidSessionID(id) {
			return Detached{}, false
		}
		rest, d.Session = digits, id
	}
	if !allDigits(rest) {
		return Detached{}, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 {
		return Detached{}, false
	}
	d.PID = n
	return d, true
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

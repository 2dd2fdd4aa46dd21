package bootstrap

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// maxBadLines bounds how many unreadable lines are skipped in one file.
const maxBadLines = 1000

// maxKnownHostsSize bounds a known_hosts file read for its
// @cert-authority lines.
const maxKnownHostsSize = 64 << 20

// knownhostsLineErr matches x/crypto's "knownhosts: FILE:LINE: reason".
var knownhostsLineErr = regexp.MustCompile(`^knownhosts: (.*):(\d+): `)

// loadKnownHosts reads known_hosts files the way OpenSSH does: a line that
// cannot be parsed (a key type gosh does not know, a typo) is skipped with
// a warning (through warn, once per file and line), and the rest of the
// file still counts. x/crypto's reader rejects the whole file instead, so
// a file with bad lines is read from a copy in which they are blanked
// (line numbers kept), and the callback's errors name the original file.
//
// x/crypto also lists @cert-authority lines among a host's known keys
// (KeyError.Want), where OpenSSH does not: a CA's key is not a host key,
// so the callback leaves them out (a host known only through its CA then
// presents an unknown plain key, not a changed one).
func loadKnownHosts(files []string, warn func(file string, line int, reason string)) (ssh.HostKeyCallback, error) {
	names := map[string]string{} // copy → original
	cb, err := knownhosts.New(files...)
	if err != nil {
		tmp, err := os.MkdirTemp("", "gosh-known-hosts-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		var read []string
		for i, f := range files {
			name, err := cleanKnownHosts(f, filepath.Join(tmp, strconv.Itoa(i)), warn)
			if err != nil {
				return nil, err
			}
			names[name] = f
			read = append(read, name)
		}
		if cb, err = knownhosts.New(read...); err != nil {
			return nil, err
		}
	}
	authorities := certAuthorityLines(files)
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(hostname, remote, key)
		rename := func(k *knownhosts.KnownKey) {
			if orig, ok := names[k.Filename]; ok {
				k.Filename = orig
			}
		}
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case errors.As(err, &ke):
			want := ke.Want[:0]
			for _, w := range ke.Want {
				rename(&w)
				if !authorities[fmt.Sprintf("%s:%d", w.Filename, w.Line)] {
					want = append(want, w)
				}
			}
			ke.Want = want
		case errors.As(err, &re):
			rename(&re.Revoked)
		}
		return err
	}, nil
}

// certAuthorityLines returns the "file:line" of every @cert-authority
// line in files.
func certAuthorityLines(files []string) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		data, err := readLimited(f, maxKnownHostsSize)
		if err != nil {
			continue // knownhosts.New read it: it will not fail now but for a race
		}
		for n, line := range bytes.Split(data, []byte("\n")) {
			if bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("@cert-authority")) {
				out[fmt.Sprintf("%s:%d", f, n+1)] = true
			}
		}
	}
	return out
}

// cleanKnownHosts returns the name of a readable version of file: file
// itself, or a copy at cp with every line x/crypto rejects blanked.
func cleanKnownHosts(file, cp string, warn func(string, int, string)) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	lines := bytes.Split(data, []byte("\n"))
	orig := file
	for range maxBadLines {
		_, err := knownhosts.New(file)
		if err == nil {
			return file, nil
		}
		m := knownhostsLineErr.FindStringSubmatch(err.Error())
		if m == nil {
			return "", err // not a line we can skip
		}
		n, _ := strconv.Atoi(m[2])
		if n < 1 || n > len(lines) || len(bytes.TrimSpace(lines[n-1])) == 0 {
			return "", err
		}
		warn(orig, n, strings.TrimPrefix(err.Error(), m[0]))
		lines[n-1] = nil
		if err := os.WriteFile(cp, bytes.Join(lines, []byte("\n")), 0o600); err != nil {
			return "", err
		}
		file = cp
	}
	return "", fmt.Errorf("bootstrap: %s: more than %d unreadable lines", orig, maxBadLines)
}

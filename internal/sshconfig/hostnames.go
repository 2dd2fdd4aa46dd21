package sshconfig

import (
	"bufio"
	"bytes"
	"sort"
	"strings"
)

// HostNames lists the names on the Host lines of r's files and of the
// files they include (Include, globbed as when resolving, nested up to 16
// deep, whatever block the line is in), in order, for shell completion:
// no patterns (* ?), negations, or names [ParseDestination] refuses.
// Unreadable files and lines are skipped.
func (r *Resolver) HostNames() []string {
	var names []string
	add := func(n string) { names = append(names, n) }
	for i, f := range r.Files {
		relDir := r.Home
		if i < len(r.Dirs) {
			relDir = r.Dirs[i]
		}
		configFileHosts(r.FS, expandTilde(f, r.Home), relDir, r.Home, 0, add)
	}
	return names
}

// configFileHosts passes the host names of an ssh_config file, and of the
// files it includes, to add.
func configFileHosts(fsys FS, name, relDir, home string, depth int, add func(string)) {
	b, err := fsys.readFile(name)
	if err != nil {
		return
	}
	hosts, includes := configHostNames(b)
	for _, h := range hosts {
		add(h)
	}
	if depth >= maxIncludeDepth {
		return
	}
	for _, pat := range includes {
		matches, err := fsys.glob(underHome(expandTilde(pat, home), relDir))
		if err != nil {
			continue
		}
		sort.Strings(matches)
		for _, m := range matches {
			configFileHosts(fsys, m, relDir, home, depth+1, add)
		}
	}
}

// configHostNames returns the plain names on the Host lines of an
// ssh_config file (not patterns, not negated ones) and the patterns of
// its Include lines, in order. Lines it cannot read are skipped.
func configHostNames(data []byte) (hosts, includes []string) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, MaxFileSize)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		keyword, rest := splitKeyword(line)
		if keyword != "host" && keyword != "include" {
			continue
		}
		args, err := splitConfigArgs(rest)
		if err != nil {
			continue
		}
		if keyword == "include" {
			includes = append(includes, args...)
			continue
		}
		for _, a := range args {
			if plainHostName(a) {
				hosts = append(hosts, a)
			}
		}
	}
	return hosts, includes
}

// KnownHostsNames returns the host names of a known_hosts file's plain
// entries, for shell completion: not hashed (|1|…), negated or wildcard
// patterns, nor @cert-authority or @revoked lines. "[host]:port" gives
// "host:port" (or "[host]:port" for an IPv6 address, as a destination is
// written). Every name is one [ParseDestination] takes.
func KnownHostsNames(data []byte) []string {
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || strings.HasPrefix(fields[0], "#") || strings.HasPrefix(fields[0], "@") {
			continue
		}
		for _, p := range strings.Split(fields[0], ",") {
			if rest, ok := strings.CutPrefix(p, "["); ok {
				host, port, ok := strings.Cut(rest, "]:")
				if _, err := parsePort(port); !ok || err != nil || strings.ContainsAny(host, "!@[]") || checkHostName(host) != nil {
					continue
				}
				if strings.Contains(host, ":") {
					p = "[" + host + "]:" + port
				} else {
					p = host + ":" + port
				}
			} else if !plainHostName(p) {
				continue
			}
			names = append(names, p)
		}
	}
	return names
}

// plainHostName reports whether a Host or known_hosts pattern names one
// host that gosh takes as a destination: no wildcard, negation, bracket
// or user, nothing [checkHostName] refuses.
func plainHostName(p string) bool {
	return !strings.ContainsAny(p, "!@[]:") && checkHostName(p) == nil
}

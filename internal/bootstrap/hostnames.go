package bootstrap

import (
	"bufio"
	"bytes"
	"path/filepath"
	"sort"
	"strings"
)

// HostNames lists the hosts a user may mean, for shell completion: the
// names on the Host lines of the ssh_config files a connection reads
// (configFile as [Config.ConfigFile]: "" for ~/.ssh/config then the
// system's, "none" for none), following Include, without patterns
// (* ?) or negations; and the host names of the plain entries of the
// user's and the system's known_hosts files (hashed ones cannot be read
// back; [host]:port entries give host:port). Sorted, without duplicates;
// unreadable files are skipped.
func HostNames(home, configFile string) []string {
	return hostNames(osConfigFS, func(name string) ([]byte, error) { return readLimited(name, maxKnownHostsSize) }, home, configFile)
}

// hostNames is HostNames reading ssh_config files from fsys and
// known_hosts files with readKnown.
func hostNames(fsys configFS, readKnown func(string) ([]byte, error), home, configFile string) []string {
	var files, dirs []string
	switch configFile {
	case "":
		files = []string{filepath.Join(home, ".ssh", "config"), systemSSHConfig}
		dirs = []string{filepath.Join(home, ".ssh"), systemSSHConfigDir}
	case "none":
	default:
		files = []string{expandTilde(configFile, home)}
		dirs = []string{filepath.Join(home, ".ssh")}
	}
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for i, f := range files {
		configFileHosts(fsys, f, dirs[i], home, 0, add)
	}
	known := []string{filepath.Join(home, ".ssh", "known_hosts"), filepath.Join(home, ".ssh", "known_hosts2")}
	for _, f := range append(known, systemKnownHosts...) {
		b, err := readKnown(f)
		if err != nil {
			continue
		}
		for _, n := range knownHostsNames(b) {
			add(n)
		}
	}
	sort.Strings(names)
	return names
}

// configFileHosts passes the host names of an ssh_config file, and of the
// files it includes, to add.
func configFileHosts(fsys configFS, name, relDir, home string, depth int, add func(string)) {
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
	sc.Buffer(nil, maxConfigFileSize)
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

// knownHostsNames returns the host names of a known_hosts file's plain
// entries: not hashed (|1|…), negated or wildcard patterns, nor
// @cert-authority or @revoked lines. "[host]:port" gives "host:port" (or
// "[host]:port" for an IPv6 address, as a destination is written).
func knownHostsNames(data []byte) []string {
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

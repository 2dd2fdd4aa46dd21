package bootstrap

import (
	"path/filepath"
	"sort"

	"github.com/gosh-term/gosh/internal/sshconfig"
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
func hostNames(fsys sshconfig.FS, readKnown func(string) ([]byte, error), home, configFile string) []string {
	files, dirs := configFiles(home, configFile)
	r := sshconfig.Resolver{Files: files, Dirs: dirs, FS: fsys, Home: home}
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, n := range r.HostNames() {
		add(n)
	}
	known := []string{filepath.Join(home, ".ssh", "known_hosts"), filepath.Join(home, ".ssh", "known_hosts2")}
	for _, f := range append(known, systemKnownHosts...) {
		b, err := readKnown(f)
		if err != nil {
			continue
		}
		for _, n := range sshconfig.KnownHostsNames(b) {
			add(n)
		}
	}
	sort.Strings(names)
	return names
}

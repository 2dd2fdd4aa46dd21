package sshconfig

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/netaddr"
)

// maxIncludeDepth bounds nested Include directives, as OpenSSH does.
const maxIncludeDepth = 16

// MaxFileSize bounds one ssh_config file: the evaluator reads no longer
// line, and an [FS] should refuse a larger file.
const MaxFileSize = 1 << 20

// cumulativeOptions are keywords whose every occurrence counts; all others
// keep the first value obtained (ssh_config(5)).
var cumulativeOptions = map[string]bool{
	"identityfile": true, "certificatefile": true,
	"localforward": true, "remoteforward": true, "dynamicforward": true,
	"sendenv": true, "setenv": true,
}

// rawOptions take the rest of the line as one command string.
var rawOptions = map[string]bool{
	"proxycommand": true, "localcommand": true, "remotecommand": true, "knownhostscommand": true,
}

// hostOptions is the result of evaluating ssh_config files for one host:
// for each lower-case keyword, the arguments of its first occurrence in a
// matching block, or all occurrences for cumulative keywords.
type hostOptions struct {
	first map[string][]string
	all   map[string][][]string
	order map[string]int // when each keyword was first obtained
}

func newHostOptions() *hostOptions {
	return &hostOptions{first: map[string][]string{}, all: map[string][][]string{}, order: map[string]int{}}
}

// before reports whether keyword a was obtained before b (set ones sort
// before unset ones).
func (o *hostOptions) before(a, b string) bool {
	ia, oka := o.order[a]
	ib, okb := o.order[b]
	return oka && (!okb || ia < ib)
}

// get returns the first argument of keyword, or "" when unset.
func (o *hostOptions) get(keyword string) string {
	if a := o.first[keyword]; len(a) > 0 {
		return a[0]
	}
	return ""
}

// args returns all arguments of keyword's first occurrence.
func (o *hostOptions) args(keyword string) []string { return o.first[keyword] }

// each returns the first argument of every occurrence of a cumulative keyword.
func (o *hostOptions) each(keyword string) []string {
	var v []string
	for _, a := range o.all[keyword] {
		if len(a) > 0 {
			v = append(v, a[0])
		}
	}
	return v
}

func (o *hostOptions) set(keyword string, args []string) {
	if _, ok := o.order[keyword]; !ok {
		o.order[keyword] = len(o.order)
	}
	if cumulativeOptions[keyword] {
		o.all[keyword] = append(o.all[keyword], args)
		return
	}
	if _, ok := o.first[keyword]; !ok {
		o.first[keyword] = args
	}
}

// FS is how a [Resolver] reaches files. Names are the operating system's
// (absolute, with its separators). The zero FS has no files.
type FS struct {
	// ReadFile returns the contents of a file; an error that is
	// fs.ErrNotExist means there is none. A file larger than
	// [MaxFileSize] should be an error.
	ReadFile func(name string) ([]byte, error)
	// Glob returns the names that match an Include pattern, as
	// filepath.Glob does.
	Glob func(pattern string) ([]string, error)
}

func (f FS) readFile(name string) ([]byte, error) {
	if f.ReadFile == nil {
		return nil, fs.ErrNotExist
	}
	return f.ReadFile(name)
}

func (f FS) glob(pattern string) ([]string, error) {
	if f.Glob == nil {
		return nil, nil
	}
	return f.Glob(pattern)
}

// configEval evaluates ssh_config files for one destination.
type configEval struct {
	fs           FS
	originalHost string // the host as typed, which Host patterns match
	user         string // the user from the command line, or ""
	port         int    // the port from the command line, or 0
	localUser    string
	home         string
	logf         logf.Func
	opts         *hostOptions
	// exec runs a Match exec command line and reports whether it exited
	// with status 0; nil runs nothing (such criteria do not match).
	exec       func(command string) bool
	quote      func(string) string // see Resolver.Quote; never nil
	local      map[byte]string     // see Resolver.Local
	neverMatch bool                // evaluating a file included from an inactive block
	// cmdline are the command line's settings (ssh -o, -i, -J), obtained
	// before any file's, so they win.
	cmdline []Option
}

// evalSSHConfig evaluates files in order (first obtained value wins) for
// originalHost. relDirs[i] is where relative Include paths of files[i]
// resolve (~/.ssh for the user's file, /etc/ssh for the system one; the
// home directory for a file without one). Missing files are skipped,
// unless required.
func evalSSHConfig(e *configEval, files, relDirs []string, required bool) (*hostOptions, error) {
	if e.opts == nil {
		e.opts = newHostOptions()
	}
	for _, c := range e.cmdline {
		e.opts.set(c.keyword, c.args)
	}
	for i, f := range files {
		f = expandTilde(f, e.home)
		relDir := e.home
		if i < len(relDirs) {
			relDir = relDirs[i]
		}
		b, err := e.fs.readFile(f)
		if errors.Is(err, fs.ErrNotExist) && required {
			return nil, fmt.Errorf("ssh config file %s (-F) does not exist", f)
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("ssh config: %w", err)
		}
		if err := e.evalFile(f, b, relDir, 0, false); err != nil {
			return nil, err
		}
	}
	return e.opts, nil
}

// evalFile applies one file's lines. neverMatch is set for files included
// from an inactive block: they are checked but apply nothing.
func (e *configEval) evalFile(name string, data []byte, relDir string, depth int, neverMatch bool) error {
	active := !neverMatch
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, MaxFileSize)
	for lineNo := 1; sc.Scan(); lineNo++ {
		if err := e.evalLine(sc.Text(), relDir, depth, neverMatch, &active); err != nil {
			return fmt.Errorf("ssh config %s line %d: %w", name, lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("ssh config %s: %w", name, err)
	}
	return nil
}

func (e *configEval) evalLine(line, relDir string, depth int, neverMatch bool, active *bool) error {
	line = strings.TrimRight(strings.TrimLeft(line, " \t"), " \t\r")
	if line == "" || line[0] == '#' {
		return nil
	}
	keyword, rest := splitKeyword(line)
	args, err := splitConfigArgs(rest)
	if rawOptions[keyword] && rest != "" {
		args, err = []string{rest}, nil
	}
	if err != nil {
		return err
	}
	switch keyword {
	case "host":
		if len(args) == 0 {
			return errors.New("Host needs at least one pattern")
		}
		*active = !neverMatch && matchHostPatterns(e.originalHost, args)
	case "match":
		e.neverMatch = neverMatch
		ok, err := e.evalMatch(args)
		if err != nil {
			return err
		}
		*active = !neverMatch && ok
	case "include":
		return e.include(args, relDir, depth, !*active)
	default:
		if len(args) == 0 {
			return fmt.Errorf("%s needs an argument", keyword)
		}
		if err := checkOptionValue(keyword, args); err != nil {
			return err
		}
		if *active {
			e.opts.set(keyword, args)
		}
	}
	return nil
}

// include reads every file matched by the Include arguments, in lexical
// order per pattern, with the active state of the including line.
func (e *configEval) include(args []string, relDir string, depth int, neverMatch bool) error {
	if len(args) == 0 {
		return errors.New("Include needs a file")
	}
	if depth >= maxIncludeDepth {
		return errors.New("Include nested too deeply")
	}
	for _, pat := range args {
		pat = expandTilde(pat, e.home)
		pat = underHome(pat, relDir)
		names, err := e.fs.glob(pat)
		if err != nil {
			return fmt.Errorf("Include %q: %w", pat, err)
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := e.fs.readFile(n)
			if err != nil {
				continue // OpenSSH skips unreadable matches
			}
			if err := e.evalFile(n, b, relDir, depth+1, neverMatch); err != nil {
				return err
			}
		}
	}
	return nil
}

// evalMatch evaluates the criteria of a Match line, left to right; once one
// has failed, exec commands are no longer run (as OpenSSH does).
// Unsupported criteria (localnetwork, tagged, canonical) never match, with
// a log line.
func (e *configEval) evalMatch(args []string) (bool, error) {
	if len(args) == 0 {
		return false, errors.New("Match needs criteria")
	}
	result := true
	for i := 0; i < len(args); i++ {
		crit, neg := strings.CutPrefix(strings.ToLower(args[i]), "!")
		var ok bool
		switch crit {
		case "all":
			ok = true
		case "final":
			ok = true // gosh evaluates once, and that pass is the final one
		case "canonical":
			ok = false
		case "host", "originalhost", "user", "localuser", "exec", "localnetwork", "tagged":
			if i+1 >= len(args) {
				return false, fmt.Errorf("Match %s needs an argument", crit)
			}
			i++
			if crit == "exec" {
				ok = result && e.matchExec(args[i])
				break
			}
			ok = e.matchCriterion(crit, args[i])
		default:
			return false, fmt.Errorf("unsupported Match criterion %q", args[i])
		}
		if ok == neg {
			result = false
		}
	}
	return result, nil
}

func (e *configEval) matchCriterion(crit, arg string) bool {
	switch crit {
	case "host":
		host := e.originalHost
		if h := e.opts.get("hostname"); h != "" {
			host = strings.ReplaceAll(h, "%h", e.originalHost)
		}
		return matchPatternList(host, arg)
	case "originalhost":
		return matchPatternList(e.originalHost, arg)
	case "user":
		u := e.user
		if u == "" {
			u = e.opts.get("user")
		}
		if u == "" {
			u = e.localUser
		}
		return matchPatternList(u, arg)
	case "localuser":
		return matchPatternList(e.localUser, arg)
	}
	e.logf.Printf("ssh config: Match %s is not supported; treating it as not matching", crit)
	return false
}

// matchExec runs a Match exec command, with its %-tokens quoted as for
// ProxyCommand, through the user's shell. It never runs one from a file
// included by an inactive block.
func (e *configEval) matchExec(command string) bool {
	if e.exec == nil || e.neverMatch {
		return false
	}
	host := e.originalHost
	if h := e.opts.get("hostname"); h != "" {
		host = strings.ReplaceAll(h, "%h", e.originalHost)
	}
	port := e.port
	if port == 0 {
		port = defaultSSHPort
		if v := e.opts.get("port"); v != "" {
			port, _ = strconv.Atoi(v) // checked while parsing
		}
	}
	user := e.user
	if user == "" {
		user = e.opts.get("user")
	}
	if user == "" {
		user = e.localUser
	}
	keyName := host
	if a := e.opts.get("hostkeyalias"); a != "" {
		keyName = a
	}
	tok := quoteAll(e.quote, map[byte]string{
		'h': host, 'n': e.originalHost, 'p': strconv.Itoa(port), 'r': user,
		'u': e.localUser, 'd': e.home, 'k': keyName, 'i': e.local['i'], 'l': e.local['l'], 'L': e.local['L'],
	})
	line, err := expandTokens(command, tok)
	if err != nil {
		e.logf.Printf("ssh config: Match exec %q: %v; not matching", command, err)
		return false
	}
	ok := e.exec(line)
	e.logf.Printf("ssh config: Match exec %q: %v", line, ok)
	return ok
}

// checkOptionValue rejects malformed values of the options gosh uses, so a
// typo fails loudly instead of being ignored.
func checkOptionValue(keyword string, args []string) error {
	switch keyword {
	case "port":
		if _, err := netaddr.ParsePort(args[0]); err != nil {
			return fmt.Errorf("bad Port %q", args[0])
		}
	case "connecttimeout", "numberofpasswordprompts":
		if args[0] == "none" && keyword == "connecttimeout" {
			return nil
		}
		if _, err := strconv.ParseUint(args[0], 10, 31); err != nil {
			return fmt.Errorf("bad %s %q", keyword, args[0])
		}
	case "stricthostkeychecking":
		switch strings.ToLower(args[0]) {
		case "yes", "no", "ask", "accept-new", "off", "true", "false":
		default:
			return fmt.Errorf("bad StrictHostKeyChecking %q", args[0])
		}
	case "addressfamily":
		if _, err := netaddr.ParseFamily(strings.ToLower(args[0])); err != nil {
			return fmt.Errorf("bad AddressFamily %q", args[0])
		}
	case "requiredrsasize", "serveralivecountmax":
		if _, err := strconv.ParseUint(args[0], 10, 31); err != nil {
			return fmt.Errorf("bad %s %q", keywords()[keyword].name, args[0])
		}
	case "serveraliveinterval":
		if _, err := parseConfigTime(args[0]); err != nil {
			return fmt.Errorf("bad ServerAliveInterval: %w", err)
		}
	case "revokedhostkeys":
		for _, a := range args {
			if strings.EqualFold(a, "none") && len(args) > 1 {
				return errors.New(`RevokedHostKeys "none" must stand alone`)
			}
		}
	}
	if l, ok := algorithmKeywords()[keyword]; ok {
		if len(args) > 1 {
			return fmt.Errorf("%s takes one comma-separated list, not %d words", l.name, len(args))
		}
		if _, err := parseAlgorithmSpec(args[0]); err != nil {
			return fmt.Errorf("bad %s: %w", keywords()[keyword].name, err)
		}
	}
	return nil
}

// yes reports whether an ssh_config boolean is true.
func yes(v string) bool {
	switch strings.ToLower(v) {
	case "yes", "true":
		return true
	}
	return false
}

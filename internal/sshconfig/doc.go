// Package sshconfig reads OpenSSH's client configuration the way ssh
// does, for gosh's built-in SSH client: destinations
// ([ParseDestination]), the command line's settings (ssh -o, -i, -J:
// [ParseOption], [CommandLine]) and ssh_config files, resolved for one
// host into a [Host] by a [Resolver].
//
// It is a pure core in the sense of docs/architecture.md: it parses and
// resolves, and does no I/O of its own. Files come through [FS], the
// environment through Resolver.Getenv, and Match exec runs through
// Resolver.Exec, which the caller supplies (internal/bootstrap passes
// the operating system's); left nil, nothing is read or run. It neither
// reads the clock nor starts goroutines, and imports neither os nor net
// (internal/deps_test.go checks).
//
// # Evaluation
//
// The command line's settings come first, then the files in order; for
// each keyword the first value obtained wins (IdentityFile,
// CertificateFile and the forwards accumulate), as ssh_config(5) says.
// Host lines match the name as typed with * and ? patterns and !negation,
// case-insensitively. Match takes all, host (the HostName obtained so
// far), originalhost, user, localuser, final (gosh evaluates once, and
// that pass is the final one) and exec; localnetwork and tagged never
// match (with a debug note), nor does canonical. Once a criterion of a
// Match line has failed, its exec commands are not run. Include takes
// globs, relative to the including file's directory (~/.ssh, /etc/ssh),
// nested up to 16 deep, and applies conditionally inside Host and Match
// blocks; a file included from an inactive block is checked but applies
// nothing and runs nothing.
//
// The values gosh uses are checked as they are read, in files and on the
// command line alike, so a typo is an error naming the file and line
// rather than a setting silently ignored. Paths take ~, ${ENV} and the
// %-tokens %h %p %r %u %d %n %k %i %l %L %%; ProxyCommand and Match exec
// take the %-tokens, each quoted as one word (Resolver.Quote) so that no
// name from a file or the command line can inject a command.
//
// # Algorithms
//
// Ciphers, KexAlgorithms, MACs, HostKeyAlgorithms,
// PubkeyAcceptedAlgorithms (or PubkeyAcceptedKeyTypes) and
// CASignatureAlgorithms take ssh_config(5)'s lists: names replace the
// default set, "+names" append to it, "-names" remove from it and
// "^names" put at its head; names may be patterns with * and ?. The
// default set is x/crypto's algorithms without known weaknesses, in its
// order of preference. Names x/crypto does not implement are skipped,
// with a debug note; a list that leaves none is an error.
//
// # Keywords
//
// Every keyword of OpenSSH's ssh_config(5) is known, with what the
// built-in client does with it: honoured, ignored, or ignored although it
// changes security; [Host.Unhonoured] lists those a host sets that the
// client does not honour, so that the caller can say so. An unknown
// keyword in a file is not an error, unlike ssh's: Unhonoured names it,
// unless IgnoreUnknown does. On the command line it is an error, as
// with ssh -o.
//
// # Errors
//
// Errors are one line, without a package prefix (ssh config FILE line N:
// bad Port "x"; bad host name "-x"): callers add their own, as
// internal/bootstrap adds "bootstrap: ".
package sshconfig

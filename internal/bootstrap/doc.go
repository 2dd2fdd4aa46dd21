// Package bootstrap starts a session the way mosh's Perl wrapper does:
// log in over SSH, run the server remotely, read its UDP port and key, and
// hand them to the session client. [Run] does it all and returns a
// [Result]; the SSH connection is closed before Run returns and the server
// has detached.
//
// # How the server is started
//
// By default the SSH client is built in (golang.org/x/crypto/ssh), so no
// system ssh is needed. One exec request runs, through the user's login
// shell, a one-line "sh -c" script that:
//
//  1. prints "MOSH SSH_CONNECTION <client-ip> <client-port> <server-ip> <server-port>"
//     from $SSH_CONNECTION (as mosh's --experimental-remote-ip=remote does);
//  2. for the default server command "gosh server", picks a gosh: the one on
//     PATH if "gosh version" reports this client's Mosh protocol ("mosh
//     protocol 2,"), else the uploaded binary with the SHA-256 the client
//     expects (see below), else prints "GOSH UPLOAD <uname -s> <uname -m>"
//     and a "GOSH HAVE <sha256>" line for each binary uploaded earlier, and
//     exits 0; then prints "GOSH USING <path>";
//  3. execs "<server> new -c <colors> -s -l NAME=VALUE… [-p PORT[:PORT2]] [-- COMMAND…]"
//     (docs/protocol.md section 1.1; -s becomes -i IP or nothing with
//     ServerArgs.Bind).
//
// A custom ServerCommand (e.g. "mosh-server") skips step 2. No pty is
// requested, so the server's stdout and stderr arrive separately: stdout
// lines are matched with connectline.Parse (mosh's regular expression
// ^MOSH CONNECT (\d+?) ([A-Za-z0-9/+]{22})\s*$), the other non-blank
// lines are shown to the user, as is stderr until the CONNECT line; after
// it, the server's banner and "[mosh-server detached, pid = N]" (gosh's
// "[gosh server detached, pid = N, session = ID]") only go to the debug
// log (N becomes [Result.ServerPID], ID [Result.Session]). The client then waits up to
// 5 s for the command to exit, like the wrapper waiting for ssh.
//
// With [Config.SSHCommand] (--ssh=CMD) a system ssh runs instead, as mosh
// runs it: CMD -n -tt [-4|-6] [-p PORT] [user@]host -- 'script', with the
// merged, CR-terminated output parsed the same way. Self-upload is not
// available then.
//
// # Which address gets the UDP traffic
//
// For a direct TCP connection, the peer address the SSH connection
// actually reached (IPv4 or IPv6; [Config.Family] and AddressFamily
// restrict the dial). Through ProxyJump, ProxyCommand or a system ssh, the
// destination's HostName is resolved locally (as mosh's default
// --experimental-remote-ip=proxy does), preferring the server-side address
// of $SSH_CONNECTION if it is among the results, and falling back to that
// address when the name does not resolve locally.
//
// # What it trusts
//
// Host keys are checked against the user's known_hosts files
// (UserKnownHostsFile, default ~/.ssh/known_hosts and known_hosts2) and the
// global ones (/etc/ssh/ssh_known_hosts*), by host name as OpenSSH does with
// its default CheckHostIP=no: "[host]:port" for a non-default port, or
// HostKeyAlias verbatim. Hashed entries and @revoked markers are honoured.
// Host key algorithms are ordered so that types already recorded for the
// host come first; otherwise a server with several key types could show
// one that is not recorded. An unknown key is handled by
// StrictHostKeyChecking: "ask" (default) shows the SHA256 fingerprint and
// accepts "yes" or the fingerprint, "accept-new" and "no" record it, "yes"
// refuses; accepted keys are appended to the first user file (hashed with
// HashKnownHosts yes). A recorded key of the same type that differs, or a
// revoked key, is always refused ([HostKeyMismatchError]) — unlike
// OpenSSH, even with StrictHostKeyChecking=no. A known key of another type
// only is treated as unknown, with a note in the question.
//
// Authentication follows OpenSSH's order: public keys (agent keys first,
// from IdentityAgent or $SSH_AUTH_SOCK; with IdentitiesOnly only those
// matching an IdentityFile; then the IdentityFile keys, default
// ~/.ssh/id_{rsa,ecdsa,ecdsa_sk,ed25519,ed25519_sk}), then
// keyboard-interactive, then password (NumberOfPasswordPrompts tries each).
// Passphrase-protected keys are decrypted only when the server accepts
// their public key. Everything asked goes through [Config.Prompt]
// (normally a [TerminalPrompter] on /dev/tty); with no Prompter or
// BatchMode nothing is asked.
//
// # ssh_config
//
// ~/.ssh/config then /etc/ssh/ssh_config (or only [Config.ConfigFile], like
// ssh -F) are evaluated for the destination as ssh_config(5) says, by
// package internal/sshconfig (resolve.go gives it this machine's files,
// environment and shell): the
// first value obtained wins (IdentityFile accumulates); Host lines match
// the name as typed with * and ? patterns and !negation; Match supports
// all, host, originalhost, user, localuser, final and exec (run through
// the user's shell; localnetwork, tagged and canonical never match);
// Include takes globs, relative to
// ~/.ssh (or /etc/ssh), nested up to 16 deep, and applies conditionally
// inside Host/Match blocks. Used keywords: HostName (%h), User, Port,
// IdentityFile, IdentitiesOnly, IdentityAgent, ProxyJump, ProxyCommand
// (whichever comes first wins), UserKnownHostsFile, GlobalKnownHostsFile,
// StrictHostKeyChecking, HashKnownHosts, HostKeyAlias, ConnectTimeout,
// AddressFamily, BatchMode, PubkeyAuthentication, PasswordAuthentication,
// KbdInteractiveAuthentication, NumberOfPasswordPrompts, and the
// algorithm settings below. Paths take ~,
// ${ENV} and %-tokens (%h %p %r %u %d %n %k %%). The command line's user
// and port override the file's, and so does [Config.SSHPort] (ssh -p).
// [Config.Jump], [Config.Identities] and [Config.SSHOptions] (ssh -J, -i
// and -o) are obtained before the files, so they win (identity files from
// the command line are tried first); like ssh's, they apply to the
// destination and not to its jump hosts. The built-in client names the
// keywords it does not honour, once per run: those that change how hosts
// are checked (CheckHostIP yes, UpdateHostKeys, VerifyHostKeyDNS,
// KnownHostsCommand, RekeyLimit, …) on Stderr, the others in the debug
// log; one set to what the client does anyway (CheckHostIP no) is not
// named, nor are GSSAPIKexAlgorithms and HostbasedAcceptedAlgorithms,
// which are moot without GSSAPI key exchange and host-based
// authentication (Fedora's crypto policy sets them). With a system ssh,
// ssh reads its config itself and gets the command line's settings as -p,
// -J, -i and -o.
//
// # Algorithms
//
// Ciphers, KexAlgorithms, MACs, HostKeyAlgorithms,
// PubkeyAcceptedAlgorithms (or PubkeyAcceptedKeyTypes) and
// CASignatureAlgorithms take ssh_config(5)'s lists: names replace the
// default set, "+names" append to it, "-names" remove from it and
// "^names" put at its head; names may be patterns with * and ?. The
// default set is x/crypto's algorithms without known weaknesses, in its
// order of preference (close to OpenSSH's defaults; with the keyword unset
// x/crypto chooses as before). Names x/crypto does not implement
// (umac-*, sntrup761x25519-sha512, aes256-cbc, …) are skipped, with a
// debug line; a list that leaves none is one error line, as is a server
// that shares no algorithm with the list (naming the keyword, or the
// "+name" that would allow one of the server's). HostKeyAlgorithms keeps
// the known_hosts order (known key types first) when unset or a "+" or
// "-" list, as OpenSSH does. PubkeyAcceptedAlgorithms decides which keys
// are offered and which signature algorithms an RSA key may use, in the
// list's order. A host certificate whose CA signature algorithm
// CASignatureAlgorithms does not allow (default: x/crypto's, which leave
// out ssh-rsa), or that no known CA vouches for, is checked as the plain
// key it certifies. RequiredRSASize (default 1024) refuses smaller RSA
// host keys and does not offer smaller RSA user keys. RevokedHostKeys
// files (public keys one a line, or an OpenSSH KRL from ssh-keygen -k)
// refuse the keys, certificates and CAs they list; one that cannot be read
// refuses every host, as with OpenSSH. ServerAliveInterval and
// ServerAliveCountMax send keepalive@openssh.com after each interval the
// server was silent and close the connection after more than CountMax of
// them in a row (the UDP-blocked relay then re-dials).
//
// # Self-upload and the binary cache
//
// When the remote has no usable gosh, the client uploads one over the same
// SSH connection, with no root needed, into a directory named by the
// binary's SHA-256 (content-addressed: a stale or different build under
// the same version name is never run in its place):
//
//	${XDG_DATA_HOME:-$HOME/.local/share}/gosh/<sha256>/gosh
//
// (directory mode 0700, binary 0755): the file is streamed to
// ".gosh-upload.<pid>" in that directory, its SHA-256 is checked with
// sha256sum, shasum -a 256, sha256 -q or openssl (whichever exists), then
// it is renamed into place; on a mismatch it is removed.
//
// Uploads do not pile up: after each one, the remote keeps it and the
// upload used before it (a start script marks the upload it runs by
// touching its directory) and removes the older ones, but never one used
// or changed within the last hour (a client of another version may be
// about to run it, or still be sending it) nor one that a running
// process was started from (a session's server runs its binary again for
// a relay). Where it cannot tell (no /proc or ps -A, no find -mmin) it
// removes nothing.
//
// The upload travels as a gzip stream (about 40% of the binary: 46 s
// instead of 117 s at 1 Mbps for the 14.6 MB linux/amd64 gosh) when the
// remote's gzip decompresses a probe stream that the start script pipes
// through "gzip -dc" (it then prints "GOSH GZIP"); the upload script runs
// gzip -dc into the same temporary file, so the SHA-256 of the
// uncompressed binary names and checks it as before, and a truncated or
// corrupt stream (gzip fails) leaves nothing behind. Without a working
// gzip the binary is sent as it is. The client compresses while it sends,
// and keeps the stream in the binary cache (see below) as
// gosh-<goos>-<goarch>.<sha256>.gz, one per platform, so that later
// uploads of the same binary are not compressed again; a cached stream
// whose upload fails is dropped.
//
// An upload that lasts more than a second shows its progress on
// [Config.Stderr]: what has arrived of how much, the rate and the time
// left, on one line rewritten in place on a terminal, else on a line
// every 10 s; then how long it took.
//
// The first run of the start script asks for the SHA-256 of this client's
// own binary, so a remote of the same platform with it uploaded starts at
// once; otherwise the client learns the platform (GOSH UPLOAD), whether
// gzip works there (GOSH GZIP) and what is uploaded (GOSH HAVE), uploads
// only if needed, and runs the script again.
//
// The binary uploaded is [Config.RemoteBinary] if set; else, when the
// remote's uname maps to this client's GOOS/GOARCH, the running binary
// ([Config.LocalBinary], default os.Executable); else
// <cache>/gosh-<goos>-<goarch> where <cache> is [Config.BinaryCache] or
// [DefaultBinaryCache] ($GOSH_BINARY_CACHE, else gosh/<version> in
// os.UserCacheDir); else the release's archive for that platform
// ([ArchiveName]), downloaded from [Config.Release] or [ReleaseURL]
// ($GOSH_RELEASE_URL, else the project's release of this version) by the
// system's curl (https only, unless $GOSH_RELEASE_ALLOW_HTTP=1; fetch.go),
// checked against the release's
// checksums.txt once the SSH signature of that is checked with the release
// key built in (sshsig.go, docs/release.md), and cached ([FetchRelease])
// with what vouches for it, to be checked again before each upload.
// Nothing unverified is kept or run; a failure is a [ReleaseError] naming
// the URL.
// "gosh server install" fills the cache ahead of time.
//
// # Errors
//
// Every error is one line starting "bootstrap: ". Callers branch with
// errors.Is on [ErrUnknownHost], [ErrHostKeyMismatch], [ErrAuth],
// [ErrNoConnectLine], [ErrNoBinary], or errors.As on [UnknownHostError],
// [HostKeyMismatchError], [AuthError] (with the methods tried),
// [DialError] (unreachable, refused, timed out, proxy failures),
// [ServerError] (exit status and the remote's stderr) and [NoBinaryError].
//
// [RunCommand] logs in the same way and runs another gosh subcommand on
// the remote (gosh sessions: "gosh server list" and "kill ID"), every
// argument quoted; ServerArgs.Attach runs "gosh server attach ID", which
// prints the CONNECT line of a session taken over.
//
// References: docs/protocol.md sections 1.1–1.7 (server command line, CONNECT
// line, wrapper behaviour); ssh_config(5), ssh(1) and sshd(8) of OpenSSH
// 9.x; RFC 4251–4254 (SSH); the mosh paper (Winstein and Balakrishnan,
// USENIX ATC 2012) for why the bootstrap hands over to UDP.
package bootstrap

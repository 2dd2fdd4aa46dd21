// Package daemon starts and runs gosh's session server, the process behind
// "gosh server new" (a drop-in for "mosh-server new").
//
// [Start] is the starter's side. It works out everything the server needs
// from the options and this process (the program's environment and locale,
// the message of the day, the terminal size, the timeouts in
// MOSH_SERVER_NETWORK_TMOUT and MOSH_SERVER_SIGNAL_TMOUT), re-executes the
// gosh binary as the daemon in a new session without a controlling
// terminal (Go cannot fork), sends it that configuration over a pipe, and
// waits on a second pipe for the daemon's port and key. The caller prints
// the MOSH CONNECT line (package connectline) and returns, detaching from
// the SSH session that ran it.
//
// [Run] is the daemon's side: it reads the configuration, binds the UDP
// port, makes the session key, starts the program in a pseudo-terminal
// (package pty), reports back, installs the process's signal handlers and
// serves the session (package session) until it ends.
//
//	gosh server new ──fork+exec──▶ gosh server daemon
//	     │  fd 3: config (JSON) ──▶   read, bind, key, start program
//	     │  fd 4: ◀── status (JSON)   {port, key} or {error}
//	     ▼                             session.Serve(...)
//	MOSH CONNECT <port> <key>
//
// The configuration never travels in argv or the environment, where other
// users could read the key; see pipe.go for both messages.
//
// Each daemon also serves a control socket (control_unix.go) in a 0700
// directory of the user's, to peers of the same uid only: [ListSessions],
// [AttachSession] and [KillSession] ask it for the session's facts, to
// hand the session over to a new client (a new key, answered on the
// socket and never written down), or to end it (gosh sessions, gosh
// server list/attach/kill).
package daemon

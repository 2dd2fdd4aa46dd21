// Package pty runs a program in a pseudo-terminal. [Program] is the
// session.PTY the server loop, and the benchmarks' in-process servers,
// read, write, resize and finally hang up.
//
// On Unix (Linux, macOS and the BSDs, where gosh's server runs) the program
// is a login shell or a command, a session leader with the terminal as its
// controlling terminal. On Windows it runs in a pseudo console (ConPTY),
// through a helper process (this executable again) that gives it the
// console's own input and output; the benchmarks use it so that a Windows
// machine can run them too.
package pty

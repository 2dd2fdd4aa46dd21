// Package e2etest holds the harness of gosh's end-to-end tests: a private
// tmux server that runs real programs (gosh, mosh-client, mosh-server) in a
// terminal of a given size and reads the rendered screen, and a UDP relay
// on loopback that can delay, drop and re-route a session's datagrams.
//
// It is test infrastructure: it starts processes and goroutines, reads the
// clock and polls screens, which the pure packages never do.
package e2etest

// Package e2etest holds the harness of gosh's end-to-end tests:
//
//   - Tmux: a private tmux server that runs real programs (gosh,
//     mosh-client, mosh-server) in a terminal of a given size and reads the
//     rendered screen;
//   - Term: a pseudo-terminal the test owns, mirrored into a gosh emulator
//     with every read timestamped, for timing what appears on screen;
//   - Typist: a Term that types a workload with a typist's timing and keeps
//     every screen state, and MeasureTyping, which scores speculative echo
//     against reference screens (how soon each keystroke showed, and
//     whether a wrong character ever did);
//   - Relay: a UDP relay on loopback that can delay, drop and re-route a
//     session's datagrams;
//   - StartServer: a detached gosh server or mosh-server, killed when the
//     test ends;
//   - StartSSHD: a real OpenSSH sshd on loopback, for gosh connect's SSH
//     bootstrap;
//   - Forger: SSP datagrams sealed with a session key, as a peer that holds
//     the key (a compromised one) would send them.
//
// The end-to-end tests of speculative echo live here too (typing_test.go).
//
// It is test infrastructure: it starts processes and goroutines, reads the
// clock and polls screens, which the pure packages never do.
package e2etest

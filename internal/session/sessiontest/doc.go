// Package sessiontest provides in-memory doubles for what the session loops
// touch, so tests can run the real loops in process (under
// testing/synctest, in virtual time):
//
//   - [Terminal] is the user's terminal: keys typed by the test reach the
//     client, and what the client paints is rendered by a vt emulator the
//     test reads back ([Terminal.Screen]).
//   - [PTY] is the program's terminal, with a small scripted shell behind
//     it ([NewShell]): it echoes what is typed, runs a few commands (echo,
//     size, seq, cat, exit) and records everything it was sent.
//   - [Replay] is the program's terminal with a real program's recorded
//     output behind it ([Transcript]): each key typed makes it write what
//     the program wrote after that key.
//   - [Flood] is the program's terminal with a shell whose one command
//     floods it as fast as it is read, until a Ctrl-C (seq).
//
// [Terminal] can also record every state of its screen with its time
// ([Terminal.Record]), for keystroke-latency measurements, and stand for
// a terminal that answers no queries ([Terminal.Mute]) and has no
// alternate screen ([Terminal.IgnoreAltScreen]).
//
// Together with ssptest.Network they replace the user, the program and
// the network.
package sessiontest

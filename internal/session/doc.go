// Package session runs the two ends of a gosh session: the client loop,
// between the user's terminal and the server, and the server loop,
// between the server and the program in its pseudo-terminal. Each loop is
// the one goroutine that owns its session's state: the ssp.Transport, the
// vt emulator or display, the predict engine and the loop's one timer
// (docs/architecture.md, "The session loops").
//
// The loops do no I/O of their own choosing. Everything they touch comes
// in through their configuration:
//
//   - the datagram socket, an *ssp.Conn (real UDP, or ssptest's in-memory
//     network in tests);
//   - the user's terminal, a [Terminal] (internal/tty in the binary);
//   - the program's pseudo-terminal, a [PTY] (internal/pty in the binary);
//   - process signals, a channel of [Signal] that the caller fills
//     (cmd/gosh for the client, internal/daemon for the server);
//   - the clock, read with time.Now and time.Timer, which
//     testing/synctest replaces with virtual time.
//
// So the tests run the real loops in process over a lossy in-memory
// network in virtual time (the rig is rig_test.go; session_test.go,
// campaign_test.go and handover_test.go drive it): typing, resizing,
// roaming, outages, takeovers and every timeout, with no goroutine left
// behind. Process-wide effects live with the callers: internal/daemon
// detaches the server and installs its signal handlers; cmd/gosh does the
// client's.
//
// The rest of the package is small pure pieces the loops use, each with a
// table test: the notification bar (notify.go), the escape key
// (escape.go), the cursor-key translation of the server (keytrans.go), the
// echo ack timer (echoack.go) and the gosh↔gosh capabilities (caps.go).
package session

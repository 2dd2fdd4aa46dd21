package session

// MemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit)
// that the processes running a session set where they start (cmd/gosh
// for the client, internal/daemon for the server), unless GOMEMLIMIT
// says otherwise. The budgets bound what a peer, even a hostile one, can
// make a session hold (the receiver's and the sender's states, 40 MiB
// each, docs/protocol.md section 1.6; the logs of 12.2 and 12.3); the
// limit makes the collector work harder as the heap nears it, so that
// garbage does not double those figures. It is soft: a session that
// needs more gets it, at the cost of collections.
const MemoryLimit = 64 << 20

package predict

import "time"

// Link is what the session's transport knows that the engine needs. The
// session loop samples it whenever it calls [Engine.NewUserInput] or
// [Engine.Cull] and passes the current values to both; the engine keeps
// the newest Link it was given (for [Engine.Reset], and for
// [Engine.NewUserInput]'s own judging).
type Link struct {
	// SendInterval is the transport's current frame interval (ssp
	// Transport.SendInterval), clamp(SRTT/2, 20 ms, 250 ms). It decides
	// whether predictions are shown and underlined. Zero means unknown:
	// the engine keeps the last one given, initially 250 ms (the
	// slowest, as for a fresh Mosh client).
	SendInterval time.Duration

	// Sent is the number of the newest client state sent (ssp
	// Transport.SentStateLast). Keys typed now travel in a later state,
	// Sent+1 at the earliest.
	Sent uint64

	// Acked is the newest client state the server acknowledged receiving
	// (ssp Transport.SentStateAcked). The screen that came with it may
	// already show the effect of the keys in that state.
	Acked uint64

	// EchoAck is the echo ack of the newest server state
	// (statesync.Complete.EchoAck): every key in client states up to it has had
	// time to be echoed, so predictions for them can be judged.
	EchoAck uint64
}

// setLink records l as the newest Link.
func (e *Engine) setLink(l Link) {
	if l.SendInterval <= 0 {
		l.SendInterval = e.link.SendInterval
	}
	e.link = l
}

package session

import (
	"context"
	"time"

	"github.com/gosh-term/gosh/internal/enum"
	"github.com/gosh-term/gosh/internal/ssp"
)

// TransportMode says how the client reaches the server (gosh connect
// --transport).
type TransportMode int

// The transport modes.
const (
	// TransportAuto sends over UDP, and carries the datagrams over the
	// relay (ClientConfig.DialRelay) while nothing arrives over UDP:
	// fallbackAfter after the start, udpLostAfter later in the session.
	// While relayed it probes UDP and moves back when UDP answers.
	TransportAuto TransportMode = iota
	// TransportUDP never uses the relay.
	TransportUDP
	// TransportTCP always uses the relay (over SSH, hence TCP).
	TransportTCP
)

var transportNames = enum.Names[TransportMode]{
	List: []string{TransportAuto: "auto", TransportUDP: "udp", TransportTCP: "tcp"},
	Type: "transport",
	Bad:  "unknown transport %[1]q: want one of %[2]s",
}

// String names the mode as --transport takes it.
func (m TransportMode) String() string { return transportNames.String(m) }

// Set parses a --transport value (pflag.Value).
func (m *TransportMode) Set(s string) error { return transportNames.Set(m, s) }

// Type names the flag's value type (pflag.Value).
func (m *TransportMode) Type() string { return transportNames.Type }

// Relay is a path that carries the session's datagrams over a stream
// when UDP is blocked: internal/relay's Conn over an SSH channel to
// "gosh server relay" on the server's host.
type Relay = ssp.Relay

// The fallback's timing.
const (
	// fallbackAfter: with nothing from the server over UDP this long
	// after the start, the relay is dialled. The server answers the
	// client's first datagram at once, so a few seconds is plenty.
	fallbackAfter = 3 * time.Second
	// udpLostAfter: later in a session, the server's heartbeats come
	// every ssp.AckInterval (3 s); two missed, the relay is dialled.
	udpLostAfter = 2*ssp.AckInterval + time.Second
	// While relayed, the client probes UDP: for probeWindow every
	// datagram goes over UDP as well as the relay, UDP first. When UDP
	// works, the server takes the UDP copy (the relay's is a duplicate)
	// and answers over UDP within the window (its heartbeats come every
	// ssp.AckInterval), and the client moves back. A window starts when
	// the relay comes up and then every probeGap, doubling from
	// probeEvery to probeMaxGap while UDP stays silent: if UDP works
	// only towards the server, the server's answers are lost during a
	// window, and the windows get rarer.
	probeWindow = ssp.AckInterval + time.Second
	probeEvery  = 10 * time.Second
	probeMaxGap = 80 * time.Second
	// relayDeadAfter: while relayed, with nothing from the server for
	// this long the relay is taken for dead (an SSH connection whose
	// network went away can take minutes to fail on its own) and closed,
	// to be dialled again.
	relayDeadAfter = udpLostAfter
	// redialMin and redialMax bound the wait before dialling the relay
	// again after a failure (doubling).
	redialMin = time.Second
	redialMax = 30 * time.Second
)

// fallback decides which path the client sends on (TransportMode): a
// pure core, driven by the client loop with the time.
//
// fallback is not safe for concurrent use.
type fallback struct {
	mode    TransportMode
	canDial bool // there is a relay to dial

	heardUDP   bool      // something authentic ever came over UDP
	lastUDP    time.Time // when it last did (the start before)
	lastAny    time.Time // when anything authentic last came, or the relay came up
	relayUp    bool
	dialing    bool
	nextDial   time.Time
	backoff    time.Duration
	probeStart time.Time // the start of the last probe window; zero for none yet
	probeGap   time.Duration
}

func newFallback(mode TransportMode, canDial bool, start time.Time) *fallback {
	return &fallback{mode: mode, canDial: canDial && mode != TransportUDP, lastUDP: start,
		backoff: redialMin, probeGap: probeEvery}
}

// wantRelay reports whether the datagrams should go over the relay.
func (f *fallback) wantRelay(now time.Time) bool {
	switch {
	case !f.canDial:
		return false
	case f.mode == TransportTCP:
		return true
	case f.heardUDP:
		return now.Sub(f.lastUDP) >= udpLostAfter
	default:
		return now.Sub(f.lastUDP) >= fallbackAfter
	}
}

// udp records an authentic datagram that came over UDP at now.
func (f *fallback) udp(now time.Time) {
	f.heardUDP, f.lastUDP, f.lastAny = true, now, now
	f.probeStart, f.probeGap = time.Time{}, probeEvery
}

// relayHeard records an authentic datagram that came over the relay at
// now.
func (f *fallback) relayHeard(now time.Time) { f.lastAny, f.backoff = now, redialMin }

// relayDead reports whether the relay in use has brought nothing for
// relayDeadAfter: the caller closes it.
func (f *fallback) relayDead(now time.Time) bool {
	return f.relayed(now) && now.Sub(f.lastAny) >= relayDeadAfter
}

// dial reports whether to start dialling the relay at now (and counts
// it as started).
func (f *fallback) dial(now time.Time) bool {
	if f.relayUp || f.dialing || !f.wantRelay(now) || now.Before(f.nextDial) {
		return false
	}
	f.dialing = true
	return true
}

// dialed records the end of a dial at now.
func (f *fallback) dialed(ok bool, now time.Time) {
	f.dialing = false
	f.relayUp = ok
	if ok {
		// The back-off is reset by the relay's first datagram: a relay
		// that comes up and fails at once (no gosh on the remote) is
		// dialled ever more rarely.
		f.probeStart, f.probeGap = time.Time{}, probeEvery
		f.lastAny = now
		return
	}
	f.nextDial = now.Add(f.backoff)
	f.backoff = min(2*f.backoff, redialMax)
}

// down records at now that the relay's stream ended.
func (f *fallback) down(now time.Time) {
	f.relayUp = false
	f.nextDial = now.Add(f.backoff)
	f.backoff = min(2*f.backoff, redialMax)
}

// path returns where to send at now: the relay while it is wanted and
// up, with a UDP probe every probeEvery in auto mode.
func (f *fallback) path(now time.Time) ssp.Path {
	switch {
	case f.mode == TransportTCP && f.canDial:
		return ssp.PathRelay // nothing over UDP, even before the relay is up
	case !f.relayUp || !f.wantRelay(now):
		return ssp.PathUDP
	}
	if f.mode == TransportAuto && (f.probing(now) || f.probeDue(now)) {
		return ssp.PathBoth
	}
	return ssp.PathRelay
}

// probing reports whether a probe window is open at now.
func (f *fallback) probing(now time.Time) bool {
	return !f.probeStart.IsZero() && now.Sub(f.probeStart) < probeWindow
}

// probeDue reports whether the next probe window may open at now.
func (f *fallback) probeDue(now time.Time) bool {
	return f.probeStart.IsZero() || now.Sub(f.probeStart) >= f.probeGap
}

// sent records that datagrams went out at now on path p: the first
// opens a probe window.
func (f *fallback) sent(p ssp.Path, now time.Time) {
	if p != ssp.PathBoth || f.probing(now) {
		return
	}
	if !f.probeStart.IsZero() { // the last window heard nothing over UDP
		f.probeGap = min(2*f.probeGap, probeMaxGap)
	}
	f.probeStart = now
}

// relayed reports whether the datagrams go over the relay at now.
func (f *fallback) relayed(now time.Time) bool { return f.relayUp && f.wantRelay(now) }

// deadline returns when the decisions may next change without an event,
// or the zero time.
func (f *fallback) deadline(now time.Time) time.Time {
	if !f.canDial {
		return time.Time{}
	}
	var d time.Time
	earliest := func(t time.Time) {
		if t.After(now) && (d.IsZero() || t.Before(d)) {
			d = t
		}
	}
	switch {
	case !f.wantRelay(now) && f.heardUDP:
		earliest(f.lastUDP.Add(udpLostAfter))
	case !f.wantRelay(now):
		earliest(f.lastUDP.Add(fallbackAfter))
	case !f.relayUp && !f.dialing:
		earliest(f.nextDial)
	case f.relayUp && f.mode == TransportAuto && !f.probeStart.IsZero():
		earliest(f.probeStart.Add(probeWindow))
		earliest(f.probeStart.Add(f.probeGap))
	}
	if f.relayed(now) {
		earliest(f.lastAny.Add(relayDeadAfter))
	}
	return d
}

// dialRelay dials the relay in the background and delivers the result on
// ch (exactly one value). The dial may ask the user (a password) through
// ask; it is bounded by relayDialTimeout.
func dialRelay(ctx context.Context, dial func(context.Context, Asker) (Relay, error), ask Asker, ch chan<- relayResult) {
	go func() {
		ctx, cancel := context.WithTimeout(ctx, relayDialTimeout)
		defer cancel()
		r, err := dial(ctx, ask)
		ch <- relayResult{r, err}
	}()
}

// relayDialTimeout bounds one dial of the relay (an SSH login, with the
// user's answers if it asks).
const relayDialTimeout = 2 * time.Minute

// relayResult is the outcome of one dial.
type relayResult struct {
	relay Relay
	err   error
}

// relayDialed takes the outcome of a dial of the relay.
func (c *client) relayDialed(now time.Time, r relayResult) {
	if r.err != nil {
		c.fb.dialed(false, now)
		c.logf.Printf("relay: %v", r.err)
		c.notify.Set("No UDP; relay over SSH failed: "+r.err.Error(), false, errorMessageLife, now)
		return
	}
	if c.tr.ShutdownInProgress() && c.tr.ShutdownAcknowledged() {
		c.fb.dialed(false, now)
		r.relay.Close()
		return
	}
	c.fb.dialed(true, now)
	c.relay, c.relayDone = r.relay, r.relay.Done()
	c.conn.SetRelay(r.relay)
	c.tr.Probe(now) // send at once: the retransmission timer may have backed off
	c.logf.Printf("relay up: datagrams go over SSH while UDP is blocked")
	if c.fb.relayed(now) {
		c.notify.Set("No reply over UDP; carrying the session over SSH.", false, errorMessageLife, now)
	}
}

// relayEnded handles the end of the relay's stream: it is dialled again
// if still wanted.
func (c *client) relayEnded(now time.Time) {
	err := c.relay.Err()
	c.logf.Printf("relay ended: %v", err)
	if err != nil && c.fb.wantRelay(now) {
		c.notify.Set("The relay over SSH ended: "+err.Error(), false, errorMessageLife, now)
	}
	c.fb.down(now)
	c.conn.SetRelay(nil)
	c.relay, c.relayDone = nil, nil
}

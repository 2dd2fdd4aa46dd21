package session

import (
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/ssp"
)

var fbStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func TestFallbackAutoFromStart(t *testing.T) {
	f := newFallback(TransportAuto, true, fbStart)
	at := func(d time.Duration) time.Time { return fbStart.Add(d) }
	if f.dial(at(fallbackAfter-time.Millisecond)) || f.path(at(time.Second)) != ssp.PathUDP {
		t.Fatal("dialled, or left UDP, before fallbackAfter")
	}
	if got := f.deadline(at(time.Second)); !got.Equal(at(fallbackAfter)) {
		t.Errorf("deadline %v, want fallbackAfter %v", got.Sub(fbStart), fallbackAfter)
	}
	if !f.dial(at(fallbackAfter)) || f.dial(at(fallbackAfter)) {
		t.Fatal("want exactly one dial at fallbackAfter")
	}
	if f.path(at(fallbackAfter)) != ssp.PathUDP {
		t.Error("left UDP before the relay was up")
	}
	f.dialed(false, at(4*time.Second))
	if f.dial(at(4*time.Second + redialMin - time.Millisecond)) {
		t.Error("dialled again before the back-off")
	}
	if got := f.deadline(at(4 * time.Second)); !got.Equal(at(4*time.Second + redialMin)) {
		t.Errorf("deadline %v, want the redial at %v", got.Sub(fbStart), 4*time.Second+redialMin)
	}
	if !f.dial(at(4*time.Second + redialMin)) {
		t.Fatal("no redial after the back-off")
	}
	now := at(6 * time.Second)
	f.dialed(true, now)
	if p := f.path(now); p != ssp.PathBoth {
		t.Errorf("first path on the relay %v, want a UDP probe with it", p)
	}
	f.sent(ssp.PathBoth, now)
	if p := f.path(now.Add(probeWindow - time.Millisecond)); p != ssp.PathBoth {
		t.Errorf("path inside the probe window %v, want UDP with the relay", p)
	}
	if p := f.path(now.Add(probeWindow)); p != ssp.PathRelay {
		t.Errorf("path after the probe window %v, want the relay", p)
	}
	if got, want := f.deadline(now.Add(probeWindow)), min(probeEvery, relayDeadAfter); !got.Equal(now.Add(want)) {
		t.Errorf("deadline after the window %v, want the next probe or the relay's silence check at %v", got.Sub(now), want)
	}
	f.relayHeard(now.Add(probeWindow))
	if got := f.deadline(now.Add(probeWindow)); !got.Equal(now.Add(probeEvery)) {
		t.Errorf("deadline after the window, the relay heard %v, want the next probe at %v", got.Sub(now), probeEvery)
	}
	if p := f.path(now.Add(probeEvery)); p != ssp.PathBoth {
		t.Errorf("path probeEvery after a probe %v, want another probe", p)
	}
	f.sent(ssp.PathBoth, now.Add(probeEvery)) // the last window heard nothing: the gap doubles
	if p := f.path(now.Add(2 * probeEvery)); p != ssp.PathRelay {
		t.Errorf("path probeEvery after a silent window's successor %v, want the relay (gap doubled)", p)
	}
	if p := f.path(now.Add(3 * probeEvery)); p != ssp.PathBoth {
		t.Errorf("path twice probeEvery after it %v, want a probe", p)
	}
	if !f.relayed(now) {
		t.Error("relayed = false on the relay")
	}
	// UDP answers: back to it at once; the relay stays up, unused.
	f.udp(now.Add(time.Second))
	if p := f.path(now.Add(time.Second)); p != ssp.PathUDP {
		t.Errorf("path after a datagram over UDP %v, want UDP", p)
	}
	// UDP falls silent again: the relay, still up, is used after udpLostAfter.
	later := now.Add(time.Second + udpLostAfter)
	if p := f.path(later.Add(-time.Millisecond)); p != ssp.PathUDP {
		t.Errorf("path before udpLostAfter %v, want UDP", p)
	}
	if f.dial(later) {
		t.Error("dialled with the relay up")
	}
	if p := f.path(later); p == ssp.PathUDP {
		t.Error("path after udpLostAfter without UDP: still UDP")
	}
	// The relay breaks: dialled again after the back-off, UDP meanwhile.
	f.down(later)
	if p := f.path(later); p != ssp.PathUDP {
		t.Errorf("path with the relay down %v, want UDP", p)
	}
	if f.dial(later) || !f.dial(later.Add(redialMax)) {
		t.Error("want the redial after the back-off, not at once")
	}
}

func TestFallbackModes(t *testing.T) {
	udp := newFallback(TransportUDP, true, fbStart)
	if udp.dial(fbStart.Add(time.Hour)) || udp.path(fbStart.Add(time.Hour)) != ssp.PathUDP || !udp.deadline(fbStart).IsZero() {
		t.Error("--transport=udp dials or leaves UDP")
	}
	none := newFallback(TransportAuto, false, fbStart)
	if none.dial(fbStart.Add(time.Hour)) || none.path(fbStart.Add(time.Hour)) != ssp.PathUDP {
		t.Error("no relay to dial, yet dialled or left UDP")
	}
	tcp := newFallback(TransportTCP, true, fbStart)
	if !tcp.dial(fbStart) {
		t.Error("--transport=tcp does not dial at once")
	}
	if p := tcp.path(fbStart); p != ssp.PathRelay {
		t.Errorf("--transport=tcp path before the relay is up %v, want the relay (nothing over UDP)", p)
	}
	tcp.dialed(true, fbStart)
	tcp.udp(fbStart.Add(time.Second))
	if p := tcp.path(fbStart.Add(time.Minute)); p != ssp.PathRelay {
		t.Errorf("--transport=tcp path %v, want the relay and no probes", p)
	}
}

func TestTransportModeFlag(t *testing.T) {
	for _, m := range []TransportMode{TransportAuto, TransportUDP, TransportTCP} {
		var got TransportMode
		if err := got.Set(m.String()); err != nil || got != m {
			t.Errorf("Set(%q) = %v, %v", m.String(), got, err)
		}
	}
	var m TransportMode
	if err := m.Set("quic"); err == nil {
		t.Error("Set(quic) did not fail")
	}
}

func TestFallbackRelayDead(t *testing.T) {
	f := newFallback(TransportTCP, true, fbStart)
	f.dial(fbStart)
	f.dialed(true, fbStart)
	if f.relayDead(fbStart.Add(relayDeadAfter - time.Millisecond)) {
		t.Error("relay dead before relayDeadAfter")
	}
	if got := f.deadline(fbStart); !got.Equal(fbStart.Add(relayDeadAfter)) {
		t.Errorf("deadline %v, want relayDeadAfter %v", got.Sub(fbStart), relayDeadAfter)
	}
	f.relayHeard(fbStart.Add(5 * time.Second))
	if f.relayDead(fbStart.Add(relayDeadAfter)) {
		t.Error("relay dead though it brought a datagram")
	}
	if !f.relayDead(fbStart.Add(5*time.Second + relayDeadAfter)) {
		t.Error("relay silent for relayDeadAfter, not dead")
	}
}

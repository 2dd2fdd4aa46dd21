package ssp_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/ssp"
)

// sent is one datagram a transport sent, decoded.
type sent struct {
	at       time.Time
	toSrv    bool
	in       ssp.Instruction
	interval time.Duration // the sender's send interval at that moment
}

// recordSends decodes every datagram of s into a log.
func recordSends(t *testing.T, s *sim) *[]sent {
	var log []sent
	s.onSend = func(toSrv bool, at time.Time, d []byte) {
		_, in := decode(t, s.key, d)
		tr := s.server
		if toSrv {
			tr = s.client
		}
		log = append(log, sent{at: at, toSrv: toSrv, in: in, interval: tr.SendInterval()})
	}
	return &log
}

// sendsAfter returns the datagrams of one direction sent at or after t.
func sendsAfter(log []sent, toSrv bool, t time.Time) []sent {
	var out []sent
	for _, s := range log {
		if s.toSrv == toSrv && !s.at.Before(t) {
			out = append(out, s)
		}
	}
	return out
}

var lan = linkModel{delay: 15 * time.Millisecond} // 30 ms RTT, no loss

// TestTimingFirstFrame: with Mosh's pacing, a change of the server's
// state goes out ServerSendMinDelay (8 ms) later when the frame interval
// has passed, and a client's change ClientSendMinDelay (1 ms) later; with
// gosh's, on an idle path, at once on both.
func TestTimingFirstFrame(t *testing.T) {
	for _, pc := range []struct {
		pacing         ssp.Pacing
		server, client time.Duration
	}{
		{ssp.PacingMosh, ssp.ServerSendMinDelay, ssp.ClientSendMinDelay},
		{ssp.PacingGosh, 0, 0},
	} {
		s := newSim(t, 1, lan, lan, ssp.Config{Pacing: pc.pacing})
		log := recordSends(t, s)
		s.run(5 * time.Second)
		for _, tc := range []struct {
			name  string
			tr    *ssp.Transport[*logState, *logState]
			toSrv bool
			want  time.Duration
		}{
			{"server", s.server, false, pc.server},
			{"client", s.client, true, pc.client},
		} {
			s.run(700 * time.Millisecond)
			change := s.now
			tc.tr.Current().Append([]byte("x"))
			s.run(500 * time.Millisecond)
			after := sendsAfter(*log, tc.toSrv, change)
			if len(after) == 0 || len(after[0].in.Diff) == 0 {
				t.Fatalf("%v %s: no frame after the change: %+v", pc.pacing, tc.name, after)
			}
			if got := after[0].at.Sub(change); got != tc.want {
				t.Errorf("%v %s: first frame %v after the change, want %v", pc.pacing, tc.name, got, tc.want)
			}
		}
	}
}

// TestTimingFrameRate: with the server's state changing every
// millisecond (a flood), the states in between are skipped. With Mosh's
// pacing its frames are at least one send interval apart and come at about
// that rate. With gosh's, on a path without a queue, they start at Mosh's
// rate and come every SendIntervalMin within a few round trips.
func TestTimingFrameRate(t *testing.T) {
	for _, delay := range []time.Duration{5 * time.Millisecond, 40 * time.Millisecond, 200 * time.Millisecond} {
		var moshFrames int
		for _, pacing := range []ssp.Pacing{ssp.PacingMosh, ssp.PacingGosh} {
			m := linkModel{delay: delay}
			s := newSim(t, 2, m, m, ssp.Config{Pacing: pacing})
			log := recordSends(t, s)
			s.run(5 * time.Second) // settle the RTT
			start := s.now
			for range 2000 {
				s.server.Current().Append([]byte("o"))
				s.run(time.Millisecond)
			}
			frames := sendsAfter(*log, false, start)
			first := 1
			if pacing == ssp.PacingGosh {
				first = ssp.PaceQuickFrames // a run's first frames leave at once
			}
			for i := first; i < len(frames); i++ {
				gap := frames[i].at.Sub(frames[i-1].at)
				if pacing == ssp.PacingMosh && gap < frames[i].interval || gap < ssp.SendIntervalMin {
					t.Fatalf("%v, delay %v: frames %d and %d %v apart, send interval %v", pacing, delay, i-1, i, gap, frames[i].interval)
				}
			}
			interval := s.server.SendInterval()
			switch pacing {
			case ssp.PacingMosh:
				moshFrames = len(frames)
				if want := int(2*time.Second/interval) * 9 / 10; len(frames) < want {
					t.Errorf("mosh, delay %v: %d frames in 2 s at interval %v, want at least %d", delay, len(frames), interval, want)
				}
			case ssp.PacingGosh:
				last := frames[len(frames)-1].at.Sub(frames[len(frames)-2].at)
				if len(frames) < moshFrames || last > ssp.SendIntervalMin+ssp.ServerSendMinDelay {
					t.Errorf("gosh, delay %v: %d frames in 2 s (Mosh's pacing %d), the last %v apart, want SendIntervalMin", delay, len(frames), moshFrames, last)
				}
			}
			t.Logf("%v, one-way delay %v: SRTT %v, send interval %v, %d frames in 2 s", pacing, delay, s.server.SRTT(), interval, len(frames))
		}
	}
}

// TestTimingTypist: a typist's keystrokes 150 ms apart over a 500 ms round
// trip. With gosh's pacing every keystroke leaves at once and its echo as
// soon as it arrives (1 ms later); with Mosh's, both wait for their frame
// intervals. Keys typed 5 ms apart share frames under both.
func TestTimingTypist(t *testing.T) {
	m := linkModel{delay: 250 * time.Millisecond}
	for _, pacing := range []ssp.Pacing{ssp.PacingGosh, ssp.PacingMosh} {
		s := newSim(t, 6, m, m, ssp.Config{Pacing: pacing})
		log := recordSends(t, s)
		s.run(10 * time.Second) // settle the RTT
		var waits []time.Duration
		for range 20 {
			s.client.Current().Append([]byte("k"))
			typed := s.now
			s.run(150 * time.Millisecond)
			if after := sendsAfter(*log, true, typed); len(after) > 0 {
				waits = append(waits, after[0].at.Sub(typed))
			}
		}
		worst := slices.Max(waits)
		switch {
		case pacing == ssp.PacingGosh && worst != 0:
			t.Errorf("gosh: a keystroke waited %v to leave, want none (waits %v)", worst, waits)
		case pacing == ssp.PacingMosh && worst < 50*time.Millisecond:
			t.Errorf("mosh: keystrokes waited at most %v, want Mosh's frame interval (waits %v)", worst, waits)
		}
		s.run(2 * time.Second)
		burst := s.now
		for range 10 { // a burst: 10 keys 5 ms apart
			s.client.Current().Append([]byte("b"))
			s.run(5 * time.Millisecond)
		}
		s.run(time.Second)
		if n := len(sendsAfter(*log, true, burst)); n > 6 {
			t.Errorf("%v: a burst of 10 keys 5 ms apart took %d datagrams, want them to share", pacing, n)
		}
	}
}

// TestTimingDelayedAck: a data instruction is acked within ACK_DELAY
// even when the receiver has nothing to say; an empty one is not acked
// before the heartbeat.
func TestTimingDelayedAck(t *testing.T) {
	s := newSim(t, 3, lan, lan, ssp.Config{})
	log := recordSends(t, s)
	s.run(5 * time.Second)
	s.client.Current().Append([]byte("k"))
	s.run(5 * time.Millisecond) // the frame leaves after 1 ms
	var data sent
	for _, x := range sendsAfter(*log, true, s.now.Add(-5*time.Millisecond)) {
		if len(x.in.Diff) > 0 {
			data = x
		}
	}
	if data.at.IsZero() {
		t.Fatal("the client sent no data")
	}
	arrival := data.at.Add(lan.delay)
	s.run(time.Second)
	var ack sent
	for _, x := range sendsAfter(*log, false, arrival) {
		if x.in.AckNum >= data.in.NewNum {
			ack = x
			break
		}
	}
	if ack.at.IsZero() || ack.at.Sub(arrival) > ssp.AckDelay || len(ack.in.Diff) != 0 {
		t.Errorf("ack of state %d: %+v, %v after arrival; want an empty ack within %v", data.in.NewNum, ack.in, ack.at.Sub(arrival), ssp.AckDelay)
	}
}

// TestTimingHeartbeat: an idle session sends one empty instruction with
// a new state number every ACK_INTERVAL in each direction.
func TestTimingHeartbeat(t *testing.T) {
	s := newSim(t, 4, lan, lan, ssp.Config{})
	log := recordSends(t, s)
	s.run(10 * time.Second)
	start := s.now
	s.run(30 * time.Second)
	for _, toSrv := range []bool{true, false} {
		beats := sendsAfter(*log, toSrv, start)
		if len(beats) < 9 || len(beats) > 11 {
			t.Fatalf("toSrv=%v: %d datagrams in 30 idle seconds, want about 10", toSrv, len(beats))
		}
		for i := 1; i < len(beats); i++ {
			gap := beats[i].at.Sub(beats[i-1].at)
			if gap != ssp.AckInterval || len(beats[i].in.Diff) != 0 || beats[i].in.NewNum != beats[i-1].in.NewNum+1 {
				t.Errorf("toSrv=%v: heartbeat %+v %v after the previous one; want an empty new state every %v", toSrv, beats[i].in, gap, ssp.AckInterval)
			}
		}
	}
}

// TestTimingTimestamps: replies reflect the peer's timestamp advanced by
// the hold time, at most once, so the RTT estimate matches the path.
func TestTimingTimestamps(t *testing.T) {
	m := linkModel{delay: 50 * time.Millisecond}
	s := newSim(t, 5, m, m, ssp.Config{})
	var replies, stamps int
	s.onSend = func(toSrv bool, at time.Time, d []byte) {
		p, _ := decode(t, s.key, d)
		stamps++
		if p.TimestampReply != ssp.NoTimestamp {
			replies++
		}
		if p.Timestamp == ssp.NoTimestamp {
			t.Errorf("sent the 'none' timestamp")
		}
	}
	for range 50 {
		s.client.Current().Append([]byte("a"))
		s.server.Current().Append([]byte("b"))
		s.run(300 * time.Millisecond)
	}
	for _, tr := range []*ssp.Transport[*logState, *logState]{s.client, s.server} {
		if srtt := tr.SRTT(); srtt < 99*time.Millisecond || srtt > 101*time.Millisecond {
			t.Errorf("SRTT %v over a 100 ms round trip", srtt)
		}
	}
	if replies == 0 || replies >= stamps {
		t.Errorf("%d replies in %d datagrams: want some, and not every datagram", replies, stamps)
	}
}

// TestTimingProbe: on an idle session, Probe makes the next Tick send at
// once instead of at the next heartbeat, without changing what is sent
// (an empty new state, as a heartbeat would be).
func TestTimingProbe(t *testing.T) {
	s := newSim(t, 5, lan, lan, ssp.Config{})
	log := recordSends(t, s)
	s.run(10 * time.Second)
	s.run(ssp.AckInterval / 2) // halfway between two heartbeats
	at := s.now
	s.client.Probe(at)
	s.run(time.Millisecond)
	got := sendsAfter(*log, true, at)
	if len(got) != 1 || !got[0].at.Equal(at) || len(got[0].in.Diff) != 0 {
		t.Fatalf("after Probe at %v the client sent %+v; want one empty state at once", at, got)
	}
	if next := s.client.NextDeadline(); next.Sub(at) != ssp.AckInterval {
		t.Errorf("the next heartbeat is %v after the probe, want %v", next.Sub(at), ssp.AckInterval)
	}
}

// TestTimingLossRedundancy: over 29 % loss each way (the Mosh paper's
// 50 % round-trip loss), a keystroke and its echo both arrive on the
// first try half the time. With gosh's pacing, which sees the loss in the
// peer's datagrams and sends a small frame twice on an idle path, most
// keystrokes are echoed within a round trip; with Mosh's, about half. On
// a lossless path nothing is sent twice.
func TestTimingLossRedundancy(t *testing.T) {
	const keys = 200
	rtt := 100 * time.Millisecond
	within := map[ssp.Pacing]int{}
	for _, pacing := range []ssp.Pacing{ssp.PacingGosh, ssp.PacingMosh} {
		for _, loss := range []float64{0, 0.293} {
			m := linkModel{delay: rtt / 2, loss: loss}
			s := newSim(t, 9, m, m, ssp.Config{Pacing: pacing})
			s.run(5 * time.Second)
			fast := 0
			for i := range keys {
				s.client.Current().Append([]byte{'k'})
				typed, want := s.now, s.client.Current().End()
				echoed := false
				ok := s.runUntil(s.now.Add(10*time.Second), func() bool {
					if !echoed && s.server.Remote().End() >= want {
						echoed = true
						s.server.Current().Append([]byte{'e'})
						s.tickAll() // the change's deadline
					}
					return s.client.Remote().End() > uint64(i)
				})
				if !ok {
					t.Fatalf("%v, loss %v: key %d not echoed within 10 s", pacing, loss, i)
				}
				if s.now.Sub(typed) <= rtt+10*time.Millisecond {
					fast++
				}
				s.run(300 * time.Millisecond)
			}
			redundant := s.client.Stats().Redundant + s.server.Stats().Redundant
			t.Logf("%v, loss %v each way: %d of %d keys echoed within a round trip; %d datagrams sent twice", pacing, loss, fast, keys, redundant)
			switch {
			case loss == 0 && redundant != 0:
				t.Errorf("%v: %d datagrams sent twice over a lossless path", pacing, redundant)
			case loss == 0 && fast != keys:
				t.Errorf("%v: %d of %d keys echoed within a round trip over a lossless path", pacing, fast, keys)
			case loss > 0:
				within[pacing] = fast
			}
		}
	}
	if within[ssp.PacingGosh] < keys*3/4 || within[ssp.PacingMosh] > keys*2/3 {
		t.Errorf("keys echoed within a round trip over 29 %% loss: gosh's pacing %d, Mosh's %d of %d; want at least 3/4 and at most 2/3", within[ssp.PacingGosh], within[ssp.PacingMosh], keys)
	}
}

// TestTimingCommandOutput: Enter's echo, then the command's output 3 ms
// later (the program starting), then more output 2 ms after that. With
// gosh's pacing the echo leaves at once and the first output as soon as
// it appears, without waiting a frame interval; the next output is paced
// (a run has at most PaceQuickFrames frames). With Mosh's, one frame
// SEND_MINDELAY (8 ms) after the echo carries all three.
func TestTimingCommandOutput(t *testing.T) {
	for _, pacing := range []ssp.Pacing{ssp.PacingGosh, ssp.PacingMosh} {
		s := newSim(t, 4, lan, lan, ssp.Config{Pacing: pacing})
		log := recordSends(t, s)
		for range 10 { // typing and echo: round-trip samples both ways
			s.client.Current().Append([]byte("k"))
			s.run(100 * time.Millisecond)
			s.server.Current().Append([]byte("e"))
			s.run(100 * time.Millisecond)
		}
		s.run(time.Second)
		start := s.now
		for _, at := range []time.Duration{0, 3 * time.Millisecond, 5 * time.Millisecond} {
			s.run(start.Add(at).Sub(s.now))
			s.server.Current().Append([]byte("out"))
			s.tickAll()
		}
		s.run(time.Second)
		var frames []time.Duration
		for _, f := range sendsAfter(*log, false, start) {
			if len(f.in.Diff) > 0 {
				frames = append(frames, f.at.Sub(start))
			}
		}
		var want []time.Duration
		if pacing == ssp.PacingGosh {
			want = []time.Duration{0, 3 * time.Millisecond, 3*time.Millisecond + ssp.SendIntervalMin}
		} else {
			want = []time.Duration{ssp.ServerSendMinDelay}
		}
		if !slices.Equal(frames, want) {
			t.Errorf("%v: frames at %v, want %v", pacing, frames, want)
		}
	}
}

// TestTimingTailProbe: a server that paced a flood sends the flood's last
// frame again TailProbeDelay after it, nothing newer having gone: lost, it
// would otherwise wait for the retransmission timeout, with nothing later
// to repair it (the prompt after a Ctrl-C). With Mosh's pacing, and from
// a client, it is sent once.
func TestTimingTailProbe(t *testing.T) {
	for _, tc := range []struct {
		pacing ssp.Pacing
		server bool
		want   int // frames with the flood's last state number
	}{
		{ssp.PacingGosh, true, 2},
		{ssp.PacingMosh, true, 1},
		{ssp.PacingGosh, false, 1},
	} {
		m := linkModel{delay: 225 * time.Millisecond}
		s := newSim(t, 3, m, m, ssp.Config{Pacing: tc.pacing})
		log := recordSends(t, s)
		s.run(2 * time.Second)
		tr := s.client
		if tc.server {
			tr = s.server
		}
		start := s.now
		for s.now.Sub(start) < 2*time.Second {
			tr.Current().Append([]byte("a line of output\n"))
			s.run(2 * time.Millisecond)
		}
		s.run(300 * time.Millisecond)
		var frames []sent
		for _, f := range sendsAfter(*log, !tc.server, start) {
			if len(f.in.Diff) > 0 {
				frames = append(frames, f)
			}
		}
		last := frames[len(frames)-1].in.NewNum
		var same []sent
		for _, f := range frames {
			if f.in.NewNum == last {
				same = append(same, f)
			}
		}
		name := fmt.Sprintf("%v, server %v", tc.pacing, tc.server)
		if len(same) != tc.want {
			t.Errorf("%s: the flood's last state went in %d frames, want %d", name, len(same), tc.want)
			continue
		}
		if tc.want == 2 {
			a, b := same[0], same[1]
			if d := b.at.Sub(a.at); d != ssp.TailProbeDelay || b.in.OldNum != a.in.OldNum || !bytes.Equal(b.in.Diff, a.in.Diff) {
				t.Errorf("%s: probe %v after the frame, %d->%d (frame %d->%d); want the same frame %v later", name, d, b.in.OldNum, b.in.NewNum, a.in.OldNum, a.in.NewNum, ssp.TailProbeDelay)
			}
			if got := tr.Stats().TailProbes; got != 1 {
				t.Errorf("%s: Stats.TailProbes = %d, want 1", name, got)
			}
		}
	}
}

// TestTimingAnswerWindow: a server whose flood fills a slow bottleneck
// (64 kbit/s) paces its frames by a widened flood gap, but the frame that
// follows the client's input goes within SendIntervalMin of its arrival
// (the prompt after a Ctrl-C must not wait a gap the queue widened).
func TestTimingAnswerWindow(t *testing.T) {
	cfg := linkem.Config{Delay: 225 * time.Millisecond, Rate: 64e3, Queue: 100}
	up := linkModel{delay: 225 * time.Millisecond}
	down := linkModel{em: linkem.NewModel(cfg, 1, simEpoch)}
	s := newSim(t, 4, up, down, ssp.Config{})
	var frames []time.Time // when the server sent data (over 100 bytes: an ack is some 80)
	s.onSend = func(toSrv bool, at time.Time, d []byte) {
		if !toSrv && len(d) > 100 && (len(frames) == 0 || frames[len(frames)-1] != at) {
			frames = append(frames, at)
		}
	}
	s.run(2 * time.Second)
	r := rand.New(rand.NewPCG(1, 2))
	output := func() { // 40 letters every 2 ms, which zlib cannot squeeze much
		b := make([]byte, 40)
		for i := range b {
			b[i] = 'a' + byte(r.IntN(26))
		}
		s.server.Current().Append(b)
	}
	for end := s.now.Add(3 * time.Second); s.now.Before(end); {
		output()
		s.run(2 * time.Millisecond)
	}
	gap := frames[len(frames)-1].Sub(frames[len(frames)-2])
	if gap < 3*ssp.SendIntervalMin {
		t.Fatalf("the flood's frames are %v apart: the bottleneck did not widen the gap", gap)
	}
	s.client.Current().Append([]byte("\x03"))
	want := s.client.Current().End()
	arrived := func() bool { return s.server.Remote().End() >= want }
	for end := s.now.Add(2 * time.Second); s.now.Before(end) && !arrived(); {
		output()
		s.runUntil(s.now.Add(2*time.Millisecond), arrived)
	}
	if !arrived() {
		t.Fatal("the client's input never reached the server")
	}
	at := s.now
	for end := s.now.Add(time.Second); s.now.Before(end); {
		output()
		s.run(2 * time.Millisecond)
	}
	i := slices.IndexFunc(frames, func(f time.Time) bool { return !f.Before(at) })
	if i < 0 {
		t.Fatal("no frame after the input")
	}
	if d := frames[i].Sub(at); d > ssp.SendIntervalMin {
		t.Errorf("the first frame after the input went %v after it (flood gap %v), want within %v", d, gap, ssp.SendIntervalMin)
	}
}

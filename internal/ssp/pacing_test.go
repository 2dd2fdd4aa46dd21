package ssp_test

import (
	"bytes"
	"container/heap"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/statesync"
)

// termSim runs a terminal session's two transports (user input up, the
// screen down) over linkem models in virtual time: the pure core of a
// flood over a slow or changing link.
type termSim struct {
	t        *testing.T
	now      time.Time
	client   *ssp.Transport[*statesync.UserStream, *statesync.Complete]
	server   *ssp.Transport[*statesync.Complete, *statesync.UserStream]
	up, down *linkem.Model
	inFlight deliveryHeap
	seq      int
	frames   int // server instructions that carried a diff
	biggest  int // the largest server instruction's wire bytes
	cli, srv netip.AddrPort
}

func newTermSim(t *testing.T, prof linkem.Profile, cols, rows int, pacing ssp.Pacing) *termSim {
	key, err := sspcrypto.NewKey(rand.NewChaCha8([32]byte{7}))
	if err != nil {
		t.Fatal(err)
	}
	s := &termSim{t: t, now: simEpoch,
		cli: netip.MustParseAddrPort("192.0.2.10:50000"), srv: netip.MustParseAddrPort("198.51.100.1:60001")}
	s.up = linkem.NewModel(prof.Up, 1, s.now)
	s.down = linkem.NewModel(prof.Down, 2, s.now)
	if s.client, err = ssp.NewTransport(ssp.Config{Key: key, Remote: s.srv, Pacing: pacing, Rand: rand.NewChaCha8([32]byte{1})},
		statesync.NewUserStream(), statesync.NewComplete(cols, rows), s.now); err != nil {
		t.Fatal(err)
	}
	if s.server, err = ssp.NewTransport(ssp.Config{Key: key, Server: true, Pacing: pacing, Rand: rand.NewChaCha8([32]byte{2})},
		statesync.NewComplete(cols, rows), statesync.NewUserStream(), s.now); err != nil {
		t.Fatal(err)
	}
	return s
}

// step delivers what is due, ticks both ends, and advances to the next
// event or at most max.
func (s *termSim) step(max time.Duration) {
	for len(s.inFlight) > 0 && !s.inFlight[0].at.After(s.now) {
		d := heap.Pop(&s.inFlight).(delivery)
		if d.toSrv {
			_ = s.server.Receive(s.now, d.data, d.from)
		} else {
			_ = s.client.Receive(s.now, d.data, d.from)
		}
	}
	s.send(s.client.Tick(s.now))(true)
	s.send(s.server.Tick(s.now))(false)
	next := s.now.Add(max)
	for _, x := range []time.Time{s.client.NextDeadline(), s.server.NextDeadline()} {
		if !x.IsZero() && x.After(s.now) && x.Before(next) {
			next = x
		}
	}
	if len(s.inFlight) > 0 && s.inFlight[0].at.After(s.now) && s.inFlight[0].at.Before(next) {
		next = s.inFlight[0].at
	}
	s.now = next
}

func (s *termSim) send(out [][]byte, err error) func(toSrv bool) {
	return func(toSrv bool) {
		if err != nil {
			s.t.Fatal(err)
		}
		m, from := s.down, s.srv
		if toSrv {
			m, from = s.up, s.cli
		}
		if size := 28*len(out) + len(bytes.Join(out, nil)); !toSrv {
			s.biggest = max(s.biggest, size)
		}
		if !toSrv && len(out) > 0 && len(out[0]) > 150 {
			s.frames++
		}
		for _, d := range out {
			if at, ok := m.Offer(s.now, len(d)+28); ok {
				s.seq++
				heap.Push(&s.inFlight, delivery{at: at, toSrv: toSrv, from: from, data: append([]byte(nil), d...), order: s.seq})
			}
		}
	}
}

// run advances virtual time by d, calling each (if set) every millisecond
// of it.
func (s *termSim) run(d time.Duration, each func()) {
	end := s.now.Add(d)
	for next := s.now; s.now.Before(end); {
		if each != nil && !s.now.Before(next) {
			each()
			next = s.now.Add(time.Millisecond)
		}
		s.step(min(time.Millisecond, end.Sub(s.now)))
	}
}

// floodLine returns line n of a flood: plain numbers, or a screenful of
// coloured noise that no link of 1 Mbit/s carries at 50 frames a second.
func floodLine(n, cols int, noisy bool, r *rand.Rand) string {
	if !noisy {
		return fmt.Sprintf("%d\r\n", n)
	}
	var b strings.Builder
	for range cols - 1 {
		fmt.Fprintf(&b, "\x1b[38;5;%dm%c", r.IntN(256), 'A'+r.IntN(26))
	}
	b.WriteString("\r\n")
	return b.String()
}

type floodCase struct {
	link  string
	noisy bool
	cols  int
	rows  int
	slow  float64 // if set, the downlink's rate (bit/s) from 2 s into the flood
}

// floodRate is how many lines a flood writes per millisecond: far more
// than any frame rate shows, and few enough for the race detector (a
// noisy line is 200 coloured cells: one a millisecond redraws a 200×60
// screen every 60 ms).
func (c floodCase) floodRate() int {
	if c.noisy {
		return 1
	}
	return 3
}

func (c floodCase) name() string {
	if c.slow > 0 {
		return fmt.Sprintf("%s/%dx%d/slowed-to-%.0fkbit", c.link, c.cols, c.rows, c.slow/1000)
	}
	return fmt.Sprintf("%s/%dx%d", c.link, c.cols, c.rows)
}

// TestPacingFlood: a flood of output over slow, changing and lossy links,
// then Ctrl-C. With gosh's pacing the states in between are skipped as
// with Mosh's; on CS244's 3G link the bottleneck's queueing delay stays
// within a round trip and one frame's transmission (a link too slow for
// the frames widens the gap and fills the window), also when the link
// slows to 50 kbit/s halfway through the flood, and the prompt after
// the Ctrl-C comes back within a round trip and a little (Mosh's waits up
// to half a round trip more for its frame); over Sprout's cellular model
// the queue is no longer than with Mosh's pacing, and 29 % loss each way
// does not cut the frame rate below Mosh's.
func TestPacingFlood(t *testing.T) {
	cases := []floodCase{
		{"cs244-3g", false, 80, 24, 0},
		{"cs244-3g", false, 80, 24, 50e3},
		{"cs244-3g", true, 200, 60, 0},
		{"cellular", true, 200, 60, 0},
		{"loss50", false, 80, 24, 0},
	}
	if raceEnabled {
		cases = cases[:1] // 22 s of the race detector's time for all; make hostile runs them all
	}
	type result struct {
		queue  time.Duration
		frames int
	}
	mosh := map[string]result{}
	for _, tc := range cases {
		for _, pacing := range []ssp.Pacing{ssp.PacingMosh, ssp.PacingGosh} {
			t.Run(tc.name()+"/"+pacing.String(), func(t *testing.T) {
				prof, err := linkem.LookupProfile(tc.link)
				if err != nil {
					t.Fatal(err)
				}
				s := newTermSim(t, prof, tc.cols, tc.rows, pacing)
				// Settle the RTT: a few keys typed and echoed, as before
				// any command.
				for range 10 {
					s.client.Current().PushKeys([]byte("x"))
					s.run(250*time.Millisecond, nil)
					s.server.Current().Feed([]byte("x"), nil)
					s.run(250*time.Millisecond, nil)
				}
				s.client.Current().PushKeys([]byte("\r"))
				s.run(time.Second, nil)
				keys := s.server.Remote().Total()
				r := rand.New(rand.NewPCG(1, 2))
				n, start, frames0 := 0, s.now, s.frames
				feed := func() { // floodRate lines a millisecond
					for range tc.floodRate() {
						n++
						s.server.Current().Feed([]byte(floodLine(n, tc.cols, tc.noisy, r)), nil)
					}
				}
				rate := prof.Down.Rate
				if tc.slow > 0 {
					s.run(2*time.Second, feed)
					cfg := prof.Down
					cfg.Rate = tc.slow
					s.down.SetConfig(s.now, cfg)
					rate = tc.slow
					s.run(2*time.Second, feed)
				} else {
					s.run(4*time.Second, feed)
				}
				flood := s.now.Sub(start)
				frames := s.frames - frames0
				queue := s.down.Stats().MaxQueueDelay
				rtt := 2 * prof.Down.Delay
				// Ctrl-C: the server stops the flood when the key arrives
				// and prints the prompt; time until the client shows it.
				s.client.Current().PushKeys([]byte{3})
				typed := s.now
				interrupted := false
				var back time.Time
				s.run(10*time.Second, func() {
					if !interrupted && s.server.Remote().Total() > keys {
						interrupted = true
						s.server.Current().Feed([]byte("^C\r\n$ PROMPT"), nil)
					}
					if !interrupted {
						for range tc.floodRate() {
							n++
							s.server.Current().Feed([]byte(floodLine(n, tc.cols, tc.noisy, r)), nil)
						}
					}
					if back.IsZero() && strings.Contains(s.client.Remote().Framebuffer().Row(tc.rows-1).Text(), "$ PROMPT") {
						back = s.now
					}
				})
				if back.IsZero() {
					t.Fatalf("the prompt did not come back within 10 s")
				}
				took := back.Sub(typed)
				t.Logf("%d lines in %v: %d frames (%.0f/s), the largest %d B; bottleneck queue at most %v; Ctrl-C to prompt %v (RTT %v)",
					n, flood, frames, float64(frames)/flood.Seconds(), s.biggest, queue, took, rtt)
				if frames > n/(tc.floodRate()*10) {
					t.Errorf("%d frames for %d lines: the flood's states were not skipped", frames, n)
				}
				if pacing == ssp.PacingMosh {
					mosh[tc.name()] = result{queue, frames}
					return
				}
				switch tc.link {
				case "cs244-3g":
					// A frame alone queues for its transmission time.
					frameTime := time.Duration(float64(s.biggest*8) / rate * float64(time.Second))
					if queue > rtt+frameTime {
						t.Errorf("the bottleneck's queue reached %v, more than a round trip (%v) and the largest frame's transmission (%v)", queue, rtt, frameTime)
					}
					if !tc.noisy && tc.slow == 0 && took > rtt+100*time.Millisecond {
						t.Errorf("Ctrl-C to prompt took %v, want within a round trip (%v) and 100 ms", took, rtt)
					}
				case "loss50": // loss must not collapse the frame rate
					if frames < mosh[tc.name()].frames {
						t.Errorf("%d frames over a lossy link, Mosh's pacing %d", frames, mosh[tc.name()].frames)
					}
				default: // outages hold the queue: no worse than Mosh
					if queue > mosh[tc.name()].queue {
						t.Errorf("the bottleneck's queue reached %v, Mosh's pacing %v", queue, mosh[tc.name()].queue)
					}
				}
			})
		}
	}
}

// TestPacingUrgentTwice: a client frame that carries an interrupt key goes
// out as two datagrams at once, even over a lossless path, so that the
// Ctrl-C that stops a flood does not wait for the next frame when one is
// lost (CS244's 3G link loses 1 %); other keys go once.
func TestPacingUrgentTwice(t *testing.T) {
	for _, pacing := range []ssp.Pacing{ssp.PacingGosh, ssp.PacingMosh} {
		prof, err := linkem.LookupProfile("evdo")
		if err != nil {
			t.Fatal(err)
		}
		s := newTermSim(t, prof, 80, 24, pacing)
		s.run(3*time.Second, nil)
		for _, tc := range []struct {
			keys string
			want int // datagrams
		}{
			{"l", 1},
			{"\x03", 2},
			{"s", 1},
		} {
			if pacing == ssp.PacingMosh {
				tc.want = 1
			}
			s.run(time.Second, nil)
			s.client.Current().PushKeys([]byte(tc.keys))
			var out [][]byte
			for end := s.now.Add(time.Second); len(out) == 0 && s.now.Before(end); s.now = s.now.Add(time.Millisecond) {
				out, err = s.client.Tick(s.now)
				if err != nil {
					t.Fatal(err)
				}
			}
			s.send(out, nil)(true)
			if len(out) != tc.want {
				t.Errorf("%v: %q went in %d datagrams, want %d", pacing, tc.keys, len(out), tc.want)
			}
		}
		if got, want := s.client.Stats().Redundant, map[ssp.Pacing]uint64{ssp.PacingGosh: 1}[pacing]; got != want {
			t.Errorf("%v: Stats.Redundant = %d, want %d", pacing, got, want)
		}
	}
}

package ssp_test

import (
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
	"github.com/gosh-term/gosh/internal/vt"
)

// The receiver never shows a state the sender never had: every screen a
// client holds as the server's newest is one the server's terminal went
// through. A diff applied to a state other than its base, or a state
// number reused for other content, breaks it.

// viStep is one key of a vi-like editing session and what the editor
// writes for it.
type viStep struct {
	key   byte
	shown bool // the client's prediction shows it (PushShownKeys)
	out   string
}

// viScript returns the keys of lines typed in a vi-like editor: 'o' and
// 'a' show "-- INSERT --" on the bottom row, letters echo, Escape moves
// the cursor one column left and clears the bottom row.
func viScript(r *rand.Rand, lines int) []viStep {
	words := []string{"typo", "word", "vim", "insert", "mode", "escape", "go"}
	var steps []viStep
	insert := func(key byte, y, x int) {
		steps = append(steps, viStep{key: key, out: fmt.Sprintf("\x1b[24;1H-- INSERT --\x1b[%d;%dH", y, x)})
	}
	escape := func(y, x int) {
		steps = append(steps, viStep{key: 0x1b, out: fmt.Sprintf("\x1b[24;1H\x1b[K\x1b[%d;%dH", y, x-1)})
	}
	for y := 1; y <= lines; y++ {
		x := 1
		insert('o', y, x)
		for n := 1 + r.IntN(3); n > 0; n-- {
			w := words[r.IntN(len(words))] + " "
			for i := range len(w) {
				steps = append(steps, viStep{key: w[i], shown: true, out: w[i : i+1]})
				x++
			}
			escape(y, x)
			insert('a', y, x)
		}
		escape(y, x)
	}
	return steps
}

// screenKey names what a framebuffer shows: its rows' text and the cursor.
func screenKey(fb *vt.Framebuffer) string {
	var b strings.Builder
	_, h := fb.Size()
	for y := range h {
		b.WriteString(fb.Row(y).Text())
		b.WriteByte('\n')
	}
	x, y := fb.Cursor()
	fmt.Fprintf(&b, "cursor %d,%d visible %v", x, y, fb.CursorVisible())
	return b.String()
}

// fate decides when a datagram sent at now arrives, or that it is lost.
type fate func(toSrv bool, now time.Time) (time.Time, bool)

// linkFate is the fate of a linkem link each way.
func linkFate(up, down linkem.Config, seed uint64, start time.Time) fate {
	u, d := linkem.NewModel(up, 2*seed+1, start), linkem.NewModel(down, 2*seed+2, start)
	return func(toSrv bool, now time.Time) (time.Time, bool) {
		if toSrv {
			return u.Offer(now, 100)
		}
		return d.Offer(now, 100)
	}
}

// viSession is a terminal session's two transports in virtual time, the
// server's screen driven by a vi-like editor echoing what the client types.
type viSession struct {
	t        testing.TB
	seed     uint64
	now      time.Time
	client   *ssp.Transport[*statesync.UserStream, *statesync.Complete]
	server   *ssp.Transport[*statesync.Complete, *statesync.UserStream]
	fate     fate
	inFlight deliveryHeap
	seq      int
	cli, srv netip.AddrPort
	had      map[string]bool // every screen the server's terminal showed
}

func newViSession(t testing.TB, seed uint64, f fate) *viSession {
	key, err := sspcrypto.NewKey(rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 7}))
	if err != nil {
		t.Fatal(err)
	}
	s := &viSession{t: t, seed: seed, now: simEpoch, fate: f, had: map[string]bool{},
		cli: netip.MustParseAddrPort("192.0.2.10:50000"), srv: netip.MustParseAddrPort("198.51.100.1:60001")}
	if s.client, err = ssp.NewTransport(ssp.Config{Key: key, Remote: s.srv, Rand: rand.NewChaCha8([32]byte{byte(seed), 1})},
		statesync.NewUserStream(), statesync.NewComplete(80, 24), s.now); err != nil {
		t.Fatal(err)
	}
	if s.server, err = ssp.NewTransport(ssp.Config{Key: key, Server: true, Rand: rand.NewChaCha8([32]byte{byte(seed), 2})},
		statesync.NewComplete(80, 24), statesync.NewUserStream(), s.now); err != nil {
		t.Fatal(err)
	}
	// A gosh client's profile, as the server sets it once the client's
	// capabilities arrive.
	s.server.Current().SetWireCaps(vt.CapStyles | vt.CapHyperlinks | vt.CapCursorStyle | vt.CapLongOSC | vt.CapAltScreen)
	s.feed("")
	return s
}

// feed writes editor output to the server's terminal and records the
// screen it shows.
func (s *viSession) feed(out string) {
	s.server.Current().Feed([]byte(out), nil)
	s.had[screenKey(s.server.Current().Framebuffer())] = true
}

// step delivers what is due, checking the client's screen after each
// datagram, ticks both ends, and advances to the next event, at most to
// until.
func (s *viSession) step(until time.Time) {
	for len(s.inFlight) > 0 && !s.inFlight[0].at.After(s.now) {
		d := heap.Pop(&s.inFlight).(delivery)
		if d.toSrv {
			_ = s.server.Receive(s.now, d.data, d.from)
			continue
		}
		num := s.client.RemoteNum()
		_ = s.client.Receive(s.now, d.data, d.from)
		if s.client.RemoteNum() == num {
			continue
		}
		if k := screenKey(s.client.Remote().Framebuffer()); !s.had[k] {
			s.t.Fatalf("seed %d, at %v: the client holds a screen the server never showed:\n%s\nthe server's now:\n%s",
				s.seed, s.now.Sub(simEpoch), k, screenKey(s.server.Current().Framebuffer()))
		}
	}
	s.send(true, s.client)
	s.send(false, s.server)
	next := until
	for _, x := range []time.Time{s.client.NextDeadline(), s.server.NextDeadline()} {
		if x.After(s.now) && x.Before(next) {
			next = x
		}
	}
	if len(s.inFlight) > 0 && s.inFlight[0].at.Before(next) {
		next = s.inFlight[0].at
	}
	if !next.After(s.now) {
		next = s.now.Add(time.Millisecond)
	}
	s.now = next
}

func (s *viSession) send(toSrv bool, tr interface {
	Tick(time.Time) ([][]byte, error)
}) {
	out, err := tr.Tick(s.now)
	if err != nil {
		s.t.Fatal(err)
	}
	from := s.srv
	if toSrv {
		from = s.cli
	}
	for _, d := range out {
		if at, ok := s.fate(toSrv, s.now); ok {
			s.seq++
			heap.Push(&s.inFlight, delivery{at: at, toSrv: toSrv, from: from, data: append([]byte(nil), d...), order: s.seq})
		}
	}
}

// viWrite is editor output due at a time.
type viWrite struct {
	at  time.Time
	out string
	ack uint64 // the client state it answers, if it ends the answer
}

// viEditor is the editor on the server: it answers each key of steps
// that arrives, in one write or (r decides) two, and acknowledges the
// echo of the client's state with the write that ends the answer.
type viEditor struct {
	r         *rand.Rand
	steps     []viStep
	pending   []viWrite
	queued    int // keys answered or being answered
	echoed    int // keys answered
	taken     uint64
	remoteNum uint64
}

// run takes the keys that arrived and writes the output due at s.now.
func (e *viEditor) run(s *viSession) {
	if n := s.server.RemoteNum(); n != e.remoteNum {
		e.remoteNum = n
		remote := s.server.Remote()
		for _, ev := range remote.EventsSince(e.taken) {
			for range ev.Keys {
				out := e.steps[e.queued].out
				e.queued++
				at := s.now.Add(time.Duration(e.r.IntN(3)) * time.Millisecond)
				if len(out) > 1 && e.r.IntN(2) == 0 {
					cut := 1 + e.r.IntN(len(out)-1)
					e.pending = append(e.pending, viWrite{at, out[:cut], 0})
					at = at.Add(time.Duration(e.r.IntN(8)) * time.Millisecond)
					out = out[cut:]
				}
				e.pending = append(e.pending, viWrite{at, out, n})
			}
		}
		e.taken = remote.Total()
	}
	for len(e.pending) > 0 && !s.now.Before(e.pending[0].at) {
		w := e.pending[0]
		e.pending = e.pending[1:]
		s.feed(w.out)
		if w.ack != 0 {
			e.echoed++
			s.server.Current().SetEchoAck(w.ack)
		}
	}
}

// typeVi types lines of a vi session, a key every 5 to 400 ms (r
// decides), and fails as soon as the client holds a screen the server
// never showed (step checks), or if the client does not end on the
// server's screen.
func (s *viSession) typeVi(r *rand.Rand, lines int) {
	s.feed("\x1b[?1049h\x1b[H\x1b[2J" + strings.Repeat("\r\n~", 23) + "\x1b[H")
	ed := &viEditor{r: r, steps: viScript(r, lines)}
	typed := 0
	nextKey := s.now.Add(time.Second)
	end := s.now.Add(time.Duration(len(ed.steps))*400*time.Millisecond + 10*time.Second)
	for s.now.Before(end) {
		if typed < len(ed.steps) && !s.now.Before(nextKey) {
			if st := ed.steps[typed]; st.shown {
				s.client.Current().PushShownKeys([]byte{st.key})
			} else {
				s.client.Current().PushKeys([]byte{st.key})
			}
			typed++
			nextKey = s.now.Add(time.Duration(5+r.IntN(400)) * time.Millisecond)
		}
		ed.run(s)
		until := end
		if typed < len(ed.steps) && nextKey.Before(until) {
			until = nextKey
		}
		if len(ed.pending) > 0 && ed.pending[0].at.Before(until) {
			until = ed.pending[0].at
		}
		s.step(until)
	}
	if ed.echoed != len(ed.steps) {
		s.t.Fatalf("seed %d: the editor answered %d of %d keys", s.seed, ed.echoed, len(ed.steps))
	}
	if a, b := screenKey(s.client.Remote().Framebuffer()), screenKey(s.server.Current().Framebuffer()); a != b {
		s.t.Fatalf("seed %d: the client ends on\n%s\nthe server on\n%s", s.seed, a, b)
	}
}

// TestScreenOnlyStatesSent types a vi-like session over the evdo link and
// over a lossy one that reorders datagrams, and checks after every event
// that the client's copy of the server's screen is one the server had.
func TestScreenOnlyStatesSent(t *testing.T) {
	evdo, err := linkem.LookupProfile("evdo")
	if err != nil {
		t.Fatal(err)
	}
	rough := linkem.Config{Delay: 60 * time.Millisecond, Jitter: 40 * time.Millisecond, Loss: 0.15, Reorder: true}
	seeds := uint64(20)
	if testing.Short() {
		seeds = 4
	}
	for seed := range seeds {
		for _, link := range []struct{ up, down linkem.Config }{{evdo.Up, evdo.Down}, {rough, rough}} {
			s := newViSession(t, seed, linkFate(link.up, link.down, seed, simEpoch))
			s.typeVi(rand.New(rand.NewPCG(seed, 5)), 8)
		}
	}
}

// FuzzScreenOnlyStatesSent is TestScreenOnlyStatesSent with each
// datagram's fate taken from the fuzzer's bytes in turn: lost when the low
// two bits are 0 (but never more than two in a row, so that the session
// goes on), otherwise delayed 20 ms plus the other six bits in
// milliseconds (so datagrams overtake one another).
func FuzzScreenOnlyStatesSent(f *testing.F) {
	f.Add(uint64(1), []byte{})
	f.Add(uint64(2), []byte{0x41, 0xfe, 0x02, 0x83, 0x10, 0x07, 0xc0, 0x55})
	f.Add(uint64(3), []byte{0xff, 0x01, 0x00, 0x7d, 0x22})
	f.Fuzz(func(t *testing.T, seed uint64, fates []byte) {
		i, lost := 0, 0
		s := newViSession(t, seed, func(_ bool, now time.Time) (time.Time, bool) {
			if len(fates) == 0 {
				return now.Add(50 * time.Millisecond), true
			}
			b := fates[i%len(fates)]
			i++
			if b&3 == 0 && lost < 2 {
				lost++
				return time.Time{}, false
			}
			lost = 0
			return now.Add(20*time.Millisecond + time.Duration(b>>2)*time.Millisecond), true
		})
		s.typeVi(rand.New(rand.NewPCG(seed, 5)), 2)
	})
}

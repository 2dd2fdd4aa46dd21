package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/bench/keylat"
	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/session/sessiontest"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/ssp/ssptest"
	"github.com/gosh-term/gosh/internal/sspcrypto"
	"github.com/gosh-term/gosh/internal/terminfo"
	"github.com/gosh-term/gosh/internal/vt"
)

// The virtual-time typing runs: gosh bench typing's measurement, with the
// real client and server loops in a testing/synctest bubble, the link a
// pair of linkem models between in-memory sockets, and the program a
// replay of what the real one wrote after each key (a transcript,
// testdata/transcripts, recorded by TestRecordTranscripts). A workload
// of a minute and a half over EV-DO takes about a second of CPU.

// virtualWorkloads are the built-in workloads with a transcript.
var virtualWorkloads = []string{"shell", "python", "vim", "pager"}

// The in-memory network's addresses.
var (
	virtualServer = netip.MustParseAddrPort("198.51.100.1:60001")
	virtualClient = netip.MustParseAddr("192.0.2.10")
)

// termKind is the user's terminal of a virtual run.
type termKind int

const (
	// answering terminals answer the client's queries and have an
	// alternate screen, as xterm and tmux do.
	answering termKind = iota
	// plain terminals answer no queries and have no alternate screen.
	plain
)

func (k termKind) String() string {
	if k == plain {
		return "plain"
	}
	return "answering"
}

// virtualRun is one workload typed over one link in virtual time.
type virtualRun struct {
	tr   *sessiontest.Transcript
	w    *workload.Workload
	link linkem.Profile
	seed uint64
	term termKind
}

// virtualResult is what a virtual run measured.
type virtualResult struct {
	keylat.Result
	wire int64 // bytes offered to the link, both ways, while typing
}

// loadTranscript reads the transcript of a built-in workload.
func loadTranscript(t testing.TB, name string) *sessiontest.Transcript {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "transcripts", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr sessiontest.Transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &tr
}

// newVirtualRun prepares the named built-in workload over link.
func newVirtualRun(t testing.TB, name string, link string, seed uint64, term termKind) virtualRun {
	t.Helper()
	w, err := workload.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := linkem.LookupProfile(link)
	if err != nil {
		t.Fatal(err)
	}
	tr := loadTranscript(t, name)
	if !sameKeys(tr, w) {
		t.Fatalf("the %s transcript's keys are not the workload's: record it again (go test -run TestRecordTranscripts -update ./internal/bench)", name)
	}
	return virtualRun{tr: tr, w: w, link: p, seed: seed, term: term}
}

// sameKeys reports whether tr's keys are w's, after the key that clears
// the screen.
func sameKeys(tr *sessiontest.Transcript, w *workload.Workload) bool {
	if len(tr.Steps) != len(w.Keys)+1 || tr.Steps[0].Key != clearKeys[shellOf(w)] {
		return false
	}
	for i, k := range w.Keys {
		if tr.Steps[i+1].Key != k.Key {
			return false
		}
	}
	return true
}

// transcriptScreens feeds tr into an emulator and returns the screen
// after each step.
func transcriptScreens(tr *sessiontest.Transcript) []*vt.Framebuffer {
	emu := vt.NewEmulator(tr.Cols, tr.Rows)
	emu.Feed(tr.Start, nil)
	out := make([]*vt.Framebuffer, len(tr.Steps))
	for i, s := range tr.Steps {
		emu.Feed(s.Out, nil)
		out[i] = emu.Framebuffer().Clone()
	}
	return out
}

// linkNet makes an in-memory network follow the link's two models: each
// datagram is offered to the model of its direction, which loses it or
// says when it arrives.
func linkNet(p linkem.Profile, seed uint64, wire *atomic.Int64) *ssptest.Network {
	n := ssptest.NewNetwork()
	now := time.Now()
	up := linkem.NewModel(p.Up, seed, now)
	down := linkem.NewModel(p.Down, seed^0x9e3779b97f4a7c15, now)
	var arrive time.Time // of the datagram being sent; the hooks run one datagram at a time
	n.Drop = func(from, _ netip.AddrPort, b []byte) bool {
		m := up
		if from == virtualServer {
			m = down
		}
		wire.Add(int64(len(b)))
		at, ok := m.Offer(time.Now(), len(b))
		arrive = at
		return !ok
	}
	n.Delay = func(netip.AddrPort, netip.AddrPort, []byte) time.Duration { return time.Until(arrive) }
	return n
}

// virtualSession is a client and a server loop over a linkNet, the
// server's program a replay: made and ended inside a synctest bubble.
type virtualSession struct {
	t      *testing.T
	term   *sessiontest.Terminal
	prog   session.PTY
	wire   atomic.Int64
	cancel context.CancelFunc
	done   chan error
	pcs    []*ssptest.PacketConn
}

// startVirtual starts the loops over link with prog behind the server.
func startVirtual(t *testing.T, link linkem.Profile, seed uint64, kind termKind, prog session.PTY, cols, rows int) *virtualSession {
	s := &virtualSession{t: t, term: sessiontest.NewTerminal(cols, rows), prog: prog, done: make(chan error, 2)}
	netw := linkNet(link, seed, &s.wire)
	key, err := sspcrypto.NewKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := netw.Listen(virtualServer)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := netw.Listen(netip.AddrPortFrom(virtualClient, 0))
	if err != nil {
		t.Fatal(err)
	}
	s.pcs = []*ssptest.PacketConn{srv, cli}
	tinfo := terminfo.Fallback("xterm-256color")
	if kind == plain {
		s.term.Mute()
		s.term.IgnoreAltScreen()
		tinfo.EnterCA, tinfo.ExitCA = "", ""
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() {
		s.done <- session.Serve(ctx, session.ServerConfig{Conn: ssp.NewConn(srv, nil, nil), Key: key, PTY: prog, Cols: cols, Rows: rows})
	}()
	reopen := func() (net.PacketConn, error) { return netw.Listen(netip.AddrPortFrom(virtualClient, 0)) }
	eng := predict.NewEngine(predictMode, false)
	if debugTyping() {
		t0 := time.Now()
		eng.SetLogf(func(f string, a ...any) {
			t.Logf("%8.3f s: predict: "+f, append([]any{time.Since(t0).Seconds()}, a...)...)
		})
	}
	go func() {
		s.done <- session.RunClient(ctx, session.ClientConfig{Server: virtualServer, Key: key, Conn: ssp.NewConn(cli, reopen, nil),
			Terminal: s.term, TermInfo: tinfo, Predict: eng})
	}()
	return s
}

// stop ends both loops and closes the sockets, so that the bubble ends
// with no goroutine left.
func (s *virtualSession) stop() {
	s.cancel()
	for range 2 {
		select {
		case <-s.done:
		case <-time.After(time.Minute):
			s.t.Error("a loop did not end within a minute of its cancellation")
		}
	}
	for _, pc := range s.pcs {
		pc.Close()
	}
}

// debugTyping reports whether a verbose run traces the prediction
// engine and logs each screen shown wrongly (GOSH_TYPING_DEBUG set).
func debugTyping() bool { return testing.Verbose() && os.Getenv("GOSH_TYPING_DEBUG") != "" }

// waitFor polls cond every 10 ms of virtual time for up to limit, and
// reports whether it held.
func waitFor(limit time.Duration, cond func() bool) bool {
	for end := time.Now().Add(limit); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

// quiet waits until the terminal has had no write for d, at most limit.
func (s *virtualSession) quiet(d, limit time.Duration) {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		n := s.term.Written()
		time.Sleep(d)
		if s.term.Written() == n {
			return
		}
	}
}

// ready waits for the workload's first screen and clears it with the
// transcript's first key, as waitReady does for gosh bench typing.
func (s *virtualSession) ready(w *workload.Workload, clear string) {
	t := s.t
	t.Helper()
	if !waitFor(readyTimeout, func() bool { return w.Ready == "" || s.term.Contains(w.Ready) }) {
		t.Fatalf("the session never showed %q; screen:\n%s", w.Ready, strings.Join(s.term.Screen(), "\n"))
	}
	s.quiet(300*time.Millisecond, 5*time.Second)
	s.term.Type(clear)
	blank := func() bool {
		_, cy, _ := s.term.Cursor()
		for y, r := range s.term.Screen() {
			if y != cy && r != "" {
				return false
			}
		}
		return true
	}
	if !waitFor(readyTimeout, blank) {
		t.Fatalf("the screen did not clear; it shows:\n%s", strings.Join(s.term.Screen(), "\n"))
	}
	s.quiet(300*time.Millisecond, 5*time.Second)
}

// typing types the run's workload with its gaps and measures each key's
// response against the transcript's screens. It runs inside a synctest
// bubble.
func (v virtualRun) typing(t *testing.T) virtualResult {
	prog := sessiontest.NewReplay(v.tr)
	s := startVirtual(t, v.link, v.seed, v.term, prog, v.tr.Cols, v.tr.Rows)
	defer s.stop()
	s.ready(v.w, v.tr.Steps[0].Key)
	refs := transcriptScreens(v.tr)[1:]
	s.term.Record()
	wire0 := s.wire.Load()
	at := make([]time.Time, len(v.w.Keys))
	for i, k := range v.w.Keys {
		time.Sleep(k.Gap)
		at[i] = time.Now()
		s.term.Type(k.Key)
	}
	final := refs[len(refs)-1]
	shows := func() bool {
		snaps := s.term.Snapshots()
		return len(snaps) > 0 && keylat.SameLine(snaps[len(snaps)-1].FB, final)
	}
	if !waitFor(endTimeout, shows) {
		t.Errorf("%s over %s: the last key never showed; screen:\n%s", v.w.Name, v.link.Name, strings.Join(s.term.Screen(), "\n"))
	}
	s.quiet(300*time.Millisecond, 3*time.Second)
	var snaps []keylat.Snapshot
	for _, sn := range s.term.Snapshots() {
		if !sn.At.Before(at[0]) {
			snaps = append(snaps, keylat.Snapshot{At: sn.At, FB: sn.FB})
		}
	}
	var lf logf.Func
	if debugTyping() {
		lf = t.Logf
	}
	return virtualResult{Result: keylat.Measure(at, refs, snaps, lf), wire: s.wire.Load() - wire0}
}

// typingFloors are the fractions of keys each built-in workload shows
// at once, over each link, in virtual time (TestVirtualTyping): a margin
// below what it showed when the guard was written, the same for both
// kinds of terminal.
var typingFloors = map[string]map[string]float64{
	"shell":  {"evdo": 0.82, "cs244-3g": 0.82},
	"python": {"evdo": 0.84, "cs244-3g": 0.84},
	"vim":    {"evdo": 0.79, "cs244-3g": 0.79},
	"pager":  {"evdo": 0.67, "cs244-3g": 0.67},
}

// virtualLinks are the links the virtual typing runs cross.
var virtualLinks = []string{"evdo", "cs244-3g"}

// TestVirtualTyping types each built-in workload through the real loops
// over EV-DO and CS244's 3G link, in virtual time, into a terminal that
// answers queries and one that answers none and has no alternate screen,
// and checks that each shows at least its floor of keys at once
// (typingFloors), every key eventually, and never a wrong prediction.
// Python's floor guards the prompt it draws after the shell's: before it
// was learned, every new line's first keys waited a round trip (77 %).
// Vim's and the pager's guard the editor modes the engine follows
// (predict.Features.EditorModes): without them, 58.5 % and 35.2 %, and
// less showed a count's last key, a command, as echoed text. The
// pager's also guards the scrolls predicted from what less has shown of
// its file (internal/predict/pager.go): 48.5 % without them.
func TestVirtualTyping(t *testing.T) {
	t.Parallel() // virtual time: overlaps the real-time tests' waits
	for _, name := range virtualWorkloads {
		for _, link := range virtualLinks {
			for _, kind := range []termKind{answering, plain} {
				t.Run(name+"/"+link+"/"+kind.String(), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						v := newVirtualRun(t, name, link, 1, kind)
						r := v.typing(t)
						s := r.Stats()
						t.Logf("%v, %.0f bytes/key", s, float64(r.wire)/float64(s.Keys))
						if floor := typingFloors[name][link]; s.Instant < floor {
							t.Errorf("%.1f%% of keys shown at once, want at least %.0f%%; late keys: %s", 100*s.Instant, 100*floor, lateKeys(v.w, r.Result))
						}
						if s.NeverShown > 0 {
							t.Errorf("%d keys never shown", s.NeverShown)
						}
						for i, wrong := range r.Wrong {
							if wrong {
								t.Errorf("key %d (%q) shown wrongly", i, v.w.Keys[i].Key)
							}
						}
					})
				})
			}
		}
	}
}

// lateKeys lists the keys not shown at once, with their latency.
func lateKeys(w *workload.Workload, r keylat.Result) string {
	var b strings.Builder
	for i, d := range r.Latency {
		if d < 0 || d > keylat.InstantLatency {
			fmt.Fprintf(&b, "%d %q %v; ", i, w.Keys[i].Key, d.Round(time.Millisecond))
		}
	}
	return b.String()
}

// BenchmarkVirtualTyping reports, for each built-in workload over each
// link, the fraction of keys shown at once (instant-%) and shown wrongly
// (wrong-%) in virtual time, as TestVirtualTyping measures them, and the
// CPU time of a whole run (ns/op: the two loops, the link and the
// terminal).
func BenchmarkVirtualTyping(b *testing.B) {
	for _, name := range virtualWorkloads {
		for _, link := range virtualLinks {
			b.Run(name+"/"+link, func(b *testing.B) {
				var s keylat.Stats
				for b.Loop() {
					inBubble(b, func(t *testing.T) {
						s = newVirtualRun(t, name, link, 1, plain).typing(t).Stats()
					})
				}
				b.ReportMetric(100*s.Instant, "instant-%")
				b.ReportMetric(100*s.Wrong, "wrong-%")
			})
		}
	}
}

// inBubble runs f in a synctest bubble from a benchmark: synctest.Test
// takes a *testing.T, which a benchmark does not have, so f runs as a
// test of its own (testing.RunTests, once whatever -count says). The
// benchmark fails if the test does.
func inBubble(b *testing.B, f func(t *testing.T)) {
	b.Helper()
	count := flag.Lookup("test.count")
	saved := count.Value.String()
	if err := count.Value.Set("1"); err != nil {
		b.Fatal(err)
	}
	defer count.Value.Set(saved)
	all := func(string, string) (bool, error) { return true, nil }
	if !testing.RunTests(all, []testing.InternalTest{{Name: b.Name(), F: func(t *testing.T) { synctest.Test(t, f) }}}) {
		b.Fatal("the run failed")
	}
}

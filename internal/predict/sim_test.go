package predict

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// t0 is the simulated clock's origin.
var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// sim drives an Engine the way the client's session loop does, against a
// vt.Emulator standing in for the server's screen. Client states are
// numbered from 1: the n-th typed batch travels in state n.
type sim struct {
	t    *testing.T
	e    *Engine
	em   *vt.Emulator
	now  time.Time
	sent uint64
	link Link // what the transport knows: passed to NewUserInput and Cull
}

func newSim(t *testing.T, w, h int, mode Mode, overwrite bool) *sim {
	return newSimFeatures(t, w, h, Config{Mode: mode, Overwrite: overwrite, Features: GoshFeatures})
}

// newSimFeatures is newSim for an engine configured by cfg.
func newSimFeatures(t *testing.T, w, h int, cfg Config) *sim {
	s := &sim{t: t, e: New(cfg), em: vt.NewEmulator(w, h), now: t0}
	s.link.SendInterval = 250 * time.Millisecond // a 500 ms path
	return s
}

func (s *sim) at(ms int) { s.now = t0.Add(time.Duration(ms) * time.Millisecond) }

// typ types keys at ms; they travel in the next client state.
func (s *sim) typ(ms int, keys string) {
	s.at(ms)
	s.link.Sent = s.sent
	s.e.NewUserInput(s.now, []byte(keys), s.em.Framebuffer(), s.link)
	s.sent++
	s.link.Sent = s.sent
}

// host delivers a server frame at ms: host output, and the transport and
// echo acks it carries.
func (s *sim) host(ms int, out string, acked, echo uint64) {
	s.at(ms)
	s.em.Feed([]byte(out), nil)
	s.link.Acked, s.link.EchoAck = acked, echo
}

// paint returns what the client shows: the server's screen with the
// predictions applied.
func (s *sim) paint() *vt.Framebuffer {
	s.e.Cull(s.now, s.em.Framebuffer(), s.link)
	fb := s.em.Framebuffer().Clone()
	s.e.Apply(fb)
	return fb
}

// view renders fb as text rows (trailing blanks removed), a row of '_'
// under underlined cells, and the cursor.
type view struct {
	rows []string
	ul   []string
	x, y int
}

func render(fb *vt.Framebuffer) view {
	w, h := fb.Size()
	var v view
	for y := range h {
		v.rows = append(v.rows, fb.Row(y).Text())
		var ul strings.Builder
		for x := range w {
			if fb.Cell(x, y).Rend.Attrs.Underline() != vt.UnderlineNone {
				ul.WriteByte('_')
			} else {
				ul.WriteByte(' ')
			}
		}
		v.ul = append(v.ul, strings.TrimRight(ul.String(), " "))
	}
	v.x, v.y = fb.Cursor()
	return v
}

func (v view) String() string {
	var b strings.Builder
	for y := range v.rows {
		fmt.Fprintf(&b, "  %2d |%s|\n     |%s|\n", y, v.rows[y], v.ul[y])
	}
	fmt.Fprintf(&b, "  cursor (%d,%d)", v.x, v.y)
	return b.String()
}

// step is one event of a scripted test and what the client must show
// after it.
type step struct {
	at   int    // simulated milliseconds
	keys string // typed (if not empty)
	host string // server output delivered (with acks) if keys is empty
	// acked and echo are the transport and echo acks of the server frame.
	acked, echo uint64

	// show lists the expected rows from the top (text, trailing blanks
	// removed); ul the expected underline marks ('_') of those rows.
	show []string
	ul   []string
	// cur is the expected cursor (column, row).
	cur [2]int
	// shown, for a keys step, is what Engine.Shown must report:
	// isShown or notShown (zero: not checked).
	shown int8
}

// Values of step.shown.
const (
	isShown  int8 = 1
	notShown int8 = -1
)

// run plays steps, checking the painted screen after each one.
func (s *sim) run(steps []step) {
	s.t.Helper()
	for i, st := range steps {
		if st.keys != "" {
			s.typ(st.at, st.keys)
		} else {
			s.host(st.at, st.host, st.acked, st.echo)
		}
		what := fmt.Sprintf("step %d (t=%d ms, keys %q, host %q)", i, st.at, st.keys, st.host)
		if st.shown != 0 && s.e.Shown() != (st.shown == isShown) {
			s.t.Errorf("%s: Shown() = %v", what, s.e.Shown())
		}
		v := render(s.paint())
		s.expect(what, v, st)
	}
}

func (s *sim) expect(what string, v view, st step) {
	s.t.Helper()
	bad := v.x != st.cur[0] || v.y != st.cur[1]
	for y, want := range st.show {
		if v.rows[y] != want {
			bad = true
		}
		ul := ""
		if y < len(st.ul) {
			ul = st.ul[y]
		}
		if v.ul[y] != ul {
			bad = true
		}
	}
	if bad {
		s.t.Errorf("%s: screen\n%v\nwant rows %q, underlines %q, cursor %v", what, v, st.show, st.ul, st.cur)
	}
}

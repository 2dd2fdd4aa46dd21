package session

import (
	"fmt"
	"slices"
	"time"

	"github.com/gosh-term/gosh/internal/vt"
)

// Notification bar timing (docs/protocol.md section 11.3).
const (
	serverLateAfter  = 6500 * time.Millisecond  // "Last contact" after this long without a server state
	replyLateAfter   = 10000 * time.Millisecond // "Last reply" after this long without an ack
	messageLife      = 1000 * time.Millisecond  // ordinary messages
	errorMessageLife = 3100 * time.Millisecond  // network errors
	barRefresh       = time.Second              // while counting up
	barRefreshSlow   = 3 * time.Second          // once over a minute
)

// notifier is the client's notification bar: a message and the "Last
// contact N seconds ago" warning, drawn over the top row. It is a pure
// core: the loop passes the time.
//
// notifier is not safe for concurrent use.
type notifier struct {
	hint       string // " [To quit: Ctrl-^ .]", or "" if the escape key is disabled
	msg        string
	bare       bool // show msg without the quit hint
	permanent  bool
	expires    time.Time
	lastServer time.Time // newest server state (or the start)
	lastReply  time.Time // send time of the newest state the server acked (or the start)
	via        string    // how the session is carried, when not by UDP (SetVia)
	queued     bool      // msg came from Queue: a later Queue waits for it
	waiting    []string  // Queue's messages behind msg, each shown for queueLife
}

// queueLife is how long each of Queue's messages shows, and maxWaiting
// how many may wait behind the one shown: more are dropped (the log has
// them all), so a peer's flood of notices holds the bar for half a
// minute at most.
const (
	queueLife  = errorMessageLife
	maxWaiting = 8
)

// SetVia says whether the session is carried over the relay (SSH) rather
// than UDP: the bar then says so whenever it shows.
func (n *notifier) SetVia(relayed bool) {
	n.via = ""
	if relayed {
		n.via = " [over SSH]"
	}
}

func newNotifier(now time.Time, hint string) *notifier {
	return &notifier{hint: hint, lastServer: now, lastReply: now}
}

// Set shows msg: until replaced if permanent, else for life.
func (n *notifier) Set(msg string, permanent bool, life time.Duration, now time.Time) {
	if n.permanent && !permanent {
		return
	}
	n.msg, n.permanent, n.expires, n.bare, n.queued = msg, permanent, now.Add(life), false, false
}

// Queue shows msg for queueLife once the messages Queue showed before it
// have had theirs: a forward's notices, several of which may come at once
// (a -R the server clamps, a -L it refuses), are each seen rather than
// replacing one another. A message already shown or waiting is not
// repeated.
func (n *notifier) Queue(msg string, now time.Time) {
	n.expire(now)
	switch {
	case n.msg == msg && n.queued, slices.Contains(n.waiting, msg):
		return
	case n.permanent || n.msg != "" && n.queued:
		if len(n.waiting) < maxWaiting {
			n.waiting = append(n.waiting, msg)
		}
		return
	}
	n.Set(msg, false, queueLife, now)
	n.queued = true
}

// expire drops a non-permanent message whose time is up, and shows the
// next one waiting (Queue).
func (n *notifier) expire(now time.Time) {
	if n.msg != "" && !n.permanent && !now.Before(n.expires) {
		n.msg = ""
	}
	if n.msg == "" && !n.permanent && len(n.waiting) > 0 {
		n.Set(n.waiting[0], false, queueLife, now)
		n.queued, n.waiting = true, n.waiting[1:]
	}
}

// SetBare shows msg without the quit hint until replaced (the escape key's
// command list).
func (n *notifier) SetBare(msg string) {
	n.msg, n.permanent, n.bare, n.queued = msg, true, true, false
}

// Clear removes a non-permanent message.
func (n *notifier) Clear() {
	if !n.permanent {
		n.msg = ""
	}
}

// ServerHeard records a new server state, and the send time of the newest
// local state the server has acknowledged.
func (n *notifier) ServerHeard(now, acked time.Time) {
	n.lastServer = now
	if acked.After(n.lastReply) {
		n.lastReply = acked
	}
}

// Text is the bar's text at now, or "" if no bar is shown.
func (n *notifier) Text(now time.Time) string {
	n.expire(now)
	serverLate := now.Sub(n.lastServer) > serverLateAfter
	replyLate := now.Sub(n.lastReply) > replyLateAfter
	if n.msg == "" && !serverLate && !replyLate {
		return ""
	}
	hint := n.hint
	if n.bare {
		hint = ""
	}
	what, since := "contact", n.lastServer
	if !serverLate {
		what, since = "reply", n.lastReply
	}
	elapsed := now.Sub(since)
	switch {
	case n.msg == "":
		return fmt.Sprintf("gosh: Last %s %s ago.%s%s", what, humanDuration(elapsed, false), n.via, hint)
	case !serverLate && !replyLate:
		return "gosh: " + n.msg + n.via + hint
	default:
		return fmt.Sprintf("gosh: %s (%s without %s.)%s%s", n.msg, humanDuration(elapsed, true), what, n.via, hint)
	}
}

// humanDuration formats whole seconds as mosh's bar does.
func humanDuration(d time.Duration, short bool) string {
	s := int(d / time.Second)
	switch {
	case s < 60 && short:
		return fmt.Sprintf("%d s", s)
	case s < 60:
		if s == 1 {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", s)
	case s < 3600:
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	default:
		return fmt.Sprintf("%d:%02d:%02d", s/3600, (s/60)%60, s%60)
	}
}

// NextDeadline is when the bar's text may next change, or the zero time.
func (n *notifier) NextDeadline(now time.Time) time.Time {
	n.expire(now)
	var d time.Time
	earliest := func(t time.Time) {
		if d.IsZero() || t.Before(d) {
			d = t
		}
	}
	if n.msg != "" && !n.permanent {
		earliest(n.expires)
	}
	if n.Text(now) != "" {
		step := barRefresh
		if now.Sub(n.lastServer) > time.Minute {
			step = barRefreshSlow
		}
		earliest(now.Add(step))
	} else {
		earliest(n.lastServer.Add(serverLateAfter + time.Millisecond))
		earliest(n.lastReply.Add(replyLateAfter + time.Millisecond))
	}
	return d
}

// barText and barBack are the bar's renditions: bold white on blue text over
// white-on-blue blanks (SGR 0;1;37;44).
var (
	barBack = vt.Rendition{FG: vt.PaletteColor(7), BG: vt.PaletteColor(4)}
	barText = vt.Rendition{FG: vt.PaletteColor(7), BG: vt.PaletteColor(4), Attrs: vt.AttrBold}
)

// Apply draws the bar over the top row of fb (a clone the caller owns).
func (n *notifier) Apply(fb *vt.Framebuffer, now time.Time) {
	text := n.Text(now)
	if text == "" {
		return
	}
	w := fb.Width()
	x := 0
	for _, r := range text {
		c := vt.NewCell(r, barText)
		cw := c.Width()
		if cw <= 0 {
			continue
		}
		if x+cw > w {
			break
		}
		fb.SetCell(x, 0, c)
		x += cw
	}
	for ; x < w; x++ {
		fb.SetCell(x, 0, vt.NewCell(' ', barBack))
	}
	if _, y := fb.Cursor(); y == 0 {
		fb.SetCursorVisible(false)
	}
}

package session_test

import (
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/session/sessiontest"
)

// TestScrollbackOneScreen: terminals that ignore mode 1049 (GNU screen's
// default, tmux with alternate-screen off, xterm with titeInhibit) draw a
// full-screen program over the shell's rows, and some terminals answer no
// queries. After the program exits, the screen shows the shell's rows and
// none of the program's, and the shell's lines are in the scrollback
// once each, in order. Before, with a terminal that ignored 1049 the
// client took the cursor it found on the pager's bottom row for 23 lines
// pulled back from the scrollback and pushed the pager's rows and 23 of
// the shell's lines a second time; with one that also answered nothing
// it diffed the shell's screen against the rows it had left behind the
// alternate screen, and the pager's rows stayed on the screen.
func TestScrollbackOneScreen(t *testing.T) {
	for _, tc := range []struct {
		name      string
		oneScreen bool // ignores 1049
		mute      bool // answers no queries
		resize    bool // the window changes height while the pager shows
		// The client cannot tell what the terminal did: lines it
		// pulled back from its scrollback as it grew, the pager drew
		// over, and they are gone (in order and once each, the rest).
		unsure bool
		later  bool // ignores 1049 only after the pager ran once
		// stops answering as the pager starts ("pager": the client
		// asks in vain whether the terminal has an alternate screen)
		// or exits ("q")
		muteAt string
	}{
		{name: "ignores 1049", oneScreen: true},
		{name: "ignores 1049 and answers nothing", oneScreen: true, mute: true},
		{name: "answers nothing", mute: true},
		{name: "ignores 1049, resized", oneScreen: true, resize: true},
		{name: "ignores 1049 and answers nothing, resized", oneScreen: true, mute: true, resize: true, unsure: true},
		// As after tmux set alternate-screen off: the switch back
		// finds it out.
		{name: "ignores 1049 from the second time, resized", oneScreen: true, resize: true, later: true},
		{name: "stops answering as the pager starts", oneScreen: true, muteAt: "pager"},
		{name: "ignores 1049 from the second time, stops answering as the pager exits", oneScreen: true, later: true, muteAt: "q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.quiet = !testing.Verbose()
				if tc.oneScreen && !tc.later {
					r.term.IgnoreAltScreen()
				}
				if tc.mute {
					r.term.Mute()
				}
				r.start()
				r.waitScreen(ready, 2*time.Second)
				r.term.Type("seq 100\r")
				r.waitPrompt("100", 10*time.Second)
				var tail []string
				if tc.later {
					r.term.Type("pager\r")
					r.waitScreen("page1", 5*time.Second)
					time.Sleep(time.Second)
					r.term.Type("q")
					r.term.Type("echo first\r")
					r.waitPrompt("first", 5*time.Second)
					r.term.IgnoreAltScreen()
					tail = append(tail, "gosh$ pager", "gosh$ echo first", "first")
				}
				if tc.muteAt == "pager" {
					r.term.Type("pager")
					r.waitScreen("gosh$ pager", 5*time.Second)
					time.Sleep(time.Second)
					r.term.Mute()
					r.term.Type("\r")
				} else {
					r.term.Type("pager\r")
				}
				r.waitScreen("page1", 5*time.Second)
				if tc.resize {
					for _, rows := range []int{16, 30, 20, 24} {
						time.Sleep(500 * time.Millisecond)
						r.term.SetSize(80, rows)
						r.cliSig <- session.SignalResize
						time.Sleep(500 * time.Millisecond)
						r.term.Type("x")
					}
				}
				time.Sleep(time.Second)
				if tc.muteAt == "q" {
					r.term.Mute()
				}
				r.term.Type("q")
				r.term.Type("echo after\r")
				r.waitPrompt("after", 5*time.Second)
				time.Sleep(2 * time.Second)
				wantShellScreen(t, r.term, 100, append(tail, "gosh$ pager", "gosh$ echo after", "after", "gosh$")...)
				if !tc.resize {
					// A shrink of a terminal that ignores 1049 pushes
					// the pager's rows, as under ssh and Mosh.
					for _, l := range r.term.Scrollback() {
						if strings.HasPrefix(l, "page") || l == ":" {
							t.Fatalf("the pager's row %q is in the scrollback:\n%s", l, strings.Join(r.term.Scrollback(), "\n"))
						}
					}
				}
				if !tc.unsure {
					wantLines(t, r.term, 100)
					return
				}
				nums, _ := numbersSeen(append(r.term.Scrollback(), r.term.Screen()...))
				for i := 1; i < len(nums); i++ {
					if nums[i] <= nums[i-1] {
						t.Fatalf("%d after %d: %v", nums[i], nums[i-1], nums)
					}
				}
				if len(nums) < 2 || nums[0] != 1 || nums[len(nums)-1] != 100 {
					t.Fatalf("numbers %v, want 1 to 100", nums)
				}
			})
		})
	}
}

// wantShellScreen checks that the terminal's screen shows numbers up to
// last on every row above the rows tail, and nothing below those.
func wantShellScreen(t *testing.T, term *sessiontest.Terminal, last int, tail ...string) {
	t.Helper()
	screen := term.Screen()
	end := len(screen)
	for end > 0 && screen[end-1] == "" {
		end--
	}
	ok := end >= len(tail)
	for i := 0; ok && i < end; i++ {
		if k := end - len(tail); i >= k {
			ok = screen[i] == tail[i-k]
		} else {
			ok = screen[i] == strconv.Itoa(last-(k-1-i))
		}
	}
	if !ok {
		t.Fatalf("the screen:\n%s\nwant numbers up to %d, then:\n%s", strings.Join(screen, "\n"), last, strings.Join(tail, "\n"))
	}
}

package session_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/session/sessiontest"
)

// numbersSeen returns the numbers that start lines (ignoring others) and
// whether a skipped-lines marker was among them, how many times.
func numbersSeen(lines []string) (nums []int, markers int) {
	for _, l := range lines {
		if strings.HasPrefix(l, "[gosh: ") && strings.HasSuffix(l, " lines skipped]") {
			markers++
			continue
		}
		if f := strings.Fields(l); len(f) > 0 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				nums = append(nums, n)
			}
		}
	}
	return nums, markers
}

// wantLines checks that the terminal's scrollback and screen hold the
// numbers 1..n, once each and in order, and no skipped-lines marker.
func wantLines(t *testing.T, term *sessiontest.Terminal, n int) {
	t.Helper()
	nums, markers := numbersSeen(append(term.Scrollback(), term.Screen()...))
	if markers != 0 {
		t.Errorf("%d skipped-lines markers", markers)
	}
	wantRun(t, nums, 1, n)
}

// wantRun checks that nums is exactly from..to.
func wantRun(t *testing.T, nums []int, from, to int) {
	t.Helper()
	for i := 1; i < len(nums); i++ {
		if nums[i] != nums[i-1]+1 {
			t.Logf("order breaks at %d: %v", i, nums[max(0, i-3):min(len(nums), i+3)])
		}
	}
	if len(nums) != to-from+1 {
		t.Fatalf("%d numbers, want %d..%d (%d): first %v, last %v", len(nums), from, to, to-from+1, nums[:min(5, len(nums))], nums[max(0, len(nums)-5):])
	}
	for i, n := range nums {
		if n != from+i {
			t.Fatalf("position %d holds %d, want %d (around: %v)", i, n, from+i, nums[max(0, i-3):min(len(nums), i+3)])
		}
	}
}

// TestScrollbackSeq: seq's lines end up in the terminal's own scrollback,
// in order, without duplicates or gaps, over a lossy link too; the
// terminal left its alternate screen for it.
func TestScrollbackSeq(t *testing.T) {
	for _, loss := range []float64{0, 0.2} {
		t.Run(fmt.Sprintf("loss%.0f", loss*100), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.quiet = true
				rng := rand.New(rand.NewPCG(1, 2))
				r.setDrop(func(netip.AddrPort, netip.AddrPort) bool { return rng.Float64() < loss })
				r.start()
				r.term.Type("seq 3000\r")
				r.waitPrompt("3000", 60*time.Second)
				// The lines that left the screen go to the scrollback
				// once their frames are acknowledged.
				r.waitFor("the scrollback", 30*time.Second, func() bool {
					nums, _ := numbersSeen(append(r.term.Scrollback(), r.term.Screen()...))
					return len(nums) >= 3000
				})
				wantLines(t, r.term, 3000)
			})
		})
	}
}

// TestScrollbackSmall: with a history smaller than the output, the lines
// the server no longer had show up as one marker line, and the tail is
// exact.
func TestScrollbackSmall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.startServer(session.ServerConfig{Scrollback: 100})
		r.startClient(session.ClientConfig{})
		r.waitScreen(ready, 2*time.Second)
		r.dropAll() // the client sees nothing while seq runs
		r.term.Type("seq 5000\r")
		time.Sleep(5 * time.Second)
		r.restore()
		r.waitPrompt("5000", 30*time.Second)
		time.Sleep(5 * time.Second)
		all := append(r.term.Scrollback(), r.term.Screen()...)
		marker := -1
		for i, l := range all {
			if strings.HasSuffix(l, " lines skipped]") {
				if marker >= 0 {
					t.Fatalf("a second marker:\n%s", strings.Join(all, "\n"))
				}
				marker = i
			}
		}
		if marker < 0 {
			t.Fatal("no marker")
		}
		// Before the marker: the lines in flight when the link went
		// down. After it: the 100 lines of the history, then the 23
		// lines on the screen above the prompt.
		head, _ := numbersSeen(all[:marker])
		tail, _ := numbersSeen(all[marker+1:])
		wantRun(t, head, 1, len(head))
		wantRun(t, tail, 5000-100-23+1, 5000)
	})
}

// TestScrollbackDisabled: with the server's history off, nothing
// reaches the scrollback but what frames scroll themselves (nothing:
// KeepHistory), and the session works.
func TestScrollbackDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = true
		r.startServer(session.ServerConfig{Scrollback: session.NoScrollback})
		r.startClient(session.ClientConfig{})
		r.waitScreen(ready, 2*time.Second)
		r.term.Type("seq 200\r")
		r.waitPrompt("200", 30*time.Second)
		if sb := r.term.Scrollback(); len(sb) != 0 {
			t.Fatalf("%d lines in the scrollback with the history off", len(sb))
		}
	})
}

// TestScrollbackResizes: the terminal changes height as xterm and tmux
// do (rows go into its scrollback when it shrinks, come back when it
// grows), sometimes several times before the client hears of it, as a
// dragged window does; the lines stay in order in its scrollback, each
// once, whether output is running or not. A terminal that does not report
// its cursor gets the same for one change at a time.
func TestScrollbackResizes(t *testing.T) {
	steps := [][]int{{40}, {46, 30}, {20}, {26, 18}, {34, 16, 24}, {25, 26, 27, 28}, {27, 22, 19}, {40}}
	for _, tc := range []struct {
		name   string
		mute   bool
		cmd    string
		n      int
		during bool // resize while the output runs
		race   bool // resize just after the terminal answered a query
		steps  [][]int
		delay  time.Duration // one way; 0: the rig's
	}{
		{"between outputs", false, "seq", 3000, false, false, steps, 0},
		{"during output", false, "slowseq", 1500, true, false, steps, 0},
		{"between answer and paint", false, "slowseq", 1500, true, true, steps, 0},
		{"mute terminal", true, "seq", 3000, false, false, [][]int{{30}, {20}, {26}, {18}, {24}}, 0},
		// The server sends at most 1000 lines a round trip: the client
		// catches up for seconds, showing the newest screen meanwhile.
		{"catching up with a flood", false, "seq", 9000, true, false, steps, 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.quiet = !testing.Verbose()
				if tc.mute {
					r.term.Mute()
				}
				if tc.delay > 0 {
					r.delay = tc.delay
				}
				r.start()
				r.waitScreen(ready, 2*time.Second)
				r.term.Type(fmt.Sprintf("%s %d\r", tc.cmd, tc.n))
				resize := func() {
					for _, sizes := range tc.steps {
						// An instant when nothing else runs: a resize
						// in the moment between the terminal's answer
						// and the paint is beyond what the client can
						// know (see resize.go).
						time.Sleep(500*time.Millisecond + time.Microsecond)
						if tc.race {
							r.term.ResizeAfterAnswer(sizes...)
							time.Sleep(50 * time.Millisecond)
						}
						for _, rows := range sizes {
							if !tc.race {
								r.term.SetSize(80, rows)
							}
						}
						r.cliSig <- session.SignalResize
					}
				}
				if tc.during {
					resize()
				}
				r.waitPrompt(strconv.Itoa(tc.n), 60*time.Second)
				if !tc.during {
					r.waitFor("the scrollback", 30*time.Second, func() bool {
						nums, _ := numbersSeen(append(r.term.Scrollback(), r.term.Screen()...))
						return len(nums) >= tc.n
					})
					resize()
				}
				time.Sleep(5 * time.Second)
				wantLines(t, r.term, tc.n)
			})
		})
	}
}

// TestScrollbackWidths: the window changes width while output runs (it
// was cmd/gosh's tmux test TestE2EScrollbackResize): the lines still
// arrive in order, each once.
func TestScrollbackWidths(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = !testing.Verbose()
		r.start()
		r.waitScreen(ready, 2*time.Second)
		r.term.Type("slowseq 3000\r")
		for _, cols := range []int{100, 70} {
			time.Sleep(5 * time.Second) // a line every 5 ms: a third of them each
			r.term.SetSize(cols, 24)
			r.cliSig <- session.SignalResize
		}
		r.waitPrompt("3000", 60*time.Second)
		time.Sleep(5 * time.Second)
		wantLines(t, r.term, 3000)
	})
}

// TestScrollbackAltScreen: the window shrinks and grows while a
// full-screen program shows. The client mirrors the server's alternate
// screen onto the terminal's, so none of the program's rows reach the
// terminal's scrollback, and when the program exits the shell's lines
// are there once each, in order: those a shrink moved from the primary
// screen behind the program into the terminal's scrollback are not
// pushed again. Before the client mirrored the alternate screen, the
// pager's rows went into the scrollback at every shrink.
func TestScrollbackAltScreen(t *testing.T) {
	for _, mute := range []bool{false, true} {
		t.Run(fmt.Sprintf("mute=%v", mute), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.quiet = !testing.Verbose()
				if mute {
					r.term.Mute()
				}
				r.start()
				r.waitScreen(ready, 2*time.Second)
				r.term.Type("seq 100\r")
				r.waitPrompt("100", 10*time.Second)
				r.term.Type("pager\r")
				r.waitScreen("page1", 5*time.Second)
				for _, rows := range []int{16, 30, 12, 24} {
					time.Sleep(500 * time.Millisecond)
					r.term.SetSize(80, rows)
					r.cliSig <- session.SignalResize
					time.Sleep(500 * time.Millisecond)
					r.term.Type("x")
				}
				time.Sleep(time.Second)
				r.term.Type("q")
				r.term.Type("echo done\r")
				r.waitPrompt("done", 5*time.Second)
				time.Sleep(2 * time.Second)
				sb := r.term.Scrollback()
				for _, l := range sb {
					if strings.HasPrefix(l, "page") || l == ":" {
						t.Fatalf("the pager's row %q is in the scrollback:\n%s", l, strings.Join(sb, "\n"))
					}
				}
				wantLines(t, r.term, 100)
			})
		})
	}
}

// TestScrollPushedFollowsWrites: the position the client reports for the
// session's record (ScrollPushed, kept for a resume) is never ahead of the
// terminal's scrollback by more than the lines of the write under way: a
// client killed while it catches up with a flood resumes with the lines
// it had received but not pushed still to come. It reported every line
// it received, up to 1000 ahead, before.
func TestScrollPushedFollowsWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = !testing.Verbose()
		r.delay = 250 * time.Millisecond
		var last uint64
		r.startServer(session.ServerConfig{})
		r.startClient(session.ClientConfig{ScrollPushed: func(next uint64) {
			_, rows := r.term.Size()
			if has := uint64(len(r.term.Scrollback())); next > has+uint64(rows) {
				t.Errorf("reported %d lines in the scrollback, which holds %d", next, has)
			}
			last = next
		}})
		r.waitScreen(ready, 2*time.Second)
		r.term.Type("seq 2500\r")
		r.waitFor("the scrollback", 60*time.Second, func() bool {
			nums, _ := numbersSeen(r.term.Scrollback())
			return len(nums) >= 2470
		})
		time.Sleep(2 * time.Second)
		if has := uint64(len(r.term.Scrollback())); last != has {
			t.Errorf("last reported %d, the scrollback holds %d", last, has)
		}
	})
}

// TestScrollbackEndInAltScreen: a session that ends while a full-screen
// program shows leaves the terminal on its primary screen, with the
// shell's screen and the exit message below its last row.
func TestScrollbackEndInAltScreen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.start()
		r.term.Type("echo before\r")
		r.waitPrompt("before", 5*time.Second)
		r.term.Type("pager\r")
		r.waitScreen("page1", 5*time.Second)
		time.Sleep(time.Second)
		r.shell.Close()
		r.serverEnd(5 * time.Second)
		r.clientEnd(5 * time.Second)
		// The pager's command line shows as far as the client painted it
		// before the pager's screen came.
		screen := strings.Join(r.term.Screen(), "\n")
		if !regexp.MustCompile(`before\ngosh\$ p[ager]*\n\[gosh is exiting\.\]`).MatchString(screen) || strings.Contains(screen, "page1") {
			t.Errorf("the screen after the end:\n%s", screen)
		}
	})
}

// TestScrollbackResizeMidWrite: the terminal reads 4 KiB at a time, as
// xterm and tmux do, and its window changes height between two reads of
// one write: the repaint a resize brings, on a wide, full screen, is
// larger than that. The client keeps each write smaller than a read, so
// the change falls between writes, where its query sees it, and the lines
// stay once each, in order.
func TestScrollbackResizeMidWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		r.quiet = !testing.Verbose()
		r.term.SetSize(160, 40)
		r.start()
		r.term.SetReadSize(4096)
		r.term.Type("wideseq 300\r")
		r.waitPrompt(fmt.Sprintf("300 %s", strings.Repeat("x", 120)), 10*time.Second)
		time.Sleep(2 * time.Second)
		for _, step := range [][2]int{{30, 46}, {44, 24}, {20, 36}, {40, 40}} {
			r.term.ResizeMidWrite(step[1])
			r.term.SetSize(160, step[0])
			r.cliSig <- session.SignalResize
			time.Sleep(time.Second)
			r.cliSig <- session.SignalResize
			time.Sleep(time.Second)
		}
		if n := r.term.MidWriteResizes(); n != 4 {
			t.Fatalf("%d resizes during a repaint, want 4", n)
		}
		r.term.Type("echo done\r")
		r.waitPrompt("done", 5*time.Second)
		time.Sleep(2 * time.Second)
		wantLines(t, r.term, 300)
	})
}

// TestScrollbackResizeBeforeWrite: the terminal shrinks just before it
// reads a paint (an echo), and again just before it reads each of the
// next (the repaints the first brings), as when a window is dragged
// faster than the client follows. Two shrinks: the client replays the
// first paint on the rows as they had moved, so it knows which rows the
// second shrink pushed, and skips those lines when the server sends them
// (2 lines twice before). Three: the second paint, made for the size
// before the second shrink, draws again at the top the rows that shrink
// pushed; the client parks the cursor on the top row while the window is
// being resized, so the third shrink pushes none of them a second time (2
// lines twice before).
func TestScrollbackResizeBeforeWrite(t *testing.T) {
	for _, heights := range [][]int{{22, 20}, {22, 20, 18}, {22, 20, 18, 16, 14}} {
		t.Run(fmt.Sprint(heights), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.quiet = !testing.Verbose()
				r.start()
				r.term.Type("seq 100\r")
				r.waitPrompt("100", 10*time.Second)
				time.Sleep(2 * time.Second)
				r.term.ResizeBeforeWrites(heights...)
				r.term.Type("e")
				time.Sleep(time.Second)
				r.cliSig <- session.SignalResize
				time.Sleep(time.Second)
				// The cursor is back after the drag, after the "e".
				screen := r.term.Screen()
				if x, y, visible := r.term.Cursor(); !visible || y >= len(screen) || screen[y] != "gosh$ e" || x != len("gosh$ e") {
					t.Errorf("the cursor is at %d,%d (showing %v), on %q", x, y, visible, screen[min(y, len(screen)-1)])
				}
				r.term.Type("cho done\r")
				r.waitPrompt("done", 5*time.Second)
				time.Sleep(2 * time.Second)
				wantLines(t, r.term, 100)
			})
		})
	}
}

// TestScrollbackFloodCtrlC: Ctrl-C in a flood that fills a 250 kbit/s
// bottleneck, over a link that loses one of the server's frames while the
// client catches up with the scrollback. The prompt is back within two
// and a half round trips of the Ctrl-C: while the client catches up, the
// server holds scrollback lines back until the client has the screen, so
// its frames do not depend on scrollback in flight and the frame that
// heals the loss does not carry up to 32 KiB of lines through the
// bottleneck ahead of the screen. Before, the prompt came 600 ms after the
// Ctrl-C here, and 1.25 s on CS244's 3G link (gosh bench paper) instead
// of 0.47.
func TestScrollbackFloodCtrlC(t *testing.T) {
	for _, tc := range []struct {
		name  string
		width int     // y's after each line's number
		rate  float64 // the server's bottleneck, bits per second (0: none)
		lose  time.Duration
	}{
		{"250 kbit/s", 120, 2.5e5, 0},
		{"250 kbit/s, loss 60ms before", 120, 2.5e5, 60 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t)
				r.quiet = !testing.Verbose()
				const oneWay = 100 * time.Millisecond
				var mu sync.Mutex
				var free time.Time // when the bottleneck is next idle
				r.net.Delay = func(from, _ netip.AddrPort, b []byte) time.Duration {
					if from != serverAddr || tc.rate == 0 {
						return oneWay
					}
					mu.Lock()
					defer mu.Unlock()
					now := time.Now()
					free = later(now, free).Add(time.Duration(float64((len(b)+28)*8) / tc.rate * float64(time.Second)))
					return free.Sub(now) + oneWay
				}
				r.start()
				r.term.Type(fmt.Sprintf("yes %d\r", tc.width))
				time.Sleep(1500*time.Millisecond - tc.lose)
				var lost atomic.Bool
				r.setDrop(func(from, _ netip.AddrPort) bool { return from == serverAddr && lost.CompareAndSwap(false, true) })
				time.Sleep(tc.lose)
				typed := time.Now()
				r.term.Type("\x03")
				r.waitPrompt("^C", 10*time.Second)
				d := time.Since(typed)
				t.Logf("prompt %v after Ctrl-C", d)
				if !lost.Load() {
					t.Fatal("no frame was lost")
				}
				if limit := 5 * oneWay; d > limit {
					t.Errorf("the prompt came %v after Ctrl-C, want within two and a half round trips (%v)", d, limit)
				}
			})
		})
	}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

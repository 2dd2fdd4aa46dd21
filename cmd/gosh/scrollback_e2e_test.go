//go:build linux

package main

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// numbers returns the numbers that start lines of h, and how many
// skipped-lines markers h holds.
func numbers(h []string) (nums []int, markers int) {
	for _, l := range h {
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

// isRun reports whether nums is exactly from..to, and if not, why.
func isRun(nums []int, from, to int) (bool, string) {
	if len(nums) != to-from+1 {
		return false, fmt.Sprintf("%d numbers, want %d (%d..%d)", len(nums), to-from+1, from, to)
	}
	for i, n := range nums {
		if n != from+i {
			return false, fmt.Sprintf("position %d holds %d, want %d: %v", i, n, from+i, nums[max(0, i-3):min(len(nums), i+4)])
		}
	}
	return true, ""
}

// waitHistory waits until the pane's scrollback and screen hold the
// numbers from..to and nothing else numeric, with markers markers.
func waitHistory(t *testing.T, tm *e2etest.Tmux, timeout time.Duration, from, to, markers int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		nums, m := numbers(tm.History())
		ok, why := isRun(nums, from, to)
		if ok && m == markers {
			return
		}
		if time.Now().After(deadline) {
			for i := 1; i < len(nums); i++ {
				if nums[i] != nums[i-1]+1 {
					t.Logf("order breaks at %d: %v", i, nums[max(0, i-3):min(len(nums), i+3)])
				}
			}
			t.Fatalf("scrollback: %s; %d markers, want %d", why, m, markers)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// seqDone waits for the prompt after "seq 1 n".
func seqDone(t testing.TB, tm *e2etest.Tmux, n int, timeout time.Duration) {
	t.Helper()
	tm.WaitFor(timeout, "the prompt after seq", func(s []string) bool {
		i := lastNonEmpty(s)
		return i > 0 && s[i] == prompt && s[i-1] == strconv.Itoa(n)
	})
}

// TestE2EScrollbackSeq: seq's 5000 lines, over a lossy, delayed link,
// end up in the user's terminal's own scrollback in order, without
// duplicates or gaps, as under ssh.
func TestE2EScrollbackSeq(t *testing.T) {
	t.Parallel()
	_, relay, tm, _ := relayedSession(t)
	relay.SetDelay(30*time.Millisecond, 30*time.Millisecond)
	relay.SetLoss(0.1, 0.1)
	tm.Send("seq 1 5000\r")
	seqDone(t, tm, 5000, 60*time.Second)
	waitHistory(t, tm, 30*time.Second, 1, 5000, 0)
	tm.Send("exit\r")
	tm.WaitForText(10*time.Second, "client-exit=0")
}

// TestE2EScrollbackSmall: with gosh server new --scrollback 200 and the
// link down while seq runs, the lines the server dropped show up once as
// a marker, and the tail after it is exact. (Before the marker come the
// lines that were in flight when the link went down, in order.)
func TestE2EScrollbackSmall(t *testing.T) {
	t.Parallel()
	argv := append([]string{goshBin, "server", "new", "-i", "127.0.0.1", "-p", "0", "--scrollback", "200", "--"}, shellArgv...)
	server := e2etest.StartServer(t, localeEnv, argv...)
	relay := e2etest.NewRelay(t, relayTarget(server))
	tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(t.TempDir(), goshClientVia(server, relay))...)
	tm.WaitForText(10*time.Second, prompt)
	// The command reaches the shell, then the link goes down for all
	// of seq's output.
	tm.Send("echo go-$((1+2)); sleep 2; seq 1 5000\r")
	tm.WaitFor(10*time.Second, "the command's first output", func(s []string) bool {
		return slices.Contains(s, "go-3")
	})
	relay.SetDrop(true)
	time.Sleep(7 * time.Second)
	relay.SetDrop(false)
	seqDone(t, tm, 5000, 30*time.Second)
	// 23 rows show 4978..5000 (the prompt is the 24th), the 200 lines
	// before them come from the server's history.
	deadline := time.Now().Add(30 * time.Second)
	for {
		h := tm.History()
		marker := -1
		for i, l := range h {
			if strings.HasPrefix(l, "[gosh: ") && strings.HasSuffix(l, " lines skipped]") {
				if marker >= 0 {
					t.Fatalf("a second marker at line %d:\n%s", i, strings.Join(h, "\n"))
				}
				marker = i
			}
		}
		if marker >= 0 {
			head, _ := numbers(h[:marker])
			tail, _ := numbers(h[marker+1:])
			okHead, whyHead := isRun(head, 1, len(head))
			okTail, whyTail := isRun(tail, 5000-23-200+1, 5000)
			if okHead && okTail {
				t.Logf("%d lines before the marker %q", len(head), h[marker])
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("before the marker: %s; after it: %s", whyHead, whyTail)
			}
		} else if time.Now().After(deadline) {
			t.Fatalf("no marker:\n%s", strings.Join(h, "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// vimWords starts a session that prints 1..40 and then shows in vim a
// file of the lines word1 to word300, whose name it returns.
func vimWords(t *testing.T) (*e2etest.Tmux, string) {
	t.Helper()
	_, tm, dir := goshSession(t)
	file := filepath.Join(dir, "words.txt")
	tm.Send(fmt.Sprintf("seq 1 40; seq -f 'word%%g' 1 300 > %s\r", file))
	seqDone(t, tm, 40, 10*time.Second)
	tm.Send("vim -u NONE -N -n " + file + "\r")
	tm.WaitForText(10*time.Second, "word1")
	return tm, file
}

// TestE2EScrollbackFullScreen: vim and less leave no trace in the
// scrollback; what was there stays, once.
func TestE2EScrollbackFullScreen(t *testing.T) {
	t.Parallel()
	e2etest.RequireCommands(t, "vim", "less")
	tm, file := vimWords(t)
	for range 5 {
		tm.SendKey("C-f")
	}
	tm.Send("Gonew line in vim")
	tm.SendKey("Escape")
	tm.WaitForText(10*time.Second, "new line in vim")
	tm.Send(":q!\r")
	tm.WaitFor(10*time.Second, "the prompt after vim", func(s []string) bool { return s[lastNonEmpty(s)] == prompt })
	tm.Send("less " + file + "\r")
	tm.WaitForText(10*time.Second, "word1")
	tm.Send("     G")
	tm.WaitForText(10*time.Second, "word300")
	tm.Send("q")
	tm.WaitFor(10*time.Second, "the prompt after less", func(s []string) bool { return s[lastNonEmpty(s)] == prompt })
	tm.Send("echo done-$((2+3))\r")
	tm.WaitForText(10*time.Second, "done-5")
	time.Sleep(time.Second)
	h := tm.History()
	for _, l := range h {
		if strings.HasPrefix(l, "word") || l == "new line in vim" || l == "~" {
			t.Fatalf("a full-screen program's line %q reached the scrollback:\n%s", l, strings.Join(h, "\n"))
		}
	}
	nums, _ := numbers(h)
	if ok, why := isRun(nums, 1, 40); !ok {
		t.Fatalf("scrollback: %s", why)
	}
}

// TestE2EScrollbackResize: the window changes width while output runs;
// the lines still arrive in order, each once.
func TestE2EScrollbackResize(t *testing.T) {
	t.Parallel()
	_, relay, tm, _ := relayedSession(t)
	relay.SetDelay(20*time.Millisecond, 20*time.Millisecond)
	tm.Send("for i in $(seq 1 3000); do echo $i; [ $i = 1000 ] && sleep 1; [ $i = 2000 ] && sleep 1; done\r")
	tm.WaitForText(10*time.Second, "1000")
	tm.Resize(100, 24)
	tm.WaitForText(10*time.Second, "2000")
	tm.Resize(70, 24)
	seqDone(t, tm, 3000, 60*time.Second)
	waitHistory(t, tm, 30*time.Second, 1, 3000, 0)
}

// TestE2EScrollbackHeight: between outputs the window grows, shrinks,
// changes height twice at once, then is dragged in 10 ms steps. tmux,
// like xterm, pulls rows back from its scrollback when it grows and
// pushes rows into it when it shrinks, at each step, but tells the client
// only now and then; so the client asks tmux where its cursor is before
// each paint, puts back what a growth took and skips what a shrink pushed
// (the server shrinks the same way, keeping the cursor's row). Without
// that (the rule alone, by the sizes the client heard of) the two changes
// at once left 10 lines twice, every time; now they leave none, and the
// drag none on an idle machine.
func TestE2EScrollbackHeight(t *testing.T) {
	t.Parallel()
	_, relay, tm, _ := relayedSession(t)
	relay.SetDelay(20*time.Millisecond, 20*time.Millisecond)
	tm.Send("seq 1 3000\r")
	seqDone(t, tm, 3000, 10*time.Second)
	waitHistory(t, tm, 30*time.Second, 1, 3000, 0)
	for _, rows := range [][]int{{30}, {20}, {30, 20}} {
		for _, r := range rows {
			tm.Resize(80, r)
		}
		time.Sleep(time.Second)
		waitHistory(t, tm, 10*time.Second, 1, 3000, 0)
	}
	drag(tm, 80, 20, 34, 1, 10*time.Millisecond)
	drag(tm, 80, 34, 16, 1, 10*time.Millisecond)
	time.Sleep(time.Second)
	tm.Send("seq 3001 3100\r")
	seqDone(t, tm, 3100, 10*time.Second)
	waitHistoryTwice(t, tm, 10*time.Second, 3100, 0, 0)
}

// drag changes the window's height from one number of rows to another, by
// step rows every pause, as a window dragged with the mouse.
func drag(tm *e2etest.Tmux, cols, from, to, step int, pause time.Duration) {
	if to < from {
		step = -step
	}
	for r := from; (step > 0 && r <= to) || (step < 0 && r >= to); r += step {
		tm.Resize(cols, r)
		time.Sleep(pause)
	}
}

// TestE2EScrollbackHeightDuringOutput: the height changes while a loop
// prints a line every half millisecond or so: the lines come out exactly
// once, in order.
func TestE2EScrollbackHeightDuringOutput(t *testing.T) {
	t.Parallel()
	heightsDuring(t, 20*time.Millisecond, "for i in $(seq 1 4000); do echo $i; sleep 0.0005; done", 4000,
		700*time.Millisecond, 30, 20, 26, 18, 24)
}

// heightsDuring runs cmd, which prints the numbers 1..n, in a session
// whose link delays each direction by delay, and sets the window's height
// to each of heights in turn, one every gap, while it runs: every number
// must come out once, in order.
func heightsDuring(t *testing.T, delay time.Duration, cmd string, n int, gap time.Duration, heights ...int) {
	t.Helper()
	_, relay, tm, _ := relayedSession(t)
	relay.SetDelay(delay, delay)
	tm.Send(cmd + "\r")
	for _, r := range heights {
		time.Sleep(gap)
		tm.Resize(80, r)
	}
	seqDone(t, tm, n, 60*time.Second)
	waitHistoryTwice(t, tm, 30*time.Second, n, 0, 0)
}

// waitHistoryTwice waits until the pane's scrollback and screen hold each
// of the numbers 1..to, in order apart from at most maxBreaks places, with
// at most maxTwice lines twice: a resize in the moment between the
// terminal's answer and a paint (rare, but a race detector and a loaded
// machine make it likely) can leave that paint's lines twice, or put the
// lines the terminal took back after them (docs/protocol.md 12.3).
// Nothing may be lost.
func waitHistoryTwice(t *testing.T, tm *e2etest.Tmux, timeout time.Duration, to, maxTwice, maxBreaks int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		nums, markers := numbers(tm.History())
		var firsts []int
		seen := map[int]bool{}
		breaks := 0
		for _, n := range nums {
			if !seen[n] {
				seen[n] = true
				if len(firsts) > 0 && n < firsts[len(firsts)-1] {
					breaks++
				}
				firsts = append(firsts, n)
			}
		}
		slices.Sort(firsts)
		ok, why := isRun(firsts, 1, to)
		twice := len(nums) - len(firsts)
		if ok && markers == 0 && twice <= maxTwice && breaks <= maxBreaks {
			if twice > 0 || breaks > 0 {
				t.Logf("%d lines twice, %d places out of order", twice, breaks)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("scrollback: %s; %d lines twice (at most %d); %d places out of order (at most %d); %d markers",
				why, twice, maxTwice, breaks, maxBreaks, markers)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestE2EScrollbackStockPeers: against stock mosh-server, gosh connect
// keeps Mosh's behaviour (the alternate screen: nothing in scrollback),
// and stock mosh-client against gosh server too.
func TestE2EScrollbackStockPeers(t *testing.T) {
	t.Parallel()
	e2etest.RequireCommands(t, "mosh-server", "mosh-client")
	for _, tc := range []struct {
		name   string
		client func(*e2etest.Server) string
		server func(*testing.T) *e2etest.Server
	}{
		{"gosh client, mosh-server", goshClient, startMoshServer},
		{"mosh-client, gosh server", moshClient, func(t *testing.T) *e2etest.Server { return startGoshServer(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			server := tc.server(t)
			tm := e2etest.NewTmux(t, 80, 24, localeEnv, clientWrapper(t.TempDir(), tc.client(server))...)
			tm.WaitForText(10*time.Second, prompt)
			tm.Send("seq 1 100\r")
			seqDone(t, tm, 100, 10*time.Second)
			if nums, _ := numbers(tm.History()); len(nums) > 24 {
				t.Fatalf("%d numbers in the pane and its scrollback: the session left the alternate screen", len(nums))
			}
		})
	}
}

// relayTarget is the server's UDP address on loopback.
func relayTarget(s *e2etest.Server) netip.AddrPort {
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), s.Port)
}

// TestE2EScrollbackFullScreenResize: the window shrinks and grows while
// vim is open. The session mirrors vim's alternate screen onto the
// terminal's, so the terminal pushes none of vim's rows into its
// scrollback, and what it did with the shell's rows behind vim is
// accounted for when vim exits: the numbers stay once each, in order.
func TestE2EScrollbackFullScreenResize(t *testing.T) {
	t.Parallel()
	e2etest.RequireCommands(t, "vim")
	tm, _ := vimWords(t)
	for _, r := range []int{12, 30, 16} {
		tm.Send("L") // the cursor on the bottom row: a shrink pushes top rows
		time.Sleep(300 * time.Millisecond)
		tm.Resize(80, r)
		time.Sleep(700 * time.Millisecond)
		tm.SendKey("C-f")
		time.Sleep(300 * time.Millisecond)
	}
	tm.Send(":q!\r")
	tm.WaitFor(10*time.Second, "the prompt after vim", func(s []string) bool { return s[lastNonEmpty(s)] == prompt })
	tm.Send("seq 41 80\r")
	seqDone(t, tm, 80, 10*time.Second)
	time.Sleep(time.Second)
	h := tm.History()
	for _, l := range h {
		if strings.HasPrefix(l, "word") || l == "~" {
			t.Fatalf("vim's line %q reached the scrollback:\n%s", l, strings.Join(h, "\n"))
		}
	}
	waitHistory(t, tm, 10*time.Second, 1, 80, 0)
}

// TestE2EScrollbackCatchingUp: the window changes height while the client
// catches up with a flood over a slow link (the server sends at most 1000
// lines a round trip, and shows its newest screen meanwhile): the lines
// still come out exactly once, in order. The client shows the newest
// screen on the terminal's alternate screen until it has every line, so
// the terminal pushes none of it ahead of the older lines; before, this
// left 6 lines twice and the order broken.
func TestE2EScrollbackCatchingUp(t *testing.T) {
	t.Parallel()
	heightsDuring(t, 500*time.Millisecond, "seq 1 9900", 9900, 400*time.Millisecond, 18, 30, 20, 24, 16, 24)
}

// TestE2EScrollbackWideDrag: a wide window full of long lines is dragged
// shorter and taller, a step every 15 ms: each step brings a repaint of
// about 8 KiB, which the client draws in writes of at most 2 KiB, and the
// lines stay once each, in order. Under the race detector the client
// falls behind the drag, and a repaint made for the size before a step
// drew again, at the top, rows the terminal had just pushed, which the
// next step pushed a second time (12 to 20 lines twice in every run);
// while the window is being resized the client now parks the cursor on
// the top row, so that a shrink pushes nothing. Whether tmux takes a step
// in the middle of a write is up to it; the session-loop test
// TestScrollbackResizeMidWrite makes sure.
func TestE2EScrollbackWideDrag(t *testing.T) {
	t.Parallel()
	_, relay, tm, _ := relayedSession(t)
	relay.SetDelay(20*time.Millisecond, 20*time.Millisecond)
	tm.Resize(200, 50)
	time.Sleep(time.Second)
	tm.Send("for i in $(seq 1 300); do printf '%d %0150d\\n' $i 0; done\r")
	tm.WaitFor(20*time.Second, "the prompt after the lines", func(s []string) bool {
		i := lastNonEmpty(s)
		return i > 0 && s[i] == prompt && strings.HasPrefix(s[i-1], "300 ")
	})
	time.Sleep(time.Second)
	drag(tm, 200, 50, 26, 2, 15*time.Millisecond)
	drag(tm, 200, 26, 56, 3, 15*time.Millisecond)
	time.Sleep(time.Second)
	tm.Send("seq 301 400\r")
	seqDone(t, tm, 400, 10*time.Second)
	waitHistoryTwice(t, tm, 10*time.Second, 400, 0, 0)
}

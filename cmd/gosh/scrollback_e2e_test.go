//go:build linux

package main

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// These tmux tests are smoke tests of the wiring: the lines reach tmux's
// own history (TestE2EScrollbackSeq), and a resize's answers come back
// from tmux (TestE2EScrollbackHeight). The view's logic is tested in
// milliseconds by internal/session's synctest rig, whose
// sessiontest.Terminal moves rows as xterm and tmux do when they resize:
// a small history's marker (TestScrollbackSmall), full-screen programs
// with and without resizes (TestScrollbackAltScreen), width changes
// (TestScrollbackWidths), heights changing between and during output and
// while catching up with a flood (TestScrollbackResizes), a drag that
// lands between the reads of a write or just before one
// (TestScrollbackResizeMidWrite, TestScrollbackResizeBeforeWrite).

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
	for i, rows := range [][]int{{30}, {20}, {30, 20}} {
		for _, r := range rows {
			tm.Resize(80, r)
		}
		painted(t, tm, i)
		waitHistory(t, tm, 10*time.Second, 1, 3000, 0)
	}
	drag(tm, 80, 20, 34, 1, 10*time.Millisecond)
	drag(tm, 80, 34, 16, 1, 10*time.Millisecond)
	painted(t, tm, 3)
	tm.Send("seq 3001 3100\r")
	seqDone(t, tm, 3100, 10*time.Second)
	waitHistoryTwice(t, tm, 10*time.Second, 3100, 0, 0)
}

// painted waits until the client has painted at the window's new size: a
// command typed after the resize has its output, "resized-n" (the typed
// line holds no such word), on the row above the prompt. The client reads
// the size before every paint, so the output shows only in a paint made
// for the new size, and whatever the terminal moved meanwhile has been
// asked about; waitHistory then polls the result.
func painted(t *testing.T, tm *e2etest.Tmux, n int) {
	t.Helper()
	word := fmt.Sprintf("resized-%d", n)
	tm.Send(fmt.Sprintf("echo resized-$((%d+0))\r", n))
	tm.WaitFor(10*time.Second, word, func(s []string) bool {
		i := lastNonEmpty(s)
		return i > 0 && s[i] == prompt && s[i-1] == word
	})
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

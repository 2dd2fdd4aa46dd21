//go:build linux

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// TestE2EScrollbackOneScreen: in tmux with alternate-screen off, which
// ignores mode 1049 as GNU screen does by default, vim draws over the
// shell's rows; after it exits the screen shows the shell's rows and a
// clean prompt, none of vim's rows are on it or in the scrollback, and
// the lines before are there once each. Before, the client took the
// cursor it found on vim's bottom row after switching back for lines
// pulled back from the scrollback, and pushed vim's screen into the
// scrollback, among the shell's lines. It runs gosh connect --local and
// gosh server new.
func TestE2EScrollbackOneScreen(t *testing.T) {
	t.Parallel()
	e2etest.RequireCommands(t, "vim")
	for _, tc := range []struct {
		name   string
		client func(t *testing.T) string
	}{
		{"local", func(*testing.T) string {
			var q []string
			for _, a := range shellArgv {
				q = append(q, "'"+a+"'") // the prompt ends in a blank
			}
			return goshBin + " connect --local -- " + strings.Join(q, " ")
		}},
		{"server", func(t *testing.T) string { return goshClient(startGoshServer(t)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			// gosh connect --local keeps a session record there.
			env := append([]string{"HOME=" + dir, "XDG_STATE_HOME=" + dir}, localeEnv...)
			tm := e2etest.NewTmuxConf(t, "set -g alternate-screen off", 80, 24, env, clientWrapper(dir, tc.client(t))...)
			tm.WaitForText(10*time.Second, prompt)
			tm.Send("seq 101 140\r") // lines in the terminal's scrollback
			seqDone(t, tm, 140, 10*time.Second)
			tm.Send("seq 1 5\r")
			seqDone(t, tm, 5, 10*time.Second)
			tm.Send("vim -u NONE -N -n\r")
			// A screen is painted in bands: vim shows when all of its
			// rows do, and has gone when none does.
			tildes := func(s []string) int {
				n := 0
				for _, r := range s {
					if strings.HasPrefix(r, "~") {
						n++
					}
				}
				return n
			}
			tm.WaitFor(10*time.Second, "vim", func(s []string) bool { return tildes(s) == len(s)-2 })
			tm.Send(":q\r")
			tm.WaitFor(10*time.Second, "the prompt after vim", func(s []string) bool {
				return s[lastNonEmpty(s)] == prompt && tildes(s) == 0
			})
			tm.Send("echo after-vim\r")
			tm.WaitFor(10*time.Second, "the prompt after echo", func(s []string) bool {
				i := lastNonEmpty(s)
				return i > 0 && s[i] == prompt && s[i-1] == "after-vim"
			})
			time.Sleep(time.Second)
			screen, h := tm.Screen(), tm.History()
			t.Logf("the screen:\n%s", strings.Join(screen, "\n"))
			want := []string{"138", "139", "140", prompt + " seq 1 5", "1", "2", "3", "4", "5", prompt + " vim -u NONE -N -n", prompt + " echo after-vim", "after-vim", prompt}
			if got := screen[max(0, lastNonEmpty(screen)+1-len(want)) : lastNonEmpty(screen)+1]; strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the screen:\n%s\nwant:\n%s", strings.Join(screen, "\n"), strings.Join(want, "\n"))
			}
			for _, l := range h {
				if l == "~" || strings.Contains(l, "VIM") {
					t.Fatalf("vim's row %q is in the scrollback or on the screen:\n%s", l, strings.Join(h, "\n"))
				}
			}
			nums, _ := numbers(h)
			head, tail := nums[:min(40, len(nums))], nums[min(40, len(nums)):]
			if ok, why := isRun(head, 101, 140); !ok {
				t.Fatalf("scrollback and screen: %s:\n%s", why, strings.Join(h, "\n"))
			}
			if ok, why := isRun(tail, 1, 5); !ok {
				t.Fatalf("scrollback and screen after seq 101 140: %s:\n%s", why, strings.Join(h, "\n"))
			}
			tm.Send("exit\r")
			tm.WaitForText(10*time.Second, "client-exit=0")
		})
	}
}

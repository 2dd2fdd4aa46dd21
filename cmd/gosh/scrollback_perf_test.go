//go:build linux

package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// BenchmarkScrollbackFlood is issue 14's figure: seq 1 100000 over an
// EV-DO-like link (245 ms each way, the Mosh paper's), with the server's
// scrollback on (the default 10000 lines) and off (--scrollback 0): the
// numbers that reach the tmux pane's scrollback and screen, the time
// until the prompt is back, and the bytes on the wire both ways until the
// scrollback has settled (or, without it, the prompt is back).
//
//	go test -run '^$' -bench ScrollbackFlood -benchtime 1x -count 3 ./cmd/gosh
func BenchmarkScrollbackFlood(b *testing.B) {
	const n = 100000
	for _, lines := range []int{10000, 0} {
		b.Run("scrollback="+strconv.Itoa(lines), func(b *testing.B) {
			var got, bytes int64
			var toPrompt time.Duration
			for i := 0; i < b.N; i++ {
				argv := append([]string{goshBin, "server", "new", "-i", "127.0.0.1", "-p", "0", "--scrollback", strconv.Itoa(lines), "--"}, shellArgv...)
				server := e2etest.StartServer(b, localeEnv, argv...)
				relay := e2etest.NewRelay(b, relayTarget(server))
				relay.SetDelay(245*time.Millisecond, 245*time.Millisecond)
				tm := e2etest.NewTmux(b, 80, 24, localeEnv, clientWrapper(b.TempDir(), goshClientVia(server, relay))...)
				tm.WaitForText(10*time.Second, prompt)
				time.Sleep(2 * time.Second)
				up0, down0 := relay.BytesUp.Load(), relay.BytesDown.Load()
				start := time.Now()
				tm.Send("seq 1 " + strconv.Itoa(n) + "\r")
				seqDone(b, tm, n, 120*time.Second)
				toPrompt += time.Since(start)
				// Settled: the pane's numbers stop changing for 3 s.
				last, stable := -1, time.Now()
				for time.Since(stable) < 3*time.Second {
					nums, _ := numbers(tm.History())
					if len(nums) != last {
						last, stable = len(nums), time.Now()
					}
					time.Sleep(250 * time.Millisecond)
				}
				got += int64(last)
				bytes += relay.BytesUp.Load() - up0 + relay.BytesDown.Load() - down0
				tm.Send("exit\r")
				tm.WaitForText(10*time.Second, "client-exit=")
			}
			b.ReportMetric(float64(got)/float64(b.N), "lines-kept")
			b.ReportMetric(float64(toPrompt.Milliseconds())/float64(b.N), "ms-to-prompt")
			b.ReportMetric(float64(bytes)/float64(b.N)/1024, "KiB-on-wire")
		})
	}
}

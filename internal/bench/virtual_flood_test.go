package bench

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/session/sessiontest"
)

// The flood experiment of gosh bench paper in virtual time: over CS244's
// 3G link (225 ms, 1 % loss, 1 Mbit/s each way), seq floods the screen
// for floodRun, then Ctrl-C; how long until the prompt is back.

// floodPrompt is the flood shell's prompt.
const floodPrompt = "$ "

// floodLimit is how long after Ctrl-C the prompt may come: the round
// trip (450 ms) and a few frame intervals.
const floodLimit = 500 * time.Millisecond

// floodSeeds is how many seeds TestVirtualFlood runs into a terminal of
// kind: each loses other datagrams. A seed costs half a second of CPU,
// eight under the race detector, where only a few run (all of them in
// make hostile).
func floodSeeds(kind termKind) int {
	n := map[termKind]int{plain: 32, answering: 8}[kind]
	if raceEnabled {
		n /= 16
	}
	return max(n, 1)
}

// virtualFlood runs the flood experiment over link with seed into a
// terminal of kind, and returns how long after Ctrl-C the client's screen
// showed the prompt (promptWait if it never did). It runs inside a
// synctest bubble.
func virtualFlood(t *testing.T, link linkem.Profile, seed uint64, kind termKind) time.Duration {
	s := startVirtual(t, link, seed, kind, sessiontest.NewFlood(floodPrompt), typingCols, typingRows)
	defer s.stop()
	if !waitFor(readyTimeout, func() bool { return s.term.Contains(strings.TrimSpace(floodPrompt)) }) {
		t.Fatalf("no prompt; screen:\n%s", strings.Join(s.term.Screen(), "\n"))
	}
	s.term.Type(floodKeys["sh"])
	time.Sleep(floodRun)
	typed := time.Now()
	s.term.Type("\x03")
	atPrompt := func() bool {
		x, y, _ := s.term.Cursor()
		screen := s.term.Screen()
		return x == len(floodPrompt) && y < len(screen) && screen[y] == strings.TrimSpace(floodPrompt)
	}
	for !atPrompt() {
		if time.Since(typed) >= promptWait {
			return promptWait
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(typed)
}

// TestVirtualFlood: Ctrl-C in a flood over CS244's 3G link brings the
// prompt back within floodLimit whatever the link loses, seed after seed,
// into both kinds of terminal. Before, a seed in sixteen or so took a
// second or more: the frame that carried the prompt, lost, waited out
// the retransmission timeout (now the last frame of paced output goes
// again TailProbeDelay later); a lost Ctrl-C waited for the client's next
// datagram (now interrupt keys go twice); and a flood gap widened by the
// queue delayed the prompt's frame (now frames answering input are paced
// at SendIntervalMin for AnswerWindow).
func TestVirtualFlood(t *testing.T) {
	t.Parallel() // virtual time: overlaps the real-time tests' waits
	link, err := linkem.LookupProfile("cs244-3g")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []termKind{plain, answering} {
		t.Run(kind.String(), func(t *testing.T) {
			var got []time.Duration
			over := 0 // seeds over floodLimit twice
			for seed := range uint64(floodSeeds(kind)) {
				// A seed fixes what the link loses, not the order in which
				// the loops' goroutines run, and about one run of a seed in
				// a hundred and fifty still meets a tail (1.055 s: the
				// prompt's frame lost, and its tail probe too). A seed over
				// the limit runs again, and one seed of a kind may be over
				// it twice; before the fixes, one seed in sixteen was.
				var first time.Duration
				for try := range 2 {
					synctest.Test(t, func(t *testing.T) {
						d := virtualFlood(t, link, seed+1, kind)
						switch {
						case d <= floodLimit:
							got = append(got, d)
						case try == 0:
							first = d
						default:
							got = append(got, d)
							if over++; over > 1 {
								t.Errorf("seed %d: the prompt came %v and %v after Ctrl-C, want within %v (the second seed of %s over it)",
									seed+1, first, d, floodLimit, kind)
							} else {
								t.Logf("seed %d: the prompt came %v and %v after Ctrl-C: the one seed allowed over %v", seed+1, first, d, floodLimit)
							}
						}
					})
					if first == 0 || try == 1 {
						break
					}
					t.Logf("seed %d: the prompt came %v after Ctrl-C; running it again", seed+1, first)
				}
			}
			t.Logf("Ctrl-C to prompt, seeds 1 to %d: %v", len(got), got)
		})
	}
}

// BenchmarkVirtualFlood reports Ctrl-C to prompt in a flood over CS244's
// 3G link, in virtual time, over eight seeds: the median and the slowest
// (prompt-ms, max-prompt-ms), and the CPU time of the eight (ns/op).
func BenchmarkVirtualFlood(b *testing.B) {
	link, err := linkem.LookupProfile("cs244-3g")
	if err != nil {
		b.Fatal(err)
	}
	var got []time.Duration
	for b.Loop() {
		got = got[:0]
		for seed := range uint64(8) {
			inBubble(b, func(t *testing.T) { got = append(got, virtualFlood(t, link, seed+1, plain)) })
		}
	}
	slices.Sort(got)
	b.ReportMetric(ms(got[len(got)/2]), "prompt-ms")
	b.ReportMetric(ms(got[len(got)-1]), "max-prompt-ms")
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

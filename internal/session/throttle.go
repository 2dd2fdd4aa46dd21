package session

import "time"

// The server reads the program's output no faster than outputRate once a
// burst of outputBurst bytes is spent. A flood is otherwise read as fast
// as the program writes it (20 MB/s and more for seq), and every byte
// costs the emulator's time, while the client sees one screen per frame
// whatever the rate: Mosh spends a core on a flood, ssh is held back by
// TCP and the user's terminal. At 4 MiB/s (some 50,000 full lines a
// second) a flood costs a fifth of a core, output a person can read is
// never held back, and Ctrl-C still finds at most the tty's buffers
// (some 70 KiB) to drain.
//
// The reader pays in installments of at least outputDebt: reads are at
// most 4 KiB (the line discipline's buffer), and a pause per read would
// cost a timer and a wakeup each.
const (
	outputRate  = 4 << 20  // bytes per second
	outputBurst = 1 << 20  // bytes
	outputDebt  = 64 << 10 // bytes
)

// outputBudget is a token bucket for the program's output: what has been
// read beyond the burst is paid for with waiting.
type outputBudget struct {
	rate, burst float64 // bytes per second, bytes
	tokens      float64
	at          time.Time // of the last refill; zero before the first
}

func newOutputBudget(rate, burst int) *outputBudget {
	return &outputBudget{rate: float64(rate), burst: float64(burst), tokens: float64(burst)}
}

// spend records n bytes read at now and returns how long to wait before
// the next read: zero until the burst is spent and outputDebt more
// bytes have been read.
func (b *outputBudget) spend(now time.Time, n int) time.Duration {
	if !b.at.IsZero() {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.at).Seconds()*b.rate)
	}
	b.at = now
	b.tokens -= float64(n)
	if b.tokens > -outputDebt {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

package session

import (
	"testing"
	"time"
)

// TestOutputBudget: the burst passes without waiting, then output costs
// time at the rate, paid in installments of outputDebt, and an idle
// spell refills the burst.
func TestOutputBudget(t *testing.T) {
	const rate, burst = 1 << 20, 256 << 10
	b := newOutputBudget(rate, burst)
	now := time.Unix(0, 0)
	for read := 0; read < burst; read += 4096 {
		if w := b.spend(now, 4096); w != 0 {
			t.Fatalf("waited %v within the burst (%d bytes read)", w, read)
		}
	}
	var wait time.Duration
	read := 0
	for ; wait == 0; read += 4096 {
		wait = b.spend(now, 4096)
	}
	if read < outputDebt || read > outputDebt+4096 {
		t.Errorf("first wait after %d bytes past the burst, want about %d", read, outputDebt)
	}
	if want := time.Duration(float64(read) / rate * float64(time.Second)); wait < want-time.Millisecond || wait > want+time.Millisecond {
		t.Errorf("wait = %v for %d bytes of debt, want %v", wait, read, want)
	}
	// Reading at the rate from now on: each installment is waited for.
	now = now.Add(wait)
	total, start := 0, now
	for i := 0; i < 1000; i++ {
		if w := b.spend(now, 4096); w > 0 {
			now = now.Add(w)
		}
		total += 4096
	}
	if got := float64(total) / now.Sub(start).Seconds(); got > rate*1.1 {
		t.Errorf("sustained %.0f B/s, want at most %d", got, rate)
	}
	// A second of silence refills the burst (and no more).
	now = now.Add(10 * time.Second)
	if w := b.spend(now, burst); w != 0 {
		t.Errorf("waited %v after an idle spell", w)
	}
	if w := b.spend(now, outputDebt+1); w == 0 {
		t.Error("the burst refilled beyond its size")
	}
}

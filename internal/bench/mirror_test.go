package bench

import (
	"testing"
	"time"
)

// TestMirrorQuietAfter: the quiet time after a keystroke counts from the
// keystroke, so an echo that comes 30 ms after it is waited for; counted
// from the last change (long before), it would not be.
func TestMirrorQuietAfter(t *testing.T) {
	m := newMirror(20, 2, false)
	m.Write([]byte("$ "))
	time.Sleep(400 * time.Millisecond)
	typed := time.Now()
	go func() {
		time.Sleep(30 * time.Millisecond)
		m.Write([]byte("x"))
	}()
	m.quietAfter(typed, 300*time.Millisecond, 5*time.Second)
	if got := m.screen().Row(0).Text(); got[:3] != "$ x" {
		t.Fatalf("the screen shows %q, want the echo", got)
	}
}

// TestMirrorChangedAfter: an echo later than the settling time (a loaded
// machine) is waited for; with none, the wait ends at its timeout.
func TestMirrorChangedAfter(t *testing.T) {
	m := newMirror(20, 2, false)
	m.Write([]byte("$ "))
	typed := time.Now()
	go func() {
		time.Sleep(80 * time.Millisecond)
		m.Write([]byte("x"))
	}()
	if !m.changedAfter(typed, 2*time.Second) {
		t.Fatal("changedAfter missed the echo")
	}
	m.quietAfter(typed, 40*time.Millisecond, 5*time.Second)
	if got := m.screen().Row(0).Text(); got[:3] != "$ x" {
		t.Fatalf("the screen shows %q, want the echo", got)
	}
	start := time.Now()
	if m.changedAfter(time.Now(), 50*time.Millisecond) {
		t.Error("changedAfter saw a change that did not happen")
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("changedAfter gave up after %v, want its 50 ms", d)
	}
}

// TestWaitEndNotOnAStaleScreen: the last keys are Backspaces back to a
// line the screen already shows, their echoes still on the way. The wait
// must end on the screen after them, not on the stale one.
func TestWaitEndNotOnAStaleScreen(t *testing.T) {
	m := newMirror(20, 3, false)
	m.Write([]byte("$ eh"))
	final := m.screen()
	done := make(chan struct{})
	go func() {
		defer close(done)
		waitEnd(m, final, 10*time.Second)
	}()
	time.Sleep(50 * time.Millisecond)
	m.Write([]byte("c")) // the echo of a key typed before the Backspaces
	time.Sleep(400 * time.Millisecond)
	select {
	case <-done:
		t.Fatalf("the wait ended on %q, before the Backspace's echo", m.screen().Row(0).Text())
	default:
	}
	m.Write([]byte("\b \b"))
	<-done
	if got := m.screen().Row(0).Text(); got != "$ eh" {
		t.Errorf("the wait ended on %q", got)
	}
}

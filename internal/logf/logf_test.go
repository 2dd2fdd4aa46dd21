package logf

import (
	"fmt"
	"testing"
)

func TestPrintf(t *testing.T) {
	var got []string
	var f Func = func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) }
	f.Printf("a %d", 1)
	f.Printf("b %s", "x")
	if want := []string{"a 1", "b x"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("logged %q, want %q", got, want)
	}
}

// TestZeroDiscards checks that the zero Func and Discard can be called
// through Printf, and as a method value, without a panic.
func TestZeroDiscards(t *testing.T) {
	var f Func
	f.Printf("dropped %d", 1)
	p := f.Printf
	p("dropped %d", 2)
	Discard.Printf("dropped %d", 3)
	Discard("dropped %d", 4)
}

// Package logf is the shape of gosh's injected logging (docs/style.md
// rule 5): a [Func] that takes a format and its arguments, as
// [fmt.Printf] does, and whose zero value discards. Packages under
// internal/ take a Func in their configuration or constructor and call
// its [Func.Printf], which needs no nil check; the binary passes one that
// writes to standard error.
package logf

// Func receives one log line: a format and its arguments, as
// [fmt.Printf] takes them, without the final newline. The nil Func
// discards; call it through [Func.Printf], which checks for nil.
type Func func(format string, args ...any)

// Discard is a Func that drops everything: for a variable that a
// condition may later set to a real one.
var Discard Func = func(string, ...any) {}

// Printf logs through f, or does nothing when f is nil.
func (f Func) Printf(format string, args ...any) {
	if f != nil {
		f(format, args...)
	}
}

//go:build race

package session_test

// raceEnabled: the race detector makes the loops ten times slower, so the
// heavy tests move less data (the full amount runs in make hostile).
const raceEnabled = true

//go:build race

package bench

// raceEnabled: the race detector makes the session loops ten times
// slower, so the heavy tests run fewer cases (the rest in make hostile).
const raceEnabled = true

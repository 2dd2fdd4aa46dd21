//go:build race

package ssp_test

// raceEnabled: the race detector makes the simulations ten times slower
// and finds nothing in them (the core runs on the test's goroutine alone),
// so the heavy ones run a case or two under it; make hostile runs them
// all without it.
const raceEnabled = true

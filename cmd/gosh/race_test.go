//go:build race

package main

// raceEnabled builds the end-to-end tests' gosh binary with the race
// detector when the tests themselves run with it.
const raceEnabled = true

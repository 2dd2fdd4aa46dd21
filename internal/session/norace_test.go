//go:build !race

package session_test

// raceEnabled: see race_test.go.
const raceEnabled = false

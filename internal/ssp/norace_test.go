//go:build !race

package ssp_test

// raceEnabled: see race_test.go.
const raceEnabled = false

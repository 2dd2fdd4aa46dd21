package predict

import "github.com/gosh-term/gosh/internal/enum"

// Mode says when predictions are shown (Mosh's --predict and
// MOSH_PREDICTION_DISPLAY).
type Mode int

// The prediction modes.
const (
	// Adaptive shows predictions when the round-trip time is long or
	// confirmations are slow (the default).
	Adaptive Mode = iota
	// Always shows predictions even on fast links.
	Always
	// Never disables the engine entirely.
	Never
	// Experimental always shows predictions and never waits for an epoch
	// to be confirmed; wrong predictions are dropped one by one.
	Experimental
)

var modeNames = enum.Names[Mode]{
	List: []string{Adaptive: "adaptive", Always: "always", Never: "never", Experimental: "experimental"},
	Type: "mode",
	Bad:  "predict: unknown prediction mode %[1]q: want one of %[2]s",
}

// String returns the mode's name as ParseMode accepts it.
func (m Mode) String() string { return modeNames.String(m) }

// ParseMode parses a mode name: "adaptive", "always", "never" or
// "experimental", exactly as stock Mosh spells them (case matters, and
// the empty string is not a mode). The error lists the valid names.
func ParseMode(s string) (Mode, error) { return modeNames.Parse(s) }

// Set sets m to the mode named s, as ParseMode parses it, leaving m as
// it was on an error. With String and Type it makes *Mode a pflag.Value,
// so a --predict flag can hold a Mode.
func (m *Mode) Set(s string) error { return modeNames.Set(m, s) }

// Type returns "mode", the value's name in flag usage messages.
func (m *Mode) Type() string { return modeNames.Type }

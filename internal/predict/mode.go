package predict

import "fmt"

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

var modeNames = [...]string{Adaptive: "adaptive", Always: "always", Never: "never", Experimental: "experimental"}

// String returns the mode's name as ParseMode accepts it.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode parses a mode name: "adaptive", "always", "never" or
// "experimental", exactly as stock Mosh spells them (case matters, and
// the empty string is not a mode).
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if s == name {
			return Mode(m), nil
		}
	}
	return Adaptive, fmt.Errorf("predict: unknown prediction mode %q", s)
}

// ResolveMode picks the mode the way stock mosh does: the --predict flag
// if it was given (flagSet), else MOSH_PREDICTION_DISPLAY if it is set
// (envSet, even to the empty string, which is an error as in mosh),
// else Adaptive. An error names where the bad value came from.
func ResolveMode(flag string, flagSet bool, env string, envSet bool) (Mode, error) {
	switch {
	case flagSet:
		return ParseMode(flag)
	case envSet:
		m, err := ParseMode(env)
		if err != nil {
			return Adaptive, fmt.Errorf("%w (MOSH_PREDICTION_DISPLAY in environment)", err)
		}
		return m, nil
	default:
		return Adaptive, nil
	}
}

// ResolveOverwrite reports whether predictions overwrite instead of
// inserting: the --predict-overwrite flag, or MOSH_PREDICTION_OVERWRITE
// set to exactly "yes" as mosh-client requires.
func ResolveOverwrite(flag bool, env string) bool {
	return flag || env == "yes"
}

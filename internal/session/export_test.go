package session

// Exported for the external tests.
const (
	OutputRate  = outputRate
	OutputBurst = outputBurst
	OutputDebt  = outputDebt
)

// The gosh_caps bits of the session's extensions, for hostile peers.
const (
	CapChannels   = capChannels
	CapScrollback = capScrollback
)

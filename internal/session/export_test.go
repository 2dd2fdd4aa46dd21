package session

// Exported for the external tests.
const (
	OutputRate  = outputRate
	OutputBurst = outputBurst
	OutputDebt  = outputDebt
)

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

// AsStock makes cfg's server look like a stock mosh-server to its client:
// no gosh_caps sent, the client's ignored.
func AsStock(cfg ServerConfig) ServerConfig {
	cfg.stock = true
	return cfg
}

// ClientAsStock makes cfg's client advertise no gosh_caps, as a stock
// mosh-client.
func ClientAsStock(cfg ClientConfig) ClientConfig {
	cfg.stock = true
	return cfg
}

// How long the server holds the program's answer to input (answer.go).
const (
	AnswerQuiet = answerQuiet
	AnswerMax   = answerMax
)

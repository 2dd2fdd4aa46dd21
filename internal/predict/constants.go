package predict

import "time"

// Protocol constants: Mosh 1.4's prediction thresholds (spec section 11.5).
// They are compared with the transport's send interval, which is
// clamp(ceil(SRTT/2), 20 ms, 250 ms).
const (
	// srttTriggerLow turns the SRTT trigger off (with no prediction
	// outstanding) once the send interval is at or below it: SRTT ≲ 40 ms.
	srttTriggerLow = 20 * time.Millisecond
	// srttTriggerHigh turns the SRTT trigger on above it: SRTT ≳ 60 ms.
	srttTriggerHigh = 30 * time.Millisecond
	// flagTriggerLow stops underlining at or below it: SRTT ≲ 100 ms.
	flagTriggerLow = 50 * time.Millisecond
	// flagTriggerHigh starts underlining above it: SRTT ≳ 160 ms.
	flagTriggerHigh = 80 * time.Millisecond

	// glitchThreshold is how long a prediction may stay unconfirmed before
	// it counts as a glitch that makes predictions shown.
	glitchThreshold = 250 * time.Millisecond
	// glitchRepairCount is the glitch trigger's "display" level; twice it
	// also underlines. Each quick confirmation takes one off.
	glitchRepairCount = 10
	// glitchRepairMinInterval spaces out the quick confirmations that
	// lower the glitch trigger.
	glitchRepairMinInterval = 150 * time.Millisecond
	// glitchFlagThreshold is how long a prediction may stay unconfirmed
	// before predictions are also underlined.
	glitchFlagThreshold = 5000 * time.Millisecond

	// wakeInterval is how often the engine wants to re-check pending
	// predictions while its timing triggers have not all fired.
	wakeInterval = 50 * time.Millisecond

	// escapeWait is how long vi may take to act on a lone Escape: it
	// waits for the rest of an escape sequence for 'ttimeoutlen', or
	// 'timeoutlen' (1 s by default) when that is unset.
	escapeWait = 1000 * time.Millisecond

	// initialSendInterval is the send interval assumed until the
	// transport reports one (the slowest, as for a fresh Mosh client).
	initialSendInterval = 250 * time.Millisecond
)

// Implementation limits: the engine's memory is bounded whatever is typed.
const (
	// maxOriginals bounds the earlier contents remembered per predicted
	// cell (predictions that match one of them earn no credit).
	maxOriginals = 8
	// maxLog bounds the typed keys remembered for re-basing on the
	// server's screen; older keys are forgotten.
	maxLog = 512
)

package predict

import "testing"

// The shell's prompt is "$ " and the path's round trip is 500 ms: a key
// typed at t reaches the server at t+250 and its echo (with the transport
// ack) is back at t+500; the echo ack for it rides on a later frame.

func TestShellPrompt(t *testing.T) {
	s := newSim(t, 20, 4, Adaptive, false)
	s.run([]step{
		{at: 0, host: "$ ", show: []string{"$"}, cur: [2]int{2, 0}},
		// The first keystroke of the session is tentative: not shown.
		{at: 1000, keys: "l", show: []string{"$"}, cur: [2]int{2, 0}},
		{at: 1150, keys: "s", show: []string{"$"}, cur: [2]int{2, 0}},
		// The echo of "l" arrives, not yet echo-acked.
		{at: 1500, host: "l", acked: 1, echo: 0, show: []string{"$ l"}, cur: [2]int{3, 0}},
		// The echo ack confirms "l": the epoch is shown, "s" was already echoed.
		{at: 1650, host: "s", acked: 2, echo: 1, show: []string{"$ ls"}, cur: [2]int{4, 0}},
		// From now on typing shows at once, underlined (slow link).
		{at: 1800, keys: " ", show: []string{"$ ls"}, cur: [2]int{5, 0}},
		{at: 1950, keys: "-", show: []string{"$ ls -"}, ul: []string{"     _"}, cur: [2]int{6, 0}},
		{at: 2100, keys: "l", show: []string{"$ ls -l"}, ul: []string{"     __"}, cur: [2]int{7, 0}},
		// The server's echo replaces the predictions.
		{at: 2300, host: " -", acked: 4, echo: 2, show: []string{"$ ls -l"}, ul: []string{"      _"}, cur: [2]int{7, 0}},
		{at: 2600, host: "l", acked: 5, echo: 5, show: []string{"$ ls -l"}, cur: [2]int{7, 0}},
	})
	if st := s.e.Stats(); st.Wrong != 0 {
		t.Errorf("Stats = %+v, want no wrong predictions", st)
	}
}

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
		{at: 1000, keys: "l", show: []string{"$"}, cur: [2]int{2, 0}, shown: notShown},
		{at: 1150, keys: "s", show: []string{"$"}, cur: [2]int{2, 0}, shown: notShown},
		// The echo of "l" arrives, not yet echo-acked.
		{at: 1500, host: "l", acked: 1, echo: 0, show: []string{"$ l"}, cur: [2]int{3, 0}},
		// The echo ack confirms "l": the epoch is shown, "s" was already echoed.
		{at: 1650, host: "s", acked: 2, echo: 1, show: []string{"$ ls"}, cur: [2]int{4, 0}},
		// From now on typing shows at once, underlined (slow link).
		{at: 1800, keys: " ", show: []string{"$ ls"}, cur: [2]int{5, 0}, shown: isShown},
		{at: 1950, keys: "-", show: []string{"$ ls -"}, ul: []string{"     _"}, cur: [2]int{6, 0}, shown: isShown},
		{at: 2100, keys: "l", show: []string{"$ ls -l"}, ul: []string{"     __"}, cur: [2]int{7, 0}},
		// The server's echo replaces the predictions.
		{at: 2300, host: " -", acked: 4, echo: 2, show: []string{"$ ls -l"}, ul: []string{"      _"}, cur: [2]int{7, 0}},
		{at: 2600, host: "l", acked: 5, echo: 5, show: []string{"$ ls -l"}, cur: [2]int{7, 0}},
	})
	if st := s.e.Stats(); st.Wrong != 0 {
		t.Errorf("Stats = %+v, want no wrong predictions", st)
	}
}

// TestPasswordPrompt types "sudo" and then a mistyped password without
// pausing. The prompt that appears does not echo; nothing typed after
// Enter may ever show, even though the password's first letter happens
// to be the character of the prompt where the engine first guesses the
// new line starts (column 2, the width of "$ ").
func TestPasswordPrompt(t *testing.T) {
	prompt := "[sudo] password for user:"
	s := newSim(t, 30, 4, Adaptive, false)
	s.run([]step{
		{at: 0, host: "$ ", show: []string{"$"}, cur: [2]int{2, 0}},
		{at: 1000, keys: "s", show: []string{"$"}, cur: [2]int{2, 0}},
		{at: 1500, host: "s", acked: 1, echo: 1, show: []string{"$ s"}, cur: [2]int{3, 0}},
		{at: 1600, keys: "u", show: []string{"$ su"}, ul: []string{"   _"}, cur: [2]int{4, 0}, shown: isShown},
		{at: 1700, keys: "d", show: []string{"$ sud"}, ul: []string{"   __"}, cur: [2]int{5, 0}},
		{at: 1800, keys: "o", show: []string{"$ sudo"}, ul: []string{"   ___"}, cur: [2]int{6, 0}},
		// Enter: what follows is hidden until the server confirms it.
		{at: 1900, keys: "\r", show: []string{"$ sudo", ""}, ul: []string{"   ___"}, cur: [2]int{6, 0}, shown: notShown},
		{at: 2000, keys: "u", show: []string{"$ sudo", ""}, ul: []string{"   ___"}, cur: [2]int{6, 0}, shown: notShown},
		{at: 2100, host: "udo", acked: 4, echo: 3, show: []string{"$ sudo", ""}, cur: [2]int{6, 0}},
		{at: 2150, keys: "p", show: []string{"$ sudo", ""}, cur: [2]int{6, 0}},
		{at: 2300, keys: "a", show: []string{"$ sudo", ""}, cur: [2]int{6, 0}},
		{at: 2400, host: "\r\n" + prompt + " ", acked: 6, echo: 5, show: []string{"$ sudo", prompt}, cur: [2]int{26, 1}},
		{at: 2450, keys: "s", show: []string{"$ sudo", prompt}, cur: [2]int{26, 1}},
		// "u" is judged: the prompt has a "u" where it was guessed, but the
		// cursor is not where that echo would leave it.
		{at: 2650, host: "", acked: 7, echo: 6, show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 2700, keys: "s", show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 2900, host: "", acked: 9, echo: 8, show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 2950, keys: "w", show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 3100, keys: "\x7f", show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 3150, host: "", acked: 10, echo: 9, show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 3250, keys: "d", show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 3400, keys: "\r", show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 3400, host: "", acked: 12, echo: 11, show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 3650, host: "", acked: 14, echo: 13, show: []string{"$ sudo", prompt, ""}, cur: [2]int{26, 1}},
		{at: 3900, host: "\r\nSorry, try again.\r\n$ ", acked: 15, echo: 15,
			show: []string{"$ sudo", prompt, "Sorry, try again.", "$"}, cur: [2]int{2, 3}},
	})
}

// TestShownNever: with prediction off nothing typed is ever reported
// shown, even in a confirmed epoch, so every key is sent at once.
func TestShownNever(t *testing.T) {
	s := newSim(t, 20, 4, Never, false)
	s.run([]step{
		{at: 0, host: "$ ", show: []string{"$"}, cur: [2]int{2, 0}},
		{at: 1000, keys: "l", show: []string{"$"}, cur: [2]int{2, 0}, shown: notShown},
		{at: 1500, host: "l", acked: 1, echo: 1, show: []string{"$ l"}, cur: [2]int{3, 0}},
		{at: 1800, keys: "s", show: []string{"$ l"}, cur: [2]int{3, 0}, shown: notShown},
	})
}

// TestRightPrompt: a right prompt (zsh's RPROMPT, or one drawn by bash's
// PROMPT_COMMAND) stays where it is while a line is typed at the end of
// the line; shifting it with the line, as text after the cursor is, was a
// wrong prediction for every key.
func TestRightPrompt(t *testing.T) {
	s := newSim(t, 20, 4, Adaptive, false)
	s.run([]step{
		{at: 0, host: "$ \x1b7\x1b[17G[r]\x1b8", show: []string{"$               [r]"}, cur: [2]int{2, 0}},
		{at: 1000, keys: "l", show: []string{"$               [r]"}, cur: [2]int{2, 0}, shown: notShown},
		{at: 1500, host: "l", acked: 1, echo: 1, show: []string{"$ l             [r]"}, cur: [2]int{3, 0}},
		{at: 1800, keys: "s", show: []string{"$ ls            [r]"}, ul: []string{"   _"}, cur: [2]int{4, 0}, shown: isShown},
		{at: 1950, keys: " ", show: []string{"$ ls            [r]"}, ul: []string{"   _"}, cur: [2]int{5, 0}},
		{at: 2300, host: "s ", acked: 3, echo: 3, show: []string{"$ ls            [r]"}, cur: [2]int{5, 0}},
	})
	if st := s.e.Stats(); st.Wrong != 0 {
		t.Errorf("Stats = %+v, want no wrong predictions", st)
	}
}

// TestRightPromptMidLine: a key typed inside the line shifts the rest of
// the line, not the right prompt beyond it.
func TestRightPromptMidLine(t *testing.T) {
	s := newSim(t, 20, 4, Adaptive, false)
	s.run([]step{
		{at: 0, host: "$ \x1b7\x1b[17G[r]\x1b8", show: []string{"$               [r]"}, cur: [2]int{2, 0}},
		{at: 1000, keys: "a", show: []string{"$               [r]"}, cur: [2]int{2, 0}, shown: notShown},
		{at: 1500, host: "a", acked: 1, echo: 1, show: []string{"$ a             [r]"}, cur: [2]int{3, 0}},
		{at: 1800, keys: "b", show: []string{"$ ab            [r]"}, ul: []string{"   _"}, cur: [2]int{4, 0}, shown: isShown},
		{at: 2300, host: "b", acked: 2, echo: 2, show: []string{"$ ab            [r]"}, cur: [2]int{4, 0}},
		{at: 2400, keys: "\x1b[D", show: []string{"$ ab            [r]"}, cur: [2]int{3, 0}},
		{at: 2550, keys: "x", show: []string{"$ axb           [r]"}, ul: []string{"   __"}, cur: [2]int{4, 0}},
		{at: 2900, host: "\b", acked: 3, echo: 3, show: []string{"$ axb           [r]"}, ul: []string{"   __"}, cur: [2]int{4, 0}},
		{at: 3050, host: "xb\b", acked: 4, echo: 4, show: []string{"$ axb           [r]"}, cur: [2]int{4, 0}},
	})
	if st := s.e.Stats(); st.Wrong != 0 {
		t.Errorf("Stats = %+v, want no wrong predictions", st)
	}
}

package predict

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// featureSwitch names a field of Features and returns it from a value.
type featureSwitch struct {
	name  string
	field func(*Features) *bool
}

// featureSwitches lists every field of Features, in declaration order.
var featureSwitches = []featureSwitch{
	{"Rebase", func(f *Features) *bool { return &f.Rebase }},
	{"QuickConfirm", func(f *Features) *bool { return &f.QuickConfirm }},
	{"LineStart", func(f *Features) *bool { return &f.LineStart }},
	{"CursorCheck", func(f *Features) *bool { return &f.CursorCheck }},
	{"BlameOpaque", func(f *Features) *bool { return &f.BlameOpaque }},
	{"WideChars", func(f *Features) *bool { return &f.WideChars }},
	{"WrapBack", func(f *Features) *bool { return &f.WrapBack }},
	{"ShellWrap", func(f *Features) *bool { return &f.ShellWrap }},
	{"LineBounds", func(f *Features) *bool { return &f.LineBounds }},
	{"BlankEnd", func(f *Features) *bool { return &f.BlankEnd }},
	{"HoldShown", func(f *Features) *bool { return &f.HoldShown }},
	{"EditorModes", func(f *Features) *bool { return &f.EditorModes }},
}

// TestFeatureSwitches checks that featureSwitches names every field of
// Features in order, and that GoshFeatures turns each one on.
func TestFeatureSwitches(t *testing.T) {
	typ := reflect.TypeFor[Features]()
	if typ.NumField() != len(featureSwitches) {
		t.Fatalf("Features has %d fields, featureSwitches %d", typ.NumField(), len(featureSwitches))
	}
	for i, sw := range featureSwitches {
		if got := typ.Field(i).Name; got != sw.name {
			t.Errorf("Features field %d is %s, featureSwitches has %s", i, got, sw.name)
		}
		f := GoshFeatures
		if !*sw.field(&f) {
			t.Errorf("GoshFeatures.%s = false, want true", sw.name)
		}
		var zero Features
		*sw.field(&zero) = true
		if reflect.ValueOf(zero).Field(i).Bool() != true {
			t.Errorf("featureSwitches[%d] (%s) sets another field", i, sw.name)
		}
	}
}

// featureCase is a scenario where one feature matters: steps play the
// same with the feature on and off (the rest of GoshFeatures on), then
// on and off show what it changes.
type featureCase struct {
	feature   string // the field of Features turned on and off
	name      string
	mode      Mode
	overwrite bool
	w, h      int
	steps     []step
	on, off   featureOutcome
}

// featureOutcome is what the client shows after a featureCase's steps,
// and the Stats counts at the end.
type featureOutcome struct {
	steps         []step
	wrong, killed uint64
}

// Text for featureCases.
var (
	x16, x17, x76 = strings.Repeat("x", 16), strings.Repeat("x", 17), strings.Repeat("x", 76)
	ul17          = "   " + strings.Repeat("_", 17) // under "x" × 17 after "$ a"
	pwPrompt      = "[sudo] password for user:"
)

// featureCases are TestFeatures' scenarios, at least one per switch, in
// the order of Features.
var featureCases = []featureCase{
	{
		// Keys typed before the prompt arrives: "l" is guessed at
		// (0,0) and killed when the server echoes it after "$ ",
		// with "s" in flight.
		feature: "Rebase", name: "typing before the prompt", w: 20, h: 3,
		steps: []step{
			{at: 100, keys: "l", show: []string{""}, cur: [2]int{0, 0}},
			{at: 300, host: "$ ", show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 400, keys: "s", show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 600, host: "l", acked: 1, echo: 1, show: []string{"$ l"}, cur: [2]int{3, 0}},
			{at: 650, host: "s", acked: 2, echo: 1, show: []string{"$ ls"}, cur: [2]int{4, 0}},
			{at: 700, keys: "x", show: []string{"$ ls"}, cur: [2]int{4, 0}},
		},
		// "s" is re-predicted after the echoed "l" and confirmed, and
		// from then on typing shows at once.
		on: featureOutcome{killed: 1, steps: []step{
			{at: 900, host: "", acked: 2, echo: 2, show: []string{"$ lsx"}, ul: []string{"    _"}, cur: [2]int{5, 0}},
			{at: 1000, keys: "y", show: []string{"$ lsxy"}, ul: []string{"    __"}, cur: [2]int{6, 0}},
			{at: 1200, host: "x", acked: 3, echo: 3, show: []string{"$ lsxy"}, ul: []string{"     _"}, cur: [2]int{6, 0}},
			{at: 1300, keys: "z", show: []string{"$ lsxyz"}, ul: []string{"     __"}, cur: [2]int{7, 0}},
		}},
		// Mosh restarts at the server's cursor with "s" in flight,
		// so "x" is guessed one key behind, and killed in turn.
		off: featureOutcome{killed: 2, steps: []step{
			{at: 900, host: "", acked: 2, echo: 2, show: []string{"$ ls"}, cur: [2]int{4, 0}},
			{at: 1000, keys: "y", show: []string{"$ ls"}, cur: [2]int{4, 0}},
			{at: 1200, host: "x", acked: 3, echo: 3, show: []string{"$ lsx"}, cur: [2]int{5, 0}},
			{at: 1300, keys: "z", show: []string{"$ lsx"}, cur: [2]int{5, 0}},
		}},
	},
	{
		// "x" is typed after Enter; the command prints a line, so the
		// new prompt is a row lower than predicted.
		feature: "QuickConfirm", name: "prompt back after Enter", w: 20, h: 4,
		steps: append(start("$ ", "l"), []step{
			{at: 1600, keys: "s", show: []string{"$ ls"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1700, keys: "\r", show: []string{"$ ls"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1900, keys: "x", show: []string{"$ ls"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 2100, host: "s", acked: 2, echo: 2, show: []string{"$ ls"}, cur: [2]int{4, 0}},
		}...),
		// The prompt is back before "x" reaches the server: "x" shows
		// at once, at the prompt.
		on: featureOutcome{steps: []step{
			{at: 2200, host: "\r\na b\r\n$ ", acked: 3, echo: 3, show: []string{"$ ls", "a b", "$ x"}, ul: []string{"", "", "  _"}, cur: [2]int{3, 2}},
			{at: 2300, keys: "y", show: []string{"$ ls", "a b", "$ xy"}, ul: []string{"", "", "  __"}, cur: [2]int{4, 2}},
			{at: 2400, host: "x", acked: 4, echo: 4, show: []string{"$ ls", "a b", "$ xy"}, ul: []string{"", "", "   _"}, cur: [2]int{4, 2}},
		}},
		// Hidden until the echo ack of "x", which kills the guess.
		off: featureOutcome{killed: 1, steps: []step{
			{at: 2200, host: "\r\na b\r\n$ ", acked: 3, echo: 3, show: []string{"$ ls", "a b", "$"}, cur: [2]int{2, 2}},
			{at: 2300, keys: "y", show: []string{"$ ls", "a b", "$"}, cur: [2]int{2, 2}},
			{at: 2400, host: "x", acked: 4, echo: 4, show: []string{"$ ls", "a b", "$ x"}, cur: [2]int{3, 2}},
		}},
	},
	{
		// The same, but "x" reaches the server with Enter: its echo
		// shows at the new prompt an echo ack early.
		feature: "QuickConfirm", name: "echo after Enter", w: 20, h: 4,
		steps: append(start("$ ", "l"), []step{
			{at: 1600, keys: "s", show: []string{"$ ls"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1700, keys: "\r", show: []string{"$ ls"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1750, keys: "x", show: []string{"$ ls"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 2100, host: "s", acked: 2, echo: 2, show: []string{"$ ls"}, cur: [2]int{4, 0}},
		}...),
		on: featureOutcome{steps: []step{
			{at: 2200, host: "\r\na b\r\n$ x", acked: 4, echo: 3, show: []string{"$ ls", "a b", "$ x"}, cur: [2]int{3, 2}},
			{at: 2300, keys: "y", show: []string{"$ ls", "a b", "$ xy"}, ul: []string{"", "", "   _"}, cur: [2]int{4, 2}},
		}},
		off: featureOutcome{steps: []step{
			{at: 2200, host: "\r\na b\r\n$ x", acked: 4, echo: 3, show: []string{"$ ls", "a b", "$ x"}, cur: [2]int{3, 2}},
			{at: 2300, keys: "y", show: []string{"$ ls", "a b", "$ x"}, cur: [2]int{3, 2}},
		}},
	},
	{
		// Experimental mode shows the guess after Enter at once. The
		// line "ls" is confirmed to start at column 2 before Enter.
		feature: "LineStart", name: "cursor after Enter", mode: Experimental, w: 20, h: 3,
		steps: []step{
			{at: 0, host: "$ ", show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 1000, keys: "l", show: []string{"$ l"}, ul: []string{"  _"}, cur: [2]int{3, 0}},
			{at: 1100, keys: "s", show: []string{"$ ls"}, ul: []string{"  __"}, cur: [2]int{4, 0}},
			{at: 1500, host: "l", acked: 1, echo: 1, show: []string{"$ ls"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
		},
		on: featureOutcome{steps: []step{
			{at: 1600, keys: "\r", show: []string{"$ ls", ""}, ul: []string{"   _"}, cur: [2]int{2, 1}},
			{at: 1700, keys: "x", show: []string{"$ ls", "  x"}, ul: []string{"   _", "  _"}, cur: [2]int{3, 1}},
			{at: 2100, host: "s\r\n$ x", acked: 4, echo: 4, show: []string{"$ ls", "$ x"}, cur: [2]int{3, 1}},
		}},
		off: featureOutcome{steps: []step{
			{at: 1600, keys: "\r", show: []string{"$ ls", ""}, ul: []string{"   _"}, cur: [2]int{0, 1}},
			{at: 1700, keys: "x", show: []string{"$ ls", "x"}, ul: []string{"   _", "_"}, cur: [2]int{1, 1}},
			{at: 2100, host: "s\r\n$ x", acked: 4, echo: 4, show: []string{"$ ls", "$ x"}, cur: [2]int{3, 1}},
		}},
	},
	{
		// The same in the default mode: the guess is hidden, and
		// QuickConfirm re-bases it at once when the echo shows, so
		// the cost is a killed epoch.
		feature: "LineStart", name: "killed after Enter", w: 20, h: 3,
		steps: []step{
			{at: 0, host: "$ ", show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 1000, keys: "l", show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 1100, keys: "s", show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 1500, host: "l", acked: 1, echo: 1, show: []string{"$ ls"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1600, keys: "\r", show: []string{"$ ls", ""}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1700, keys: "x", show: []string{"$ ls", ""}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 2100, host: "s\r\n$ x", acked: 4, echo: 4, show: []string{"$ ls", "$ x"}, cur: [2]int{3, 1}},
		},
		on:  featureOutcome{},
		off: featureOutcome{killed: 1},
	},
	{
		// A program with a prompt of its own: after "p" Enter in a shell
		// whose "$ " was learned, the server shows ">>> ". The guess
		// after Enter (column 2) is killed; "1", typed once the prompt
		// is there, is confirmed by its echo, which shows where the
		// line started.
		feature: "LineStart", name: "a new prompt", w: 20, h: 4,
		steps: append(start("$ ", "p"), []step{
			{at: 1600, keys: "\r", show: []string{"$ p", ""}, cur: [2]int{3, 0}},
			{at: 2100, host: "\r\n>>> ", acked: 2, echo: 2, show: []string{"$ p", ">>>"}, cur: [2]int{4, 1}},
			{at: 2500, keys: "1", show: []string{"$ p", ">>>"}, cur: [2]int{4, 1}},
			{at: 3000, host: "1", acked: 3, echo: 3, show: []string{"$ p", ">>> 1"}, cur: [2]int{5, 1}},
			{at: 3100, keys: "\r", show: []string{"$ p", ">>> 1", ""}, cur: [2]int{5, 1}},
		}...),
		// ">>> " was learned: the guess after the second Enter is right,
		// and once the prompt is back, "2" shows at once.
		on: featureOutcome{steps: []step{
			{at: 3600, host: "\r\n>>> ", acked: 4, echo: 4, show: []string{"$ p", ">>> 1", ">>>"}, cur: [2]int{4, 2}},
			{at: 3700, keys: "2", show: []string{"$ p", ">>> 1", ">>> 2"}, ul: []string{"", "", "    _"}, cur: [2]int{5, 2}},
		}},
		// Every line of the program starts hidden, an echo later.
		off: featureOutcome{steps: []step{
			{at: 3600, host: "\r\n>>> ", acked: 4, echo: 4, show: []string{"$ p", ">>> 1", ">>>"}, cur: [2]int{4, 2}},
			{at: 3700, keys: "2", show: []string{"$ p", ">>> 1", ">>>"}, cur: [2]int{4, 2}},
		}},
	},
	{
		// A password typed after sudo without pausing: its "u" is
		// guessed where the prompt has a "u".
		feature: "CursorCheck", name: "password prompt", w: 30, h: 4,
		steps: []step{
			{at: 0, host: "$ ", show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 1000, keys: "s", show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 1500, host: "s", acked: 1, echo: 1, show: []string{"$ s"}, cur: [2]int{3, 0}},
			{at: 1600, keys: "udo", show: []string{"$ sudo"}, ul: []string{"   ___"}, cur: [2]int{6, 0}},
			{at: 1900, keys: "\r", show: []string{"$ sudo", ""}, ul: []string{"   ___"}, cur: [2]int{6, 0}},
			{at: 2000, keys: "u", show: []string{"$ sudo", ""}, ul: []string{"   ___"}, cur: [2]int{6, 0}},
			{at: 2100, host: "udo", acked: 2, echo: 2, show: []string{"$ sudo", ""}, cur: [2]int{6, 0}},
			{at: 2150, keys: "p", show: []string{"$ sudo", ""}, cur: [2]int{6, 0}},
			{at: 2300, keys: "a", show: []string{"$ sudo", ""}, cur: [2]int{6, 0}},
			{at: 2400, host: "\r\n" + pwPrompt + " ", acked: 4, echo: 3, show: []string{"$ sudo", pwPrompt}, cur: [2]int{26, 1}},
			{at: 2450, keys: "s", show: []string{"$ sudo", pwPrompt}, cur: [2]int{26, 1}},
		},
		// "u" matches the prompt, but the cursor is not after it.
		on: featureOutcome{killed: 1, steps: []step{
			{at: 2650, host: "", acked: 5, echo: 4, show: []string{"$ sudo", pwPrompt, ""}, cur: [2]int{26, 1}},
			{at: 2700, keys: "s", show: []string{"$ sudo", pwPrompt, ""}, cur: [2]int{26, 1}},
			{at: 2900, host: "", acked: 7, echo: 6, show: []string{"$ sudo", pwPrompt, ""}, cur: [2]int{26, 1}},
		}},
		// "u" confirms its epoch: the password shows over the prompt.
		off: featureOutcome{wrong: 1, steps: []step{
			{at: 2650, host: "", acked: 5, echo: 4, show: []string{"$ sudo", "[supas", ""}, ul: []string{"", "   ___ ________ ___ _____"}, cur: [2]int{6, 1}},
			{at: 2700, keys: "s", show: []string{"$ sudo", "[supass", ""}, ul: []string{"", "   ____________ ___ _____"}, cur: [2]int{7, 1}},
			{at: 2900, host: "", acked: 7, echo: 6, show: []string{"$ sudo", pwPrompt, ""}, cur: [2]int{26, 1}},
		}},
	},
	{
		// Ctrl-U right after a shown "b": the server kills the line
		// before the echo ack for "b" comes.
		feature: "BlameOpaque", name: "Ctrl-U after a shown key", w: 20, h: 3,
		steps: append(start("$ ", "a"), []step{
			{at: 1600, keys: "b", show: []string{"$ ab"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1650, keys: "\x15", show: []string{"$ ab"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1700, keys: "c", show: []string{"$ ab"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 2100, host: "b\r$ \x1b[K", acked: 4, echo: 2, show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 2200, host: "c", acked: 4, echo: 4, show: []string{"$ c"}, cur: [2]int{3, 0}},
			{at: 2300, keys: "d", show: []string{"$ cd"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
		}...),
		// The missing "b" proves nothing; "c" is guessed after it
		// and re-based.
		on: featureOutcome{killed: 1},
		// "b" counts as shown wrong, and everything is reset.
		off: featureOutcome{wrong: 1},
	},
	{
		feature: "WideChars", name: "typed", w: 20, h: 3,
		steps: start("$ ", "a"),
		on: featureOutcome{steps: []step{
			{at: 1600, keys: "日", show: []string{"$ a日"}, ul: []string{"   __"}, cur: [2]int{5, 0}},
			{at: 1700, keys: "b", show: []string{"$ a日b"}, ul: []string{"   ___"}, cur: [2]int{6, 0}},
			{at: 2100, host: "日", acked: 2, echo: 2, show: []string{"$ a日b"}, ul: []string{"     _"}, cur: [2]int{6, 0}},
		}},
		// Unknown effect: hidden until the server echoes it.
		off: featureOutcome{steps: []step{
			{at: 1600, keys: "日", show: []string{"$ a"}, cur: [2]int{3, 0}},
			{at: 1700, keys: "b", show: []string{"$ a"}, cur: [2]int{3, 0}},
			{at: 2100, host: "日", acked: 2, echo: 2, show: []string{"$ a日"}, cur: [2]int{5, 0}},
		}},
	},
	{
		feature: "WideChars", name: "right arrow", w: 20, h: 3,
		steps: []step{
			{at: 0, host: "$ 日本\b\b\b\b", show: []string{"$ 日本"}, cur: [2]int{2, 0}},
			{at: 1000, keys: "a", show: []string{"$ 日本"}, cur: [2]int{2, 0}},
			{at: 1500, host: "a日本\b\b\b\b", acked: 1, echo: 1, show: []string{"$ a日本"}, cur: [2]int{3, 0}},
		},
		on: featureOutcome{steps: []step{
			{at: 1600, keys: "\x1b[C", show: []string{"$ a日本"}, cur: [2]int{5, 0}},
			{at: 1700, keys: "b", show: []string{"$ a日b本"}, ul: []string{"     ___"}, cur: [2]int{6, 0}},
		}},
		// One column right: into the middle of 日.
		off: featureOutcome{steps: []step{
			{at: 1600, keys: "\x1b[C", show: []string{"$ a日本"}, cur: [2]int{4, 0}},
			{at: 1700, keys: "b", show: []string{"$ a b 本"}, ul: []string{"    _ __"}, cur: [2]int{5, 0}},
		}},
	},
	{
		// "b" overwrites the first half of 日, which blanks the
		// second; then the right arrow and backspace.
		feature: "WideChars", name: "overwrite half", overwrite: true, w: 20, h: 3,
		steps: []step{
			{at: 0, host: "$ x日本\b\b\b\b\b", show: []string{"$ x日本"}, cur: [2]int{2, 0}},
			{at: 1000, keys: "a", show: []string{"$ x日本"}, cur: [2]int{2, 0}},
			{at: 1500, host: "a", acked: 1, echo: 1, show: []string{"$ a日本"}, cur: [2]int{3, 0}},
			{at: 1600, keys: "b", show: []string{"$ ab 本"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 1700, keys: "\x1b[C", show: []string{"$ ab 本"}, ul: []string{"   _"}, cur: [2]int{5, 0}},
		},
		on: featureOutcome{steps: []step{
			{at: 1800, keys: "\x7f", show: []string{"$ ab 本"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 2100, host: "b\x1b[C\b \b", acked: 4, echo: 4, show: []string{"$ ab 本"}, cur: [2]int{4, 0}},
		}},
		// The blanked half still counts as 日's: backspace deletes
		// two columns, "b" too.
		off: featureOutcome{wrong: 1, steps: []step{
			{at: 1800, keys: "\x7f", show: []string{"$ a  本"}, ul: []string{"   _"}, cur: [2]int{3, 0}},
			{at: 2100, host: "b\x1b[C\b \b", acked: 4, echo: 4, show: []string{"$ ab 本"}, cur: [2]int{4, 0}},
		}},
	},
	{
		// Two backspaces at the start of a wrapped row: the second
		// deletes the last character of the row above.
		feature: "WrapBack", name: "backspace across a wrap", w: 20, h: 4,
		steps: append(start("$ ", "a"), []step{
			{at: 1600, keys: x17 + "b", show: []string{"$ a" + x17, "b"}, ul: []string{ul17, "_"}, cur: [2]int{1, 1}},
			{at: 2100, host: x17 + " \rb", acked: 2, echo: 2, show: []string{"$ a" + x17, "b"}, cur: [2]int{1, 1}},
			{at: 2300, keys: "\x7f", show: []string{"$ a" + x17, ""}, ul: []string{"", "_"}, cur: [2]int{0, 1}},
		}...),
		on: featureOutcome{steps: []step{
			{at: 2400, keys: "\x7f", show: []string{"$ a" + x16, ""}, ul: []string{strings.Repeat(" ", 19) + "_", "_"}, cur: [2]int{19, 0}},
			{at: 2800, host: "\b \b\r\x1b[K\x1b[A\x1b[20G\x1b[K", acked: 4, echo: 4, show: []string{"$ a" + x16, ""}, cur: [2]int{19, 0}},
		}},
		off: featureOutcome{wrong: 1, steps: []step{
			{at: 2400, keys: "\x7f", show: []string{"$ a" + x17, ""}, ul: []string{"", "_"}, cur: [2]int{0, 1}},
			{at: 2800, host: "\b \b\r\x1b[K\x1b[A\x1b[20G\x1b[K", acked: 4, echo: 4, show: []string{"$ a" + x16, ""}, cur: [2]int{19, 0}},
		}},
	},
	{
		// Two left arrows from after "b" at the start of a wrapped
		// row, and "c" inserted before the last "x" of the row above.
		feature: "WrapBack", name: "left arrow across a wrap", w: 20, h: 4,
		steps: append(start("$ ", "a"), []step{
			{at: 1600, keys: x17 + "b", show: []string{"$ a" + x17, "b"}, ul: []string{ul17, "_"}, cur: [2]int{1, 1}},
			{at: 2100, host: x17 + " \rb", acked: 2, echo: 2, show: []string{"$ a" + x17, "b"}, cur: [2]int{1, 1}},
			{at: 2300, keys: "\x1b[D", show: []string{"$ a" + x17, "b"}, cur: [2]int{0, 1}},
		}...),
		on: featureOutcome{steps: []step{
			{at: 2400, keys: "\x1b[D", show: []string{"$ a" + x17, "b"}, cur: [2]int{19, 0}},
			{at: 2500, keys: "c", show: []string{"$ a" + x16 + "c", "b"}, ul: []string{strings.Repeat(" ", 19) + "_"}, cur: [2]int{0, 1}},
			{at: 2900, host: "\b\x1b[A\x1b[20Gcxb\b\b", acked: 5, echo: 5, show: []string{"$ a" + x16 + "c", "xb"}, cur: [2]int{0, 1}},
		}},
		off: featureOutcome{wrong: 1, steps: []step{
			{at: 2400, keys: "\x1b[D", show: []string{"$ a" + x17, "b"}, cur: [2]int{0, 1}},
			{at: 2500, keys: "c", show: []string{"$ a" + x17, "cb"}, ul: []string{"", "__"}, cur: [2]int{1, 1}},
			{at: 2900, host: "\b\x1b[A\x1b[20Gcxb\b\b", acked: 5, echo: 5, show: []string{"$ a" + x16 + "c", "xb"}, cur: [2]int{0, 1}},
		}},
	},
	{
		// "b" is typed in the last column of a shell's line.
		feature: "ShellWrap", name: "typing across the margin", w: 80, h: 4,
		steps: []step{
			{at: 0, host: "$ " + x76, show: []string{"$ " + x76}, cur: [2]int{78, 0}},
			{at: 1000, keys: "a", show: []string{"$ " + x76}, cur: [2]int{78, 0}},
			{at: 1500, host: "a", acked: 1, echo: 1, show: []string{"$ " + x76 + "a"}, cur: [2]int{79, 0}},
		},
		on: featureOutcome{steps: []step{
			{at: 1600, keys: "b", show: []string{"$ " + x76 + "ab", ""}, ul: []string{strings.Repeat(" ", 79) + "_"}, cur: [2]int{0, 1}},
			{at: 1700, keys: "c", show: []string{"$ " + x76 + "ab", "c"}, ul: []string{strings.Repeat(" ", 79) + "_", "_"}, cur: [2]int{1, 1}},
			{at: 2100, host: "b \r", acked: 2, echo: 2, show: []string{"$ " + x76 + "ab", "c"}, ul: []string{"", "_"}, cur: [2]int{1, 1}},
		}},
		// A hidden epoch: shown only when echoed.
		off: featureOutcome{steps: []step{
			{at: 1600, keys: "b", show: []string{"$ " + x76 + "a", ""}, cur: [2]int{79, 0}},
			{at: 1700, keys: "c", show: []string{"$ " + x76 + "a", ""}, cur: [2]int{79, 0}},
			{at: 2100, host: "b \r", acked: 2, echo: 2, show: []string{"$ " + x76 + "ab", ""}, cur: [2]int{0, 1}},
		}},
	},
	{
		// Backspace at the end of the prompt, which bash refuses.
		feature: "LineBounds", name: "backspace into the prompt", w: 20, h: 3,
		steps: append(start("$ ", "a"), []step{
			{at: 1600, keys: "\x7f", show: []string{"$"}, ul: []string{"  _"}, cur: [2]int{2, 0}},
		}...),
		on: featureOutcome{steps: []step{
			{at: 1700, keys: "\x7f", show: []string{"$"}, ul: []string{"  _"}, cur: [2]int{2, 0}},
			{at: 2100, host: "\b \b", acked: 2, echo: 2, show: []string{"$"}, cur: [2]int{2, 0}},
			{at: 2200, host: "\a", acked: 3, echo: 3, show: []string{"$"}, cur: [2]int{2, 0}},
		}},
		off: featureOutcome{wrong: 1, steps: []step{
			{at: 1700, keys: "\x7f", show: []string{"$"}, ul: []string{"  _"}, cur: [2]int{1, 0}},
			{at: 2100, host: "\b \b", acked: 2, echo: 2, show: []string{"$"}, cur: [2]int{1, 0}},
			{at: 2200, host: "\a", acked: 3, echo: 3, show: []string{"$"}, cur: [2]int{2, 0}},
		}},
	},
	{
		// The right arrow at the end of the text, where bash stays.
		feature: "LineBounds", name: "right arrow past the end", w: 20, h: 3,
		steps: start("$ ", "a"),
		on: featureOutcome{steps: []step{
			{at: 1600, keys: "\x1b[C", show: []string{"$ a"}, cur: [2]int{3, 0}},
			{at: 1700, keys: "b", show: []string{"$ ab"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 2200, host: "b", acked: 3, echo: 3, show: []string{"$ ab"}, cur: [2]int{4, 0}},
		}},
		off: featureOutcome{wrong: 1, steps: []step{
			{at: 1600, keys: "\x1b[C", show: []string{"$ a"}, cur: [2]int{4, 0}},
			{at: 1700, keys: "b", show: []string{"$ a b"}, ul: []string{"    _"}, cur: [2]int{5, 0}},
			{at: 2200, host: "b", acked: 3, echo: 3, show: []string{"$ ab"}, cur: [2]int{4, 0}},
		}},
	},
	{
		// Backspace deletes "a" from a row filled to the margin.
		feature: "BlankEnd", name: "backspace in a full row", w: 12, h: 3,
		steps: append(start("$ ", "a"), []step{
			{at: 1550, host: "bcdefghij\r\x1b[3C", acked: 1, echo: 1, show: []string{"$ abcdefghij"}, cur: [2]int{3, 0}},
		}...),
		on: featureOutcome{steps: []step{
			{at: 1600, keys: "\x7f", show: []string{"$ bcdefghi"}, ul: []string{"  __________"}, cur: [2]int{2, 0}},
			{at: 2100, host: "\bbcdefghij \x1b[K\r\x1b[2C", acked: 2, echo: 2, show: []string{"$ bcdefghij"}, cur: [2]int{2, 0}},
		}},
		// The server's "ij" stays at the end, "i" underlined.
		off: featureOutcome{steps: []step{
			{at: 1600, keys: "\x7f", show: []string{"$ bcdefghiij"}, ul: []string{"  _________"}, cur: [2]int{2, 0}},
			{at: 2100, host: "\bbcdefghij \x1b[K\r\x1b[2C", acked: 2, echo: 2, show: []string{"$ bcdefghij"}, cur: [2]int{2, 0}},
		}},
	},
	{
		// "bc" shows; the left arrow, then Escape (unknown effect: a
		// hidden epoch) and "h" inserted before "c".
		feature: "HoldShown", name: "Escape in the middle of a line", w: 20, h: 3,
		steps: append(start("$ ", "a"), []step{
			{at: 1600, keys: "bc", show: []string{"$ abc"}, ul: []string{"   __"}, cur: [2]int{5, 0}},
			{at: 1650, keys: "\x1b[D", show: []string{"$ abc"}, ul: []string{"   __"}, cur: [2]int{4, 0}},
			{at: 1700, keys: "\x1b", show: []string{"$ abc"}, ul: []string{"   __"}, cur: [2]int{4, 0}},
		}...),
		on: featureOutcome{steps: []step{
			{at: 1800, keys: "h", show: []string{"$ abc"}, ul: []string{"   __"}, cur: [2]int{4, 0}},
			{at: 2100, host: "bc\b", acked: 3, echo: 2, show: []string{"$ abc"}, cur: [2]int{4, 0}},
		}},
		// "c" is replaced by hidden guesses: it disappears.
		off: featureOutcome{steps: []step{
			{at: 1800, keys: "h", show: []string{"$ ab"}, ul: []string{"   _"}, cur: [2]int{4, 0}},
			{at: 2100, host: "bc\b", acked: 3, echo: 2, show: []string{"$ abc"}, cur: [2]int{4, 0}},
		}},
	},
	{
		// vi shows insert mode after A, which was guessed as text and
		// killed; "!" is typed with nothing in flight.
		feature: "EditorModes", name: "typing in vi's insert mode", w: 20, h: 5,
		steps: viInsert(),
		// Insert mode is known: "!" shows at once.
		on: featureOutcome{killed: 1, steps: []step{
			{at: 1600, keys: "!", show: []string{"hello world!"}, ul: []string{"           _"}, cur: [2]int{12, 0}, shown: isShown},
			{at: 2100, host: "!", acked: 2, echo: 2, show: []string{"hello world!"}, cur: [2]int{12, 0}},
		}},
		// A key after one of unknown effect: hidden until its echo.
		off: featureOutcome{killed: 1, steps: []step{
			{at: 1600, keys: "!", show: []string{"hello world"}, cur: [2]int{11, 0}, shown: notShown},
			{at: 2100, host: "!", acked: 2, echo: 2, show: []string{"hello world!"}, cur: [2]int{12, 0}},
		}},
	},
}

// TestFeatures turns each feature off alone in a scenario where it
// matters (featureCases) and checks that the behaviour changes as the
// feature's doc says: what the client shows, and how many predictions
// were shown wrong or killed. Every switch must have a case.
func TestFeatures(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range featureCases {
		covered[tc.feature] = true
		sw := switchNamed(t, tc.feature)
		t.Run(tc.feature+"/"+tc.name, func(t *testing.T) {
			for _, on := range []bool{true, false} {
				cfg := Config{Mode: tc.mode, Overwrite: tc.overwrite, Features: GoshFeatures}
				*sw.field(&cfg.Features) = on
				want := tc.off
				if on {
					want = tc.on
				}
				t.Run(fmt.Sprintf("on=%v", on), func(t *testing.T) {
					s := newSimFeatures(t, tc.w, tc.h, cfg)
					s.run(tc.steps)
					s.run(want.steps)
					if st := s.e.Stats(); st.Wrong != want.wrong || st.Killed != want.killed {
						t.Errorf("Stats = %+v, want %d wrong, %d killed", st, want.wrong, want.killed)
					}
				})
			}
		})
	}
	for _, sw := range featureSwitches {
		if !covered[sw.name] {
			t.Errorf("no case turns %s off", sw.name)
		}
	}
}

// switchNamed returns the entry of featureSwitches for the field name.
func switchNamed(t *testing.T, name string) featureSwitch {
	t.Helper()
	for _, sw := range featureSwitches {
		if sw.name == name {
			return sw
		}
	}
	t.Fatalf("no feature %s", name)
	return featureSwitch{}
}

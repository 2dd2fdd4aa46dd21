// Package workload holds the typing workloads of "gosh bench typing": what
// a simulated typist types into a shell on the server, key by key, with
// the pause before each key, and the files the session's fresh working
// directory must hold first.
//
// # Built-in workloads
//
// [Builtin] returns the workloads shipped in the binary, embedded from
// builtin/*.json:
//
//   - shell: commands typed at a bash prompt, with typos fixed by
//     backspace, in-line edits with Ctrl-A, Ctrl-E and the arrow keys,
//     history recalled with the up arrow and a line abandoned with Ctrl-C;
//   - vim: a file edited in vim (insert mode, Escape, h j k l w b 0 $,
//     dd, u, x), left with :q!;
//   - python: the python3 REPL: arithmetic, loops with indented bodies,
//     string methods, exit();
//   - pager: less on a generated file: space, b, j, k, searches, n, N, G,
//     g, q;
//   - cmd: the shell workload of Windows, typed into cmd.exe: echo, dir,
//     type, cd, set /a, copy, a for loop, typos fixed by backspace, in-line
//     edits with Home, End and the arrow keys, history recalled with the up
//     arrow and a line abandoned with Escape;
//   - traps: typing a prediction engine can get wrong, into bash: a
//     password prompt that echoes nothing, a menu that acts on one key
//     without echoing it, tab completion with keys typed right after the
//     Tab, less's / search, vim's mode changes (i, Esc, :set nu, A, o), a
//     prompt that redraws (a right prompt drawn by PROMPT_COMMAND and vi
//     editing mode showing its mode), and a command typed while the last
//     one's output scrolls by.
//
// Every workload starts and ends at the shell prompt, and launches its
// program itself. A workload's Shell says which shell: a POSIX one (the
// default), for which the runner starts "bash --norc --noprofile" (or sh)
// with PS1='$ ' and HISTFILE unset, or cmd.exe ("cmd /d /k prompt $$$S",
// which draws the same "$ " prompt); a system without that shell skips
// the workload. It runs in a fresh directory holding the workload's files;
// the workloads rely on nothing else of the machine (vim and less
// are started with options that make them ignore the user's
// configuration, and without the alternate screen, which stock Mosh does
// not have).
//
// # Typing model
//
// The gaps between keys are drawn by [Typist], seeded, so the built-in
// workloads are reproducible: [Generate] produces them and
// TestBuiltinGenerated fails if the committed JSON differs from its output
// (go test -run TestBuiltinGenerated -update rewrites it).
//
// Within a burst of typing, gaps are log-normal with the mean and standard
// deviation of the inter-key interval (IKI) reported by Dhakal, Feit,
// Kristensson and Oulasvirta, "Observations on Typing from 136 Million
// Keystrokes" (CHI 2018), an online transcription study of 168,000
// volunteers: a mean IKI of 238.66 ms with a standard deviation of
// 111.60 ms (about 52 words per minute). The paper's standard deviation is
// across participants; it stands in here for the spread of one typist's
// gaps. Before the first key of a command, or of a new thought in an
// editor, the typist pauses to think: uniformly 0.5 to 1.5 s. Every gap is
// kept within 30 ms and 3 s, and rounded to the millisecond. A key typed
// right after an Enter within a burst (typing ahead) waits at least
// [TypeAheadGap].
//
// # File format
//
// A user-supplied workload is a JSON object (the notes on the right are
// not part of it):
//
//	{
//	  "name": "grep",                      optional; "custom" if absent
//	  "description": "a few searches",     optional
//	  "shell": "sh",                       optional: "sh" (the default) or "cmd"
//	  "program": "grep",                   optional: an executable the workload needs
//	  "requires": ["less"],                optional: more executables it needs
//	  "files": {"a.txt": "alpha\n"},       optional: relative name -> content
//	  "ready": "$",                        optional: text on the screen when the first key may be typed
//	  "keys": [                            required, at least one
//	    {"key": "g", "gap_ms": 900},       the bytes the terminal sends, and the pause before them
//	    {"key": "\r", "gap_ms": 180},      Enter
//	    {"key": "\u001b[A", "gap_ms": 240} up arrow; "\u007f" is backspace, "\u0003" Ctrl-C
//	  ]
//	}
//
// or just the array of keys. Each key is what one keystroke sends: a
// character, a control character, or a whole escape sequence. gap_ms is a
// number of milliseconds, fractions allowed, from 0 to 60000. File names
// are relative slash-separated paths that stay inside the directory.
// Unknown fields are errors.
package workload

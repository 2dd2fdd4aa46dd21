package workload

import (
	"fmt"
	"strings"
	"time"
)

// named is one keystroke that is not typed text: a control character or
// an escape sequence.
type named string

// The keys of the scripts that are not text.
const (
	enter     named = "\r"
	esc       named = "\x1b"
	backspace named = "\x7f"
	ctrlA     named = "\x01"
	ctrlC     named = "\x03"
	ctrlE     named = "\x05"
	up        named = "\x1b[A"
	home      named = "\x1b[H"
	end       named = "\x1b[F"
	right     named = "\x1b[C"
	left      named = "\x1b[D"
)

// script is a built-in workload before the typist's gaps are drawn.
type script struct {
	name, description, shell, program string
	requires                          []string
	files                             map[string]string
	seed                              uint64
	// bursts are typed one after the other; the typist thinks before
	// the first key of each.
	bursts [][]string
}

// keys spells one burst of typing: a string is typed a character at a
// time, a named key (or a run of them from rep) is one keystroke each.
func keys(parts ...any) []string {
	var ks []string
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			for _, r := range p {
				ks = append(ks, string(r))
			}
		case named:
			ks = append(ks, string(p))
		case []named:
			for _, k := range p {
				ks = append(ks, string(k))
			}
		default:
			panic(fmt.Sprintf("workload: script part of type %T", p))
		}
	}
	return ks
}

// rep is n presses of k.
func rep(n int, k named) []named {
	ks := make([]named, n)
	for i := range ks {
		ks[i] = k
	}
	return ks
}

// gapSource is the provenance line every built-in description ends with.
const gapSource = "Gaps: log-normal with mean 238.66 ms and SD 111.60 ms, the inter-key interval of " +
	"Dhakal, Feit, Kristensson and Oulasvirta, \"Observations on Typing from 136 Million Keystrokes\" (CHI 2018); " +
	"0.5-1.5 s (uniform) before each command; within 30 ms and 3 s; drawn by workload.Generate with seed %d."

// Generate returns the built-in workloads as the seeded typist types them
// now. The committed builtin/*.json, which [Builtin] returns, must be its
// output: TestBuiltinGenerated checks this.
func Generate() []*Workload {
	scripts := []script{shellScript(), vimScript(), pythonScript(), pagerScript(), cmdScript(), trapsScript()}
	ws := make([]*Workload, len(scripts))
	for i, s := range scripts {
		ws[i] = s.generate()
	}
	return ws
}

// generate draws the gaps of s.
func (s script) generate() *Workload {
	t := NewTypist(s.seed)
	w := &Workload{Name: s.name, Description: s.description + " " + fmt.Sprintf(gapSource, s.seed),
		Shell: s.shell, Program: s.program, Requires: s.requires, Files: s.files, Ready: "$"}
	for _, burst := range s.bursts {
		for i, k := range burst {
			gap := t.Gap()
			switch {
			case i == 0:
				gap = t.Think()
			case burst[i-1] == string(enter):
				// Typed ahead while a command runs: not before the
				// server has seen its output through (see trapsScript).
				gap = max(gap, TypeAheadGap)
			}
			w.Keys = append(w.Keys, Key{Key: k, Gap: gap})
		}
	}
	return w
}

// shellScript is commands at a bash prompt.
func shellScript() script {
	return script{
		name: "shell",
		description: "Commands typed at a bash prompt: echo, ls, cat, wc, grep, printf, a for loop; " +
			"typos fixed with backspace, in-line edits with Ctrl-A, Ctrl-E and the arrow keys, " +
			"history recalled with the up arrow, a line abandoned with Ctrl-C.",
		files: map[string]string{
			"notes.txt": "first line of notes\nsecond line\nthird line, the last\n",
			"todo.txt":  "one line per task\nwrite the typing bench\nread the mosh paper\n",
			"sub/a.txt": "a\n",
			"sub/b.txt": "b\n",
		},
		seed: 1,
		bursts: [][]string{
			keys("echo hello world", enter),
			keys("ls", enter),
			keys("cat notes.txt", enter),
			keys("ehco", rep(3, backspace), "cho typo fixed", enter),
			keys("cd sub", enter),
			keys(`basename "$(pwd)"`, enter),
			keys("ls", enter),
			keys("cd ..", enter),
			keys("echo one two three"),
			keys(ctrlA, rep(5, right), "zero ", ctrlE, " four", enter),
			keys(up, enter),
			keys("wc -l notes.txt", enter),
			keys("grep -n line notes.txt", enter),
			keys("echo $((6*7))", enter),
			keys("echo never mind", ctrlC),
			keys(up, up),
			keys(rep(9, backspace), "todo.txt", enter),
			keys("cat todo.txt", enter),
			keys(`printf '%s\n' a b c`, enter),
			keys("echo the quick brown fox"),
			keys(rep(3, left), "red ", enter),
			keys("for i in 1 2 3; do echo $i; done", enter),
			keys("sort todo.txt", enter),
			keys("clear", enter),
		},
	}
}

// TypeAheadGap is the least gap after an Enter within a burst of typing
// (the typist types the next command while the last one's output still
// scrolls by): long enough that the command, short, has finished on the
// server, so that the keys reach the shell, not the terminal's echo in
// the middle of the output, and the reference holds on every link.
const TypeAheadGap = 300 * time.Millisecond

// trapsScript is typing that a prediction engine can get wrong: keys that
// are not echoed, or not where the cursor is, or that change what the
// next keys do. Its length is the script's files and keys.
func trapsScript() script {
	return script{
		name:     "traps",
		program:  "vim",
		requires: []string{"bash", "less", "seq"},
		description: "Traps for speculative local echo, typed into bash: a password prompt that echoes nothing " +
			"(read -s); a menu that acts on one key without echoing it and redraws (read -sn1); tab completion, " +
			"unique and ambiguous (a double Tab lists), with keys typed right after a Tab; a pager's / search " +
			"(less); vim's mode changes (i, Esc, :set nu, A, o, :q!); a prompt that redraws (a nested bash with " +
			"a right prompt drawn by PROMPT_COMMAND, as zsh's RPROMPT, and vi editing mode showing its mode in " +
			"the prompt: Esc, 0, w, i, A); and a command typed while the last one's output scrolls by.",
		files: map[string]string{
			"signin.sh": "read -rsp 'Password: ' pw\necho\necho \"signed in (${#pw} characters, not echoed)\"\n",
			"menu.sh": "items=()\n" +
				"draw() { printf '\\033[H\\033[2JMENU  a: add  l: list  q: quit\\n%s\\n> ' \"$1\"; }\n" +
				"draw 'one key, no Enter'\n" +
				"while read -rsn1 k; do\n" +
				"  case $k in\n" +
				"  a) printf '\\nitem: '; read -r it; items+=(\"$it\"); draw \"added $it\" ;;\n" +
				"  l) draw \"items: ${items[*]}\" ;;\n" +
				"  q) printf '\\033[H\\033[2J'; break ;;\n" +
				"  *) draw \"no such key: $k\" ;;\n" +
				"  esac\n" +
				"done\n",
			"prompt.rc": "PS1='$ '\nn=0\n" +
				"PROMPT_COMMAND='n=$((n+1)); printf \"\\0337\\033[%dG[cmd %d]\\0338\" $((${COLUMNS:-80}-7)) $n'\n" +
				"set -o vi\n" +
				"bind 'set show-mode-in-prompt on'\n" +
				"bind 'set keyseq-timeout 20'\n" +
				"bind 'set vi-ins-mode-string (ins)'\n" +
				"bind 'set vi-cmd-mode-string (cmd)'\n",
			"report-2024.txt": "q1 up, q2 flat, q3 down, q4 up\n",
			"notes-alpha.txt": "alpha\n",
			"notes-beta.txt":  "beta beta\n",
			"story.txt":       story(),
			"vimrc":           "set nocompatible\nset noswapfile\nset t_ti= t_te=\nset ttimeout ttimeoutlen=100\n",
			"poem.txt":        "the echo comes back late\nbut the guess was right\n",
		},
		seed: 6,
		bursts: [][]string{
			keys("bash signin.sh", enter),
			keys("hunter2", enter),
			keys("bash menu.sh", enter),
			keys("a"),
			keys("milk", enter),
			keys("l"),
			keys("x"),
			keys("q"),
			keys("cat rep\t", enter),
			keys("wc -c notes-\t\tb\t", enter),
			keys("ls n\ta\t", enter),
			keys("less -X story.txt", enter),
			keys("/needle", enter),
			keys("n"),
			keys("/latency", enter),
			keys("N"),
			keys("q"),
			keys("vim -u vimrc -i NONE poem.txt", enter),
			keys("i", "so ", esc),
			keys(":set nu", enter),
			keys("A", ", at last", esc),
			keys("o", "a line of its own", esc),
			keys(":q!", enter),
			keys("bash --rcfile prompt.rc", enter),
			keys("echo one", enter),
			keys("echo two", esc, "0w", "i", "and ", esc, "A", " three", enter),
			keys("exit", enter),
			keys("seq 1 300", enter, "echo typed while it scrolled", enter),
		},
	}
}

// cmdScript is commands at a cmd.exe prompt, the shell workload of
// Windows: the same kinds of typing as shellScript's, with what cmd's line
// editing has (Home and End for Ctrl-A and Ctrl-E, Escape to abandon a
// line).
func cmdScript() script {
	return script{
		name:  "cmd",
		shell: ShellCmd,
		description: "Commands typed at a cmd.exe prompt (Windows): echo, dir, type, cd, set /a, copy, " +
			"a for loop; typos fixed with backspace, in-line edits with Home, End and the arrow keys, " +
			"history recalled with the up arrow, a line abandoned with Escape.",
		files: map[string]string{
			"notes.txt": "first line of notes\r\nsecond line\r\nthird line, the last\r\n",
			"todo.txt":  "one line per task\r\nwrite the typing bench\r\nread the mosh paper\r\n",
			"sub/a.txt": "a\r\n",
			"sub/b.txt": "b\r\n",
		},
		seed: 5,
		bursts: [][]string{
			keys("echo hello world", enter),
			keys("dir /b", enter),
			keys("type notes.txt", enter),
			keys("ehco", rep(3, backspace), "cho typo fixed", enter),
			keys("cd sub", enter),
			keys("dir /b", enter),
			keys("cd ..", enter),
			keys("echo one two three"),
			keys(home, rep(5, right), "zero ", end, " four", enter),
			keys(up, enter),
			keys("type notes.txt", enter),
			keys("set /a 6*7", enter),
			keys("echo never mind", esc),
			keys(up, up),
			keys(rep(9, backspace), "todo.txt", enter),
			keys("copy todo.txt done.txt", enter),
			keys("echo the quick brown fox"),
			keys(rep(3, left), "red ", enter),
			keys("for %i in (1 2 3) do @echo %i", enter),
			keys("type done.txt", enter),
			keys("cls", enter),
		},
	}
}

// vimScript is a short edit in vim, without the user's configuration and
// without the alternate screen.
func vimScript() script {
	return script{
		name:    "vim",
		program: "vim",
		description: "A file edited in vim started without the user's configuration: insert-mode typing " +
			"(a typo fixed with backspace), Escape, moves with h j k l w b 0 $ G gg, x, dd and u, :w, a search with / and n, then :q!.",
		files: map[string]string{
			"vimrc": "set nocompatible\nset noswapfile\nset t_ti= t_te=\nset ttimeout ttimeoutlen=100\n",
			"poem.txt": "the link is slow and the packets roam\n" +
				"from cell to cell, from hotel to home\n" +
				"yet every key I type shows here at once\n" +
				"a guess, underlined, until the echo comes\n" +
				"and should the guess be wrong it fades away\n" +
				"the server's screen has the final say\n",
		},
		seed: 2,
		bursts: [][]string{
			keys("vim -u vimrc -i NONE poem.txt", enter),
			keys("jj"),
			keys("A", ", I hope", esc),
			keys("0www"),
			keys("b"),
			keys("i", "quite ", esc),
			keys("$xx"),
			keys("j", "dd"),
			keys("u"),
			keys("kkllllhh"),
			keys("o", "a new line, typed in insert mode, with a tpyo", rep(3, backspace), "ypo", esc),
			keys("0wx"),
			keys("G"),
			keys("o", "and that is all the poem has to say", esc),
			keys("gg"),
			keys("jjj$bb"),
			keys("i", "very ", esc),
			keys("jdd"),
			keys("u"),
			keys("wwx"),
			keys("u"),
			keys("kkk0"),
			keys("A", " over the sea", esc),
			keys("jjjj"),
			keys("o", "the second verse begins on this new line", esc),
			keys("kwwwb"),
			keys("x"),
			keys("u"),
			keys("ggjj"),
			keys("A", " and waits", esc),
			keys("0llll"),
			keys(":w", enter),
			keys("/", "the echo", enter),
			keys("n"),
			keys("i", "still ", esc),
			keys(":q!", enter),
		},
	}
}

// pythonScript is a session in the python3 REPL (the basic one, whatever
// the version).
func pythonScript() script {
	return script{
		name:    "python",
		program: "python3",
		description: "The python3 REPL (python3 -q, the basic REPL): arithmetic, a list of words, " +
			"for loops with indented bodies, string methods, a typo fixed with backspace, exit().",
		seed: 3,
		bursts: [][]string{
			keys("PYTHON_BASIC_REPL=1 python3 -q", enter),
			keys("2 + 3 * 4", enter),
			keys("17 // 5, 17 % 5", enter),
			keys("2 ** 10", enter),
			keys(`words = "the quick brown fox".split()`, enter),
			keys("for w in words:", enter),
			keys("    print(w.upper(), len(w))", enter),
			keys(enter),
			keys(`"mobile shell".title()`, enter),
			keys("sum(range(1, 101))", enter),
			keys("total = 0", enter),
			keys("for n in [3, 1, 4, 1, 5]:", enter),
			keys("    total += n", enter),
			keys(enter),
			keys("total", enter),
			keys("prnit", rep(3, backspace), `int("done")`, enter),
			keys(`", ".join(sorted(words))`, enter),
			keys("len(words) * 2.5", enter),
			keys("exit()", enter),
		},
	}
}

// pagerScript is reading a long file in less, without the user's options
// and without the alternate screen.
func pagerScript() script {
	return script{
		name:    "pager",
		program: "less",
		description: "A generated 300-line file read in less (no user options, no alternate screen): " +
			"space, b, j, k, searches with / and ?, n, N, G, g, 50%, q.",
		files: map[string]string{"story.txt": story()},
		seed:  4,
		bursts: [][]string{
			keys("LESS= LESSHISTFILE=- less -X story.txt", enter),
			keys(" "), keys(" "), keys(" "), keys("b"),
			keys("jjjjj"), keys("kkk"),
			keys("/needle", enter), keys("n"), keys("n"), keys("N"),
			keys("G"), keys("g"),
			keys("/roaming", enter), keys("n"), keys("jj"), keys(" "),
			keys("?prediction", enter), keys("n"), keys("kkkk"),
			keys("50%"), keys("jjj"), keys("b"),
			keys("/latency", enter), keys("n"), keys("n"), keys(" "), keys(" "),
			keys("g"), keys("/echo", enter), keys("n"), keys("jjjj"), keys("kk"),
			keys("G"), keys("?needle", enter), keys("n"), keys("b"), keys("b"),
			keys("/underline", enter), keys("n"), keys("N"), keys("jjjjjj"),
			keys("25%"), keys(" "), keys("kkk"), keys("/packet", enter), keys("n"), keys("n"),
			keys("g"), keys("jjjjj"), keys(" "), keys(" "), keys("b"),
			keys("/server", enter), keys("n"), keys("jjjjjjjj"), keys("kkkkk"),
			keys("/datagram", enter), keys("n"), keys(" "), keys("b"),
			keys("?roaming", enter), keys("N"), keys("n"),
			keys("/terminal", enter), keys("jjj"), keys(" "),
			keys("/cellular", enter), keys("n"), keys("kkkk"),
			keys("75%"), keys("jjjjj"), keys("b"),
			keys("q"),
		},
	}
}

// story returns the file the pager workload reads: 300 numbered lines of
// prose, with the searched words spread through it.
func story() string {
	lines := []string{
		"the mobile shell keeps the session alive while the laptop sleeps",
		"a packet lost on the way is simply superseded by a newer state",
		"roaming from one network to another changes nothing for the user",
		"local prediction shows each key before the server has answered",
		"latency on a cellular link can reach a second or more at times",
		"an unconfirmed guess is drawn with an underline until it is echoed",
		"here is the needle that the reader searches for in the haystack",
		"the server sends the screen, not the bytes that made the screen",
		"every datagram is sealed with a key that only the two ends know",
		"the echo of a keystroke confirms or refutes what was predicted",
		"a terminal is a grid of cells, each with a character and colours",
	}
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%03d  %s\n", i+1, lines[(i*7+i/11)%len(lines)])
	}
	return b.String()
}

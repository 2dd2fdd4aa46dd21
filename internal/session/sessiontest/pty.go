package sessiontest

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PTY is an in-memory pseudo-terminal (session.PTY) with a scripted shell
// behind it. It is safe for concurrent use.
type PTY struct {
	prompt  string
	toProg  chan []byte   // the server's writes, taken by the shell
	winch   chan struct{} // a resize, for the pager to redraw
	output  chan []byte   // the shell's output, taken by Read
	closed  chan struct{} // closed by Close
	exited  chan struct{} // closed when the shell returns
	once    sync.Once
	pending []byte // the rest of an output chunk Read could not take; only Read touches it

	mu       sync.Mutex // guards following
	cols     int
	rows     int
	resizes  int
	received bytes.Buffer // every byte the server wrote
	cat      bytes.Buffer // what "cat" collected
	ended    bool         // the shell ran exit or die
	code     int          // how the shell ended (ExitStatus)
	signal   int
}

// NewShell starts a shell at cols×rows that prints prompt when it is ready
// for a command. It echoes typed characters (CR as CR LF, DEL as
// backspace-space-backspace) and runs, on Enter:
//
//	echo WORDS   prints WORDS
//	size         prints "ROWS COLS"
//	seq N        prints 1 to N, a line each
//	wideseq N    prints 1 to N, a line each, each followed by 120 x's
//	slowseq N    seq, a line every 5 ms
//	yes [N]      prints "y1", "y2", … (each followed by N y's) a line
//	             every millisecond until a Ctrl-C, then "^C" and the prompt
//	cat          collects input, unechoed, until Ctrl-D
//	pager        a full-screen program: on the alternate screen, rows
//	             "page1" to "pageN" above a ":" on the bottom row, with
//	             the cursor after it; redrawn at every key and resize,
//	             back to the primary screen and the prompt on "q"
//	stall        stops reading input for good (a program that never reads)
//	exit [N]     exits with status N (0 if none): Read returns io.EOF
//	die N        ends as if killed by signal N
//
// A shell hung up by Close ends as if killed by SIGHUP (signal 1).
// Anything else prints "?: LINE".
func NewShell(prompt string, cols, rows int) *PTY {
	p := &PTY{prompt: prompt, cols: cols, rows: rows,
		toProg: make(chan []byte), output: make(chan []byte), winch: make(chan struct{}, 1),
		closed: make(chan struct{}), exited: make(chan struct{})}
	go p.run()
	return p
}

// Received returns every byte the server has written to the program.
func (p *PTY) Received() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.received.Bytes())
}

// Cat returns what the last "cat" collected.
func (p *PTY) Cat() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.cat.Bytes())
}

// Size returns the window size and how many times it was changed.
func (p *PTY) Size() (cols, rows, resizes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cols, p.rows, p.resizes
}

// Exited is closed once the shell has exited (session.ExitReporter).
func (p *PTY) Exited() <-chan struct{} { return p.exited }

// ExitStatus is how the shell ended, once Exited is closed.
func (p *PTY) ExitStatus() (code, signal int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code, p.signal
}

// Closed reports whether the server has hung up the terminal.
func (p *PTY) Closed() bool {
	select {
	case <-p.closed:
		return true
	default:
		return false
	}
}

// Read returns the shell's output; io.EOF once it has exited or the
// terminal was closed.
func (p *PTY) Read(b []byte) (int, error) {
	if len(p.pending) == 0 {
		select {
		case out := <-p.output:
			p.pending = out
		case <-p.exited:
			return 0, io.EOF
		case <-p.closed:
			return 0, io.EOF
		}
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}

// Write gives b to the shell; it blocks while the shell does not read.
func (p *PTY) Write(b []byte) (int, error) {
	select {
	case p.toProg <- bytes.Clone(b):
		return len(b), nil
	case <-p.exited:
		return 0, io.ErrClosedPipe
	case <-p.closed:
		return 0, io.ErrClosedPipe
	}
}

// Resize sets the window size.
func (p *PTY) Resize(cols, rows int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cols, p.rows = cols, rows
	p.resizes++
	select {
	case p.winch <- struct{}{}:
	default:
	}
	return nil
}

// Close hangs up: the shell exits, and Close returns once it has.
func (p *PTY) Close() error {
	p.once.Do(func() { close(p.closed) })
	<-p.exited
	return nil
}

// run is the shell.
func (p *PTY) run() {
	defer func() {
		p.mu.Lock()
		if !p.ended { // hung up
			p.code, p.signal = 0, 1
		}
		p.mu.Unlock()
		close(p.exited)
	}()
	var line []byte
	mode := ""
	if !p.print(p.prompt) {
		return
	}
	for {
		var in []byte
		select {
		case in = <-p.toProg:
		case <-p.winch:
			if mode == "pager" && !p.print(p.page()) {
				return
			}
			continue
		case <-p.closed:
			return
		}
		p.mu.Lock()
		p.received.Write(in)
		p.mu.Unlock()
		for _, c := range in {
			if mode == "pager" {
				out := p.page()
				if c == 'q' {
					mode, out = "", "\x1b[?1049l"+p.prompt
				}
				if !p.print(out) {
					return
				}
				continue
			}
			if mode == "cat" {
				if c == 0x04 {
					mode = ""
					if !p.print(p.prompt) {
						return
					}
					continue
				}
				p.mu.Lock()
				p.cat.WriteByte(c)
				p.mu.Unlock()
				continue
			}
			switch c {
			case '\r':
				cmd := string(line)
				line = line[:0]
				if !p.print("\r\n") {
					return
				}
				var ok bool
				if mode, ok = p.command(cmd); !ok {
					return
				}
			case 0x7f:
				if len(line) > 0 {
					line = line[:len(line)-1]
					if !p.print("\b \b") {
						return
					}
				}
			default:
				line = append(line, c)
				if !p.print(string(c)) {
					return
				}
			}
		}
	}
}

// command runs one line; it reports whether the shell goes on, and the
// mode of a program that takes the input next ("cat", "pager").
func (p *PTY) command(line string) (mode string, ok bool) {
	name, arg, _ := strings.Cut(line, " ")
	var out string
	switch name {
	case "":
	case "exit", "die":
		n, _ := strconv.Atoi(arg)
		p.mu.Lock()
		p.ended = true
		if name == "exit" {
			p.code, p.signal = n, 0
		} else {
			p.code, p.signal = 0, n
		}
		p.mu.Unlock()
		return "", false
	case "echo":
		out = arg + "\r\n"
	case "size":
		p.mu.Lock()
		out = fmt.Sprintf("%d %d\r\n", p.rows, p.cols)
		p.mu.Unlock()
	case "seq":
		n, _ := strconv.Atoi(arg)
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%d\r\n", i)
		}
		out = b.String()
	case "wideseq":
		n, _ := strconv.Atoi(arg)
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%d %s\r\n", i, strings.Repeat("x", 120))
		}
		out = b.String()
	case "slowseq": // seq, a line every 5 ms
		n, _ := strconv.Atoi(arg)
		for i := 1; i <= n; i++ {
			if !p.print(fmt.Sprintf("%d\r\n", i)) {
				return "", false
			}
			time.Sleep(5 * time.Millisecond)
		}
	case "yes": // a line every millisecond until Ctrl-C
		pad, _ := strconv.Atoi(arg)
		for i := 1; ; i++ {
			select {
			case in := <-p.toProg:
				if bytes.IndexByte(in, 0x03) >= 0 {
					return "", p.print("^C\r\n" + p.prompt)
				}
			case <-p.closed:
				return "", false
			default:
			}
			if !p.print(fmt.Sprintf("y%d%s\r\n", i, strings.Repeat("y", pad))) {
				return "", false
			}
			time.Sleep(time.Millisecond)
		}
	case "cat":
		p.mu.Lock()
		p.cat.Reset()
		p.mu.Unlock()
		return "cat", true
	case "pager":
		return "pager", p.print("\x1b[?1049h" + p.page())
	case "stall":
		<-p.closed
		return "", false
	default:
		out = "?: " + line + "\r\n"
	}
	return "", p.print(out + p.prompt)
}

// page draws the pager's screen at the current size.
func (p *PTY) page() string {
	p.mu.Lock()
	rows := p.rows
	p.mu.Unlock()
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	for i := 1; i < rows; i++ {
		fmt.Fprintf(&b, "page%d\r\n", i)
	}
	b.WriteString(":")
	return b.String()
}

// print sends s to the reader; false when the terminal was closed.
func (p *PTY) print(s string) bool {
	select {
	case p.output <- []byte(s):
		return true
	case <-p.closed:
		return false
	}
}

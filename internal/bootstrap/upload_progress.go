package bootstrap

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// An upload that lasts longer than progressAfter shows its progress on
// the user's stderr: on a terminal one line, rewritten every
// progressTick; otherwise a line once the rate is known, then one every
// progressEvery. Once it is over, a last line says how long it took.
//
// What the client can count is the bytes it has handed to the SSH
// session, which runs up to the remote's channel window ahead of what the
// remote has received: OpenSSH's window is 2 MB, half the upload, and 30 s
// of a 3G link. So the progress shows an estimate of what has arrived:
// the rate is measured from the second second on (after the first burst
// that fills the window), over the last rateWindow, and the link is taken
// to have carried rate × the time since the first byte, up to what was
// handed over. The rate stops being measured when the stream has been
// read to its end (what is left is in flight).
const (
	progressAfter = time.Second
	progressTick  = 250 * time.Millisecond
	progressEvery = 10 * time.Second
	plainFirst    = 3 * time.Second
	rateSkip      = time.Second            // after the first byte: the window's burst
	rateWindow    = 5 * time.Second        // the rate is measured over this much
	rateSpan      = 500 * time.Millisecond // and at least this much
)

// uploadProgress shows an upload's progress. It is a pure core: the time
// comes in as an argument.
type uploadProgress struct {
	w       io.Writer
	tty     bool // rewrite one line with \r
	start   time.Time
	first   time.Time // when the first byte was handed over (zero: not yet)
	samples []progressSample
	rate    float64   // bytes/s; 0 until measured
	printed time.Time // when a line was last printed (zero: never)
	width   int       // the length of the line on the terminal
}

type progressSample struct {
	t    time.Time
	sent int64
}

// newUploadProgress starts showing an upload that starts at start on w,
// a terminal if tty.
func newUploadProgress(w io.Writer, tty bool, start time.Time) *uploadProgress {
	return &uploadProgress{w: w, tty: tty, start: start}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// update records that at now sent bytes have been handed over, of total
// (exact, or an estimate), and whether the stream has been read to its
// end; it shows the progress when it is due.
func (p *uploadProgress) update(now time.Time, sent, total int64, exact, end bool) {
	if sent > 0 && p.first.IsZero() {
		p.first = now
	}
	// (The comparisons allow half a tick: ticks come a little late.)
	if !end && !p.first.IsZero() && now.Sub(p.first) >= rateSkip-progressTick/2 {
		p.samples = append(p.samples, progressSample{now, sent})
		for len(p.samples) > 1 && now.Sub(p.samples[0].t) > rateWindow {
			p.samples = p.samples[1:]
		}
		if s := p.samples[0]; now.Sub(s.t) >= rateSpan-progressTick/2 {
			p.rate = float64(sent-s.sent) / now.Sub(s.t).Seconds()
		}
	}
	if now.Sub(p.start) < progressAfter-progressTick/2 {
		return
	}
	if !p.tty {
		// Plain lines are few: the first once there is a rate to show
		// (or at plainFirst without one), then one every progressEvery.
		if p.printed.IsZero() && p.rate <= 0 && now.Sub(p.start) < plainFirst ||
			!p.printed.IsZero() && now.Sub(p.printed) < progressEvery {
			return
		}
	}
	p.show(now, p.line(now, sent, total, exact))
}

// line describes the upload at now.
func (p *uploadProgress) line(now time.Time, sent, total int64, exact bool) string {
	approx := ""
	if !exact {
		approx = "~"
	}
	if p.rate <= 0 || total <= 0 {
		return fmt.Sprintf("gosh: uploading %s%s", approx, formatBytes(total))
	}
	arrived := min(float64(sent), p.rate*now.Sub(p.first).Seconds())
	pct := min(99, int(100*arrived/float64(total)))
	left := "finishing"
	if l := time.Duration((float64(total) - arrived) / p.rate * float64(time.Second)); l >= time.Second {
		left = formatDuration(l) + " left"
	}
	return fmt.Sprintf("gosh: uploading %s of %s%s (%d%%), %s, %s",
		formatBytes(int64(arrived)), approx, formatBytes(total), pct, formatRate(p.rate), left)
}

// finish ends the display at now, after sent bytes, ok if the upload
// succeeded: a last line if any progress was shown.
func (p *uploadProgress) finish(now time.Time, sent int64, ok bool) {
	if p.printed.IsZero() {
		return
	}
	if !ok {
		if p.tty { // the error goes on a clean line
			fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		}
		return
	}
	took := now.Sub(p.start)
	p.show(now, fmt.Sprintf("gosh: uploaded %s in %s (%s)", formatBytes(sent), formatDuration(took),
		formatRate(float64(sent)/took.Seconds())))
	if p.tty {
		fmt.Fprint(p.w, "\n")
	}
}

// show prints line: over the last one on a terminal, else on a line of
// its own.
func (p *uploadProgress) show(now time.Time, line string) {
	p.printed = now
	if !p.tty {
		fmt.Fprintln(p.w, line)
		return
	}
	pad := max(0, p.width-len(line))
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
}

// formatBytes is n in KB or MB (decimal, as link rates are).
func formatBytes(n int64) string {
	if n < 1e6 {
		return fmt.Sprintf("%d KB", (n+500)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// formatRate is bytes/s in KB/s or MB/s.
func formatRate(r float64) string {
	if r < 1e6 {
		return fmt.Sprintf("%.0f KB/s", r/1e3)
	}
	return fmt.Sprintf("%.1f MB/s", r/1e6)
}

// formatDuration is d in whole seconds: "43 s", "1m05s".
func formatDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s < 60 {
		return fmt.Sprintf("%d s", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

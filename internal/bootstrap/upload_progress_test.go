package bootstrap

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// link is an upload through an SSH channel whose window lets the first
// window bytes go as fast as the compressor makes them (burst bytes/s),
// over a link of rate bytes/s: what has been handed over at a time, and
// when the upload is done.
type link struct {
	total, window int64
	rate          float64
	delay         time.Duration // before the first byte (the session's start)
}

const burst = 8e6 // bytes/s: gzip -6 of a gosh binary on one core

func (l link) sent(d time.Duration) int64 {
	if d < l.delay {
		return 0
	}
	s := (d - l.delay).Seconds()
	return min(l.total, min(l.window, int64(burst*s))+int64(l.rate*s))
}

func (l link) arrived(d time.Duration) float64 {
	return min(float64(l.total), l.rate*max(0, d-l.delay).Seconds())
}

func (l link) duration() time.Duration {
	return l.delay + time.Duration(float64(l.total)/l.rate*float64(time.Second))
}

// simulate drives an uploadProgress over l with a fake clock ticking every
// progressTick, and returns what it wrote and, for each tick, what was
// on the line (a terminal's) after it.
func simulate(t *testing.T, l link, tty, exact, ok bool) (out string, shown []string) {
	t.Helper()
	var w bytes.Buffer
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := newUploadProgress(&w, tty, start)
	end := l.duration()
	for d := progressTick; d < end; d += progressTick {
		sent := l.sent(d)
		p.update(start.Add(d), sent, l.total, exact, sent == l.total)
		s := w.String()
		shown = append(shown, s[strings.LastIndexAny(s, "\r\n")+1:])
	}
	p.finish(start.Add(end), l.total, ok)
	return w.String(), shown
}

var progressRE = regexp.MustCompile(`^gosh: uploading ([0-9.]+) (KB|MB) of (~?)([0-9.]+) MB \((\d+)%\), (\d+) KB/s, (?:(\d+) s left|(\d+)m(\d\d)s left|finishing) *$`)

// parseProgress reads a progress line: what has arrived, the rate, the
// time left.
func parseProgress(t *testing.T, line string) (arrived, rate float64, pct int, left time.Duration, ok bool) {
	m := progressRE.FindStringSubmatch(line)
	if m == nil {
		return 0, 0, 0, 0, false
	}
	arrived, _ = strconv.ParseFloat(m[1], 64)
	if m[2] == "MB" {
		arrived *= 1e6
	} else {
		arrived *= 1e3
	}
	pct, _ = strconv.Atoi(m[5])
	rate, _ = strconv.ParseFloat(m[6], 64)
	var s int
	switch {
	case m[7] != "":
		s, _ = strconv.Atoi(m[7])
	case m[8] != "":
		mins, _ := strconv.Atoi(m[8])
		secs, _ := strconv.Atoi(m[9])
		s = mins*60 + secs
	}
	return arrived, rate * 1e3, pct, time.Duration(s) * time.Second, true
}

// TestUploadProgressTerminal: over a 3G-like link (60 KB/s, the first
// 2 MB handed over at once) a terminal shows one line, rewritten, that
// from the rate's first measure on says what has arrived, the rate and
// the time left within a few percent, never goes back, and ends in a
// line saying how long the upload took.
func TestUploadProgressTerminal(t *testing.T) {
	l := link{total: 4_200_000, window: 2 << 20, rate: 60_000, delay: 500 * time.Millisecond}
	out, shown := simulate(t, l, true, true, true)
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Errorf("a terminal gets one line, rewritten, and its newline at the end: %q", out)
	}
	if !strings.HasPrefix(out, "\rgosh: uploading ") {
		t.Errorf("output starts %q", out[:min(len(out), 40)])
	}
	lastPct := 0
	measured := 0
	for i, line := range shown {
		d := time.Duration(i+1) * progressTick
		if d < progressAfter {
			if line != "" {
				t.Fatalf("at %v (before %v) the line is %q", d, progressAfter, line)
			}
			continue
		}
		arrived, rate, pct, left, ok := parseProgress(t, line)
		if !ok {
			if measured > 0 || d > 3*time.Second || !strings.HasPrefix(line, "gosh: uploading 4.2 MB") {
				t.Fatalf("at %v: line %q", d, line)
			}
			continue
		}
		measured++
		if pct < lastPct || pct > 99 {
			t.Errorf("at %v: %d%% after %d%%", d, pct, lastPct)
		}
		lastPct = pct
		if want := l.arrived(d); arrived < want*0.9-2e4 || arrived > want*1.1+2e4 {
			t.Errorf("at %v: shows %.0f bytes arrived, the link carried %.0f: %q", d, arrived, want, line)
		}
		if rate < l.rate*0.95 || rate > l.rate*1.05 {
			t.Errorf("at %v: rate %.0f, want %.0f", d, rate, l.rate)
		}
		if want := l.duration() - d; left < want-2*time.Second || left > want+2*time.Second {
			t.Errorf("at %v: %v left, want %v: %q", d, left, want, line)
		}
	}
	if measured < len(shown)/2 {
		t.Errorf("only %d of %d lines had a measure", measured, len(shown))
	}
	final := out[strings.LastIndex(out, "\r")+1:]
	if want := "gosh: uploaded 4.2 MB in 1m11s (60 KB/s)"; !strings.HasPrefix(final, want) || strings.TrimRight(final, " \n") != want {
		t.Errorf("final line %q, want %q", final, want)
	}
	// Every rewrite covers the line before it.
	segs := strings.Split(strings.TrimSuffix(out, "\n"), "\r")[1:]
	for i := 1; i < len(segs); i++ {
		if len(segs[i]) < len(strings.TrimRight(segs[i-1], " ")) {
			t.Fatalf("%q does not cover %q", segs[i], segs[i-1])
		}
	}
}

// TestUploadProgressNotTerminal: elsewhere, a plain line every
// progressEvery, then the last one; no carriage returns.
func TestUploadProgressNotTerminal(t *testing.T) {
	l := link{total: 4_200_000, window: 2 << 20, rate: 60_000}
	out, _ := simulate(t, l, false, true, true)
	if strings.Contains(out, "\r") {
		t.Errorf("carriage return in %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := int(l.duration()/progressEvery) + 2 // from progressAfter on, and the last
	if len(lines) < want-1 || len(lines) > want {
		t.Errorf("%d lines, want %d:\n%s", len(lines), want, out)
	}
	if !strings.HasPrefix(lines[len(lines)-1], "gosh: uploaded 4.2 MB in ") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
	for _, line := range lines[1 : len(lines)-1] {
		if _, _, _, _, ok := parseProgress(t, line); !ok {
			t.Errorf("line %q has no progress", line)
		}
	}
}

// TestUploadProgressQuick: an upload of less than progressAfter shows
// nothing at all.
func TestUploadProgressQuick(t *testing.T) {
	for _, tty := range []bool{true, false} {
		out, _ := simulate(t, link{total: 4_200_000, window: 2 << 20, rate: 10e6}, tty, true, true)
		if out != "" {
			t.Errorf("tty %v: %q", tty, out)
		}
	}
}

// TestUploadProgressFailed: a failed upload's line is cleared on a
// terminal (the error that follows starts on a clean line), and gets no
// "uploaded" line elsewhere.
func TestUploadProgressFailed(t *testing.T) {
	l := link{total: 4_200_000, window: 2 << 20, rate: 60_000}
	out, _ := simulate(t, l, true, true, false)
	last := out[strings.LastIndex(out[:len(out)-1], "\r"):]
	if strings.TrimSpace(last) != "" || !strings.HasSuffix(out, "\r") || strings.Contains(out, "uploaded") {
		t.Errorf("a failed upload ends %q", last)
	}
	out, _ = simulate(t, l, false, true, false)
	if strings.Contains(out, "uploaded") {
		t.Errorf("a failed upload says %q", out)
	}
}

// TestUploadProgressEstimate: a total that is an estimate (a stream
// compressed while it is sent) is shown as one.
func TestUploadProgressEstimate(t *testing.T) {
	_, shown := simulate(t, link{total: 4_200_000, window: 2 << 20, rate: 60_000}, true, false, true)
	line := shown[len(shown)/2]
	if !strings.Contains(line, " of ~4.2 MB ") {
		t.Errorf("line %q does not say the total is an estimate", line)
	}
}

// TestUploadProgressFastLink: on a link faster than the window (all is
// handed over within the first seconds), the rate measured while sending
// still gives the time left, and the line says it is finishing at the end.
func TestUploadProgressFastLink(t *testing.T) {
	l := link{total: 4_200_000, window: 2 << 20, rate: 1_000_000}
	_, shown := simulate(t, l, true, true, true)
	for i, line := range shown {
		d := time.Duration(i+1) * progressTick
		if d >= 2*time.Second {
			if _, rate, _, _, ok := parseProgress(t, line); ok && (rate < 0.9e6 || rate > 1.1e6) {
				t.Errorf("at %v: %q", d, line)
			}
		}
	}
	if last := shown[len(shown)-1]; !strings.HasSuffix(strings.TrimRight(last, " "), ", finishing") {
		t.Errorf("last line %q, want it to say the upload is finishing", last)
	}
}

func TestFormatProgress(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{formatBytes(0), "0 KB"},
		{formatBytes(999_499), "999 KB"},
		{formatBytes(5_943_478), "5.9 MB"},
		{formatRate(61_234), "61 KB/s"},
		{formatRate(12_500_000), "12.5 MB/s"},
		{formatDuration(43 * time.Second), "43 s"},
		{formatDuration(65*time.Second + 400*time.Millisecond), "1m05s"},
		{formatDuration(0), "0 s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

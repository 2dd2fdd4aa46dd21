package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/bench/report"
	"github.com/gosh-term/gosh/internal/bench/workload"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/vt"
)

// PaperOptions configure [Paper].
type PaperOptions struct {
	// Quick runs fewer keystrokes and fewer experiments (under 2 minutes).
	Quick bool
	// Seed makes the links' randomness repeatable.
	Seed uint64
	// Out is the directory the SVG figures are written to.
	Out string
	// Pacing is the gosh transports' pacing (ssp.Pacing).
	Pacing ssp.Pacing
	// Only names the experiments to run ([PaperExperiments]); empty runs
	// every one.
	Only []string
	// Stdout receives the report, Progress a line per step.
	Stdout, Progress io.Writer
}

// Keystrokes of this system's shell workload ([workload.Default]) typed
// per experiment.
const (
	paperKeys      = 100
	paperQuickKeys = 20
)

// experiment is one typing figure of the paper or of CS244's reproduction.
type experiment struct {
	name, link string
	with       []string
	quick      bool // part of a --quick run
	// published are the figures the paper reports, by transport.
	published map[string]string
}

// experiments: the Mosh paper (Winstein & Balakrishnan, USENIX ATC 2012),
// section 4: keystroke response over Sprint's EV-DO network (Figure 2)
// and with 50 % round-trip loss; and the Stanford CS244 reproduction's 3G
// and Wi-Fi links.
var experiments = []experiment{
	{name: "EV-DO (paper, Figure 2)", link: "evdo", with: []string{TransportSSH, TransportGosh, TransportMosh}, quick: true,
		published: map[string]string{
			TransportSSH:  "median 503 ms",
			TransportGosh: "Mosh: median < 5 ms, 70 % within 5 ms, 0.9 % wrong",
			TransportMosh: "median < 5 ms, 70 % within 5 ms, 0.9 % wrong",
		}},
	{name: "50 % round-trip loss (paper)", link: "loss50", with: []string{TransportSSH, TransportGoshNoPredict, TransportGosh}, quick: true,
		published: map[string]string{
			TransportSSH:           "median 416 ms, mean 16.8 s",
			TransportGoshNoPredict: "Mosh without prediction: median 222 ms, mean 329 ms",
		}},
	{name: "CS244 3G", link: "cs244-3g", with: []string{TransportSSH, TransportGosh, TransportMosh}},
	{name: "CS244 Wi-Fi", link: "cs244-wifi", with: []string{TransportSSH, TransportGosh, TransportMosh}},
}

// PaperExperiments names the experiments of [Paper], in the order it runs
// them: the typing figures by their link, then the flood and roaming.
func PaperExperiments() []string {
	var names []string
	for _, e := range experiments {
		names = append(names, e.link)
	}
	return append(names, "flood", "roaming")
}

// CheckPaperOnly returns an error naming the first of only that is not an
// experiment of [Paper].
func CheckPaperOnly(only []string) error {
	for _, name := range only {
		if !slices.Contains(PaperExperiments(), name) {
			return fmt.Errorf("unknown experiment %q: want some of %s", name, strings.Join(PaperExperiments(), ", "))
		}
	}
	return nil
}

// Paper runs the paper's experiments one after another and reports each
// beside the published figures: the typing figures, then interrupting a
// flood and roaming.
func Paper(ctx context.Context, o PaperOptions) error {
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	out := o.Stdout
	started := time.Now()
	fmt.Fprintf(out, "gosh bench paper: machine %s, seed %d\n", Machine(), o.Seed)
	w, err := workload.Lookup(workload.Default())
	if err != nil {
		return err
	}
	keys := paperKeys
	if o.Quick {
		keys = paperQuickKeys
	}
	tb, why, err := newTypingBench(ctx, w, keys, progress)
	if err != nil {
		return err
	}
	if tb == nil {
		return fmt.Errorf("bench: the %s workload cannot run: %s", w.Name, why)
	}
	defer tb.close()
	tb.pacing = o.Pacing
	fmt.Fprintf(out, "gosh's pacing: %v\n", o.Pacing)
	if err := CheckPaperOnly(o.Only); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	wanted := func(name string) bool { return len(o.Only) == 0 || slices.Contains(o.Only, name) }
	for i, e := range experiments {
		if o.Quick && !e.quick || !wanted(e.link) {
			continue
		}
		link, err := linkem.LookupProfile(e.link)
		if err != nil {
			return err
		}
		with := e.with
		if o.Quick {
			with = slices.DeleteFunc(slices.Clone(with), func(t string) bool { return t == TransportMosh })
		}
		results, err := tb.run(ctx, link, with, o.Seed+uint64(i)*100_000)
		if err != nil {
			return err
		}
		title := fmt.Sprintf("%s: %s, %d keystrokes of the %s workload", e.name, link.Description, len(tb.w.Keys), tb.w.Name)
		fmt.Fprintln(out)
		if err := writeResults(out, title, results); err != nil {
			return err
		}
		for _, r := range results {
			if p := e.published[r.Transport]; p != "" {
				fmt.Fprintf(out, "  published, %s: %s\n", r.Transport, p)
			}
		}
		svg := filepath.Join(o.Out, "paper-"+e.link+".svg")
		short := fmt.Sprintf("%s, %d keystrokes", e.name, len(tb.w.Keys))
		if err := writeFile(svg, func(w io.Writer) error { return report.WriteCDF(w, short, seriesOf(rowsOf(results))) }); err != nil {
			return err
		}
		fmt.Fprintf(out, "  figure: %s\n", svg)
	}
	with := []string{TransportSSH, TransportGosh, TransportMosh}
	if o.Quick {
		with = []string{TransportSSH, TransportGosh}
	}
	if wanted("flood") {
		if err := paperFlood(ctx, tb, with, o.Seed, out, progress); err != nil {
			return err
		}
	}
	if wanted("roaming") {
		if err := paperRoam(ctx, tb, with, o.Seed, out, progress); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\ntotal time %v\n", time.Since(started).Round(time.Second))
	return nil
}

// Bounds of the flood and roaming experiments.
const (
	floodRun   = 2 * time.Second  // the flood runs this long before Ctrl-C
	promptWait = 60 * time.Second // the longest wait for the prompt
	roamWait   = 10 * time.Second // the longest wait for output after a move
)

// paperFlood: over CS244's 3G link, start a flood of output, press Ctrl-C
// after floodRun, and time until the prompt is back (Mosh's "Control-C
// works" claim: the client does not have to receive the flood's backlog).
func paperFlood(ctx context.Context, tb *typingBench, with []string, seed uint64, out, progress io.Writer) error {
	link, err := linkem.LookupProfile("cs244-3g")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nInterrupting a flood: %q for %v, then Ctrl-C, over %s (%s)\n", strings.TrimSpace(floodKeys[shellOf(&tb.w)]), floodRun, link.Name, link.Description)
	fmt.Fprintf(out, "%-16s %-16s %s\n", "transport", "Ctrl-C to prompt", "bottleneck queue (max)")
	for i, name := range with {
		d, q, err := floodOnce(ctx, tb, name, link, seed+uint64(i)*7, progress)
		switch {
		case err != nil:
			fmt.Fprintf(out, "%-16s %s\n", name, err)
		case d < 0:
			fmt.Fprintf(out, "%-16s %-16s %.0f ms\n", name, fmt.Sprintf("not within %v", promptWait), q.Seconds()*1000)
		default:
			fmt.Fprintf(out, "%-16s %-16s %.0f ms\n", name, fmt.Sprintf("%.3f s", d.Seconds()), q.Seconds()*1000)
		}
	}
	return nil
}

// floodOnce returns the time from Ctrl-C to the prompt (negative if it did
// not come back) and the longest queueing delay at the link's bottleneck,
// or why the transport could not run.
func floodOnce(ctx context.Context, tb *typingBench, name string, link linkem.Profile, seed uint64, progress io.Writer) (time.Duration, time.Duration, error) {
	lv, err := tb.open(ctx, "flood", name, link, seed, progress)
	if err != nil {
		return 0, 0, err
	}
	defer lv.close()
	m := lv.screen()
	if err := lv.typeKeys([]byte(floodKeys[shellOf(&tb.w)])); err != nil {
		return 0, 0, err
	}
	time.Sleep(floodRun)
	t0 := time.Now()
	if err := lv.typeKeys([]byte("\x03")); err != nil {
		return 0, 0, err
	}
	for time.Since(t0) < promptWait {
		if at := m.waitFor(time.Second, atPrompt); !at.IsZero() {
			return at.Sub(t0), lv.queue(), nil
		}
		if lv.ended() {
			// Wine's cmd.exe, for one, has no Ctrl-C handler.
			return 0, 0, errors.New("the session ended: the shell exited on Ctrl-C")
		}
	}
	return -1, lv.queue(), nil
}

// atPrompt reports whether the cursor is just after an empty prompt.
func atPrompt(fb *vt.Framebuffer) bool {
	x, y := fb.Cursor()
	return x == 2 && strings.TrimRight(fb.Row(y).Text(), " ") == "$"
}

// paperRoam: over EV-DO, the client moves to a new address (the relay's
// side facing the server is rebound, as a NAT rebinding or a move to
// another network looks to the server); then a command is typed, and the
// time from its Enter to its output is measured.
func paperRoam(ctx context.Context, tb *typingBench, with []string, seed uint64, out, progress io.Writer) error {
	link, err := linkem.LookupProfile("evdo")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nRoaming: the client moves to a new address, then runs a command, over %s (%s)\n", link.Name, link.Description)
	fmt.Fprintf(out, "%-16s %s\n", "transport", "Enter to output after the move")
	for i, name := range with {
		d, err := roamOnce(ctx, tb, name, link, seed+uint64(i)*11, progress)
		switch {
		case err != nil:
			fmt.Fprintf(out, "%-16s %s\n", name, err)
		case d < 0:
			fmt.Fprintf(out, "%-16s never (no output within %v: a TCP connection is bound to the old address)\n", name, roamWait)
		default:
			fmt.Fprintf(out, "%-16s %.3f s\n", name, d.Seconds())
		}
	}
	return nil
}

// roamOnce returns the time from Enter to the command's output after a
// move (negative if it never came), or why the transport could not run.
func roamOnce(ctx context.Context, tb *typingBench, name string, link linkem.Profile, seed uint64, progress io.Writer) (time.Duration, error) {
	lv, err := tb.open(ctx, "roaming", name, link, seed, progress)
	if err != nil {
		return 0, err
	}
	defer lv.close()
	m := lv.screen()
	showsLine := func(text string) func(*vt.Framebuffer) bool {
		return func(fb *vt.Framebuffer) bool {
			for y := range fb.Height() {
				if strings.TrimRight(fb.Row(y).Text(), " ") == text {
					return true
				}
			}
			return false
		}
	}
	if err := lv.typeKeys([]byte("echo before-move\r")); err != nil {
		return 0, err
	}
	if m.waitFor(roamWait, showsLine("before-move")).IsZero() {
		return 0, fmt.Errorf("no output before the move")
	}
	lv.roam()
	time.Sleep(time.Second)
	if err := lv.typeKeys([]byte("echo after-move")); err != nil {
		return 0, err
	}
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	if err := lv.typeKeys([]byte("\r")); err != nil {
		return 0, err
	}
	at := m.waitFor(roamWait, showsLine("after-move"))
	if at.IsZero() {
		return -1, nil
	}
	return at.Sub(t0), nil
}

// open starts the named transport over link for one experiment, in the
// workload's fresh directory, and waits for its first screen. An error
// that starts with "skipped:" says the transport cannot run here.
func (tb *typingBench) open(ctx context.Context, experiment, name string, link linkem.Profile, seed uint64, progress io.Writer) (live, error) {
	start, err := starterFor(name, tb.pacing)
	if err != nil {
		return nil, fmt.Errorf("skipped: %v", err)
	}
	if err := resetDir(tb.spec.Dir, &tb.w); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "%s/%s\n", experiment, name)
	lv, err := start(ctx, tb.spec, link, seed)
	if err != nil {
		return nil, err
	}
	if err := waitReady(lv.screen(), &tb.w, readyTimeout, lv.typeKeys); err != nil {
		lv.close()
		return nil, err
	}
	return lv, nil
}

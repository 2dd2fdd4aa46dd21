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
	// Quick runs fewer keystrokes, fewer experiments and one run (a few
	// minutes).
	Quick bool
	// Seed makes the links' randomness repeatable.
	Seed uint64
	// Runs is how many times each transport runs each experiment, one
	// seed after another; 0 means paperRuns, or 1 with Quick.
	Runs int
	// Out is the directory the SVG figures are written to.
	Out string
	// Pacing is the gosh transports' pacing (ssp.Pacing).
	Pacing ssp.Pacing
	// Gosh is the gosh binary, run as a user runs it (see
	// TypingOptions.Gosh); "" runs gosh's loops in this process.
	Gosh string
	// Only, if not empty, names the experiments to run, of
	// PaperExperiments; each keeps the seeds it has in a whole run.
	Only []string
	// Stdout receives the report, Progress a line per step.
	Stdout, Progress io.Writer
}

// Keystrokes of each workload typed per experiment by a --quick run
// (otherwise, all of them), and the runs of each experiment.
const (
	paperQuickKeys = 20
	paperRuns      = 5
)

// paperWorkloads are typed in every typing experiment, one table each:
// this system's shell workload whole, and the workload of traps for a
// prediction engine beside it.
func paperWorkloads() []string { return []string{workload.Default(), "traps"} }

// experiment is one typing figure of the paper or of CS244's reproduction.
type experiment struct {
	name, link string
	with       []string
	quick      bool // part of a --quick run
	// published are the figures the paper reports, said as the paper
	// says them.
	published string
}

// experiments: the Mosh paper (Winstein & Balakrishnan, USENIX ATC 2012),
// section 4: keystroke response over Sprint's EV-DO network (Figure 2)
// and with 50 % round-trip loss; and the Stanford CS244 reproduction's 3G
// and Wi-Fi links. Stock Mosh runs in every one of them.
var experiments = []experiment{
	{name: "EV-DO (paper, Figure 2)", link: "evdo", with: []string{TransportSSH, TransportGosh, TransportMosh}, quick: true,
		published: "SSH median 503 ms; Mosh median < 5 ms, 70 % of keystrokes shown within 5 ms, 0.9 % shown wrongly"},
	{name: "50 % round-trip loss (paper)", link: "loss50",
		with: []string{TransportSSH, TransportGoshNoPredict, TransportMoshNoPredict, TransportGosh, TransportMosh}, quick: true,
		published: "SSH median 416 ms, mean 16.8 s; Mosh without prediction median 222 ms, mean 329 ms"},
	{name: "CS244 3G", link: "cs244-3g", with: []string{TransportSSH, TransportGosh, TransportMosh}},
	{name: "CS244 Wi-Fi", link: "cs244-wifi", with: []string{TransportSSH, TransportGosh, TransportMosh}},
}

// The experiments that are not typing, by their names in
// PaperOptions.Only.
const (
	paperFloodName = "flood"
	paperRoamName  = "roaming"
)

// PaperExperiments are the names of the paper's experiments, as
// PaperOptions.Only takes them: the typing experiments by their links,
// then the flood and roaming.
func PaperExperiments() []string {
	var names []string
	for _, e := range experiments {
		names = append(names, e.link)
	}
	return append(names, paperFloodName, paperRoamName)
}

// paperOthersWith are the transports of the experiments that are not
// typing (interrupting a flood, roaming).
var paperOthersWith = []string{TransportSSH, TransportGosh, TransportMosh}

// paperSource labels the published figures.
const paperSource = "Mosh paper, 2012 (published, not measured here)"

// Paper runs the paper's experiments one after another and reports each
// beside the published figures: the typing figures (each workload, each
// transport, each run), then interrupting a flood and roaming.
func Paper(ctx context.Context, o PaperOptions) error {
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	out := o.Stdout
	started := time.Now()
	runs := o.Runs
	switch {
	case runs <= 0 && o.Quick:
		runs = 1
	case runs <= 0:
		runs = paperRuns
	}
	keys := 0
	if o.Quick {
		keys = paperQuickKeys
	}
	for _, name := range o.Only {
		if !slices.Contains(PaperExperiments(), name) {
			return fmt.Errorf("bench: no experiment %q: want one of %s", name, strings.Join(PaperExperiments(), ", "))
		}
	}
	chosen := func(name string) bool { return len(o.Only) == 0 || slices.Contains(o.Only, name) }
	cfg := transportConfig{pacing: o.Pacing, gosh: o.Gosh}
	fmt.Fprintln(out, paperHeader(Machine(), runs, o.Seed))
	fmt.Fprintf(out, "gosh's pacing: %v; gosh runs as %s\n", o.Pacing, goshHow(cfg))
	if len(o.Only) > 0 {
		fmt.Fprintf(out, "only the experiments %s (of %s)\n", strings.Join(o.Only, ", "), strings.Join(PaperExperiments(), ", "))
	}
	var benches []*typingBench
	for _, name := range paperWorkloads() {
		w, err := workload.Lookup(name)
		if err != nil {
			return err
		}
		tb, why, err := newTypingBench(ctx, w, keys, progress)
		if err != nil {
			return err
		}
		if tb == nil {
			fmt.Fprintf(out, "the %s workload: skipped: %s\n", name, why)
			continue
		}
		defer tb.close()
		tb.cfg = cfg
		benches = append(benches, tb)
	}
	if len(benches) == 0 {
		return errors.New("bench: no workload can run here")
	}
	for i, e := range experiments {
		if o.Quick && !e.quick || !chosen(e.link) {
			continue
		}
		if err := paperExperiment(ctx, e, benches, experimentSeed(o.Seed, i), runs, o.Out, out); err != nil {
			return err
		}
	}
	if chosen(paperFloodName) {
		if err := paperFlood(ctx, benches[0], paperOthersWith, o.Seed, runs, out, progress); err != nil {
			return err
		}
	}
	if chosen(paperRoamName) {
		if err := paperRoam(ctx, benches[0], paperOthersWith, o.Seed, runs, out, progress); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\ntotal time %v\n", time.Since(started).Round(time.Second))
	return nil
}

// experimentSeed is the seed of the first run of the i-th experiment
// when the first experiment's is seed.
func experimentSeed(seed uint64, i int) uint64 { return seed + uint64(i)*100_000 }

// paperHeader is the report's first line: the machine, the runs, and the
// seed the experiments' seeds are derived from (each table names its
// own).
func paperHeader(machine string, runs int, seed uint64) string {
	return fmt.Sprintf("gosh bench paper: machine %s, %d run(s) of each experiment from seed %d (each table names its seeds)", machine, runs, seed)
}

// goshHow says how the gosh rows run.
func goshHow(c transportConfig) string {
	if c.gosh != "" && goshBinarySupported {
		return "the binary, as a user runs it (gosh server new; gosh connect --direct in a pseudo-terminal)"
	}
	return "its client and server loops in this process"
}

// paperExperiment types each workload over e's link, runs times, and
// reports a table and a figure per workload.
func paperExperiment(ctx context.Context, e experiment, benches []*typingBench, seed uint64, runs int, dir string, out io.Writer) error {
	link, err := linkem.LookupProfile(e.link)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n%s: %s\n", e.name, link.Description)
	if e.published != "" {
		fmt.Fprintf(out, "  %s: %s\n", paperSource, e.published)
	}
	for _, tb := range benches {
		results, err := tb.run(ctx, link, e.with, seed, runs)
		if err != nil {
			return err
		}
		title := fmt.Sprintf("\n%s workload, %d keystrokes, %s:", tb.w.Name, len(tb.w.Keys), seedsText(seed, runs))
		if err := writeResults(out, title, results); err != nil {
			return err
		}
		name := "paper-" + e.link
		if tb.w.Name != workload.Default() {
			name += "-" + tb.w.Name
		}
		svg, data := filepath.Join(dir, name+".svg"), filepath.Join(dir, name+".json")
		short := fmt.Sprintf("%s, %s workload, %d keystrokes × %d runs", e.name, tb.w.Name, len(tb.w.Keys), runs)
		rows := rowsOf(results)
		if err := writeFile(svg, func(w io.Writer) error { return report.WriteCDF(w, short, seriesOf(rows)) }); err != nil {
			return err
		}
		if err := writeFile(data, func(w io.Writer) error { return report.WriteJSON(w, short, rows) }); err != nil {
			return err
		}
		fmt.Fprintf(out, "  figure: %s (data: %s)\n", svg, data)
	}
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
// Run r of every transport uses seed+r.
func paperFlood(ctx context.Context, tb *typingBench, with []string, seed uint64, runs int, out, progress io.Writer) error {
	link, err := linkem.LookupProfile("cs244-3g")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nInterrupting a flood: %q for %v, then Ctrl-C, over %s (%s), %s\n",
		strings.TrimSpace(floodKeys[shellOf(&tb.w)]), floodRun, link.Name, link.Description, seedsText(seed, runs))
	fmt.Fprintf(out, "%-16s %-28s %s\n", "transport", "Ctrl-C to prompt", "bottleneck queue (max)")
	for _, name := range with {
		var prompt, queue []time.Duration
		var failed error
		for r := range runs {
			d, q, err := floodOnce(ctx, tb, name, link, seed+uint64(r), progress)
			if err != nil {
				failed = err
				break
			}
			prompt, queue = append(prompt, d), append(queue, q)
		}
		if failed != nil {
			fmt.Fprintf(out, "%-16s %s\n", name, failed)
			continue
		}
		fmt.Fprintf(out, "%-16s %-28s %s\n", name, timings(prompt, fmt.Sprintf("not within %v", promptWait)), queueTimings(queue))
	}
	return nil
}

// timings is the median of ds in seconds and, over several, their range;
// a negative one did not happen, and counts as never.
func timings(ds []time.Duration, never string) string {
	var ok []time.Duration
	for _, d := range ds {
		if d >= 0 {
			ok = append(ok, d)
		}
	}
	switch {
	case len(ok) == 0:
		return never
	case len(ds) == 1:
		return fmt.Sprintf("%.3f s", ok[0].Seconds())
	}
	r := extent(ok)
	s := fmt.Sprintf("%.3f s (%.3f–%.3f)", middle(ok).Seconds(), r[0].Seconds(), r[1].Seconds())
	if n := len(ds) - len(ok); n > 0 {
		s += fmt.Sprintf(", %d of %d runs %s", n, len(ds), never)
	}
	return s
}

// queueTimings is the median of qs in milliseconds and, over several,
// their range.
func queueTimings(qs []time.Duration) string {
	if len(qs) == 1 {
		return fmt.Sprintf("%.0f ms", qs[0].Seconds()*1000)
	}
	r := extent(qs)
	return fmt.Sprintf("%.0f ms (%.0f–%.0f)", middle(qs).Seconds()*1000, r[0].Seconds()*1000, r[1].Seconds()*1000)
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
// time from its Enter to its output is measured. Run r of every transport
// uses seed+r.
func paperRoam(ctx context.Context, tb *typingBench, with []string, seed uint64, runs int, out, progress io.Writer) error {
	link, err := linkem.LookupProfile("evdo")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nRoaming: the client moves to a new address, then runs a command, over %s (%s), %s\n",
		link.Name, link.Description, seedsText(seed, runs))
	fmt.Fprintf(out, "%-16s %s\n", "transport", "Enter to output after the move")
	for _, name := range with {
		var ds []time.Duration
		var failed error
		for r := range runs {
			d, err := roamOnce(ctx, tb, name, link, seed+uint64(r), progress)
			if err != nil {
				failed = err
				break
			}
			ds = append(ds, d)
		}
		if failed != nil {
			fmt.Fprintf(out, "%-16s %s\n", name, failed)
			continue
		}
		never := fmt.Sprintf("never (no output within %v: a TCP connection is bound to the old address)", roamWait)
		if name != TransportSSH {
			never = fmt.Sprintf("never (no output within %v)", roamWait)
		}
		fmt.Fprintf(out, "%-16s %s\n", name, timings(ds, never))
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
	start, err := tb.starter(name)
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

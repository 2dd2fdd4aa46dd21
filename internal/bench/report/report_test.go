package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

const ms1 = time.Millisecond

var testRows = []Row{
	{Name: "ssh", Keys: 4, Median: 500 * ms1, Mean: 510 * ms1, P95: 600 * ms1, P99: 650 * ms1, Instant: 0, Wrong: 0,
		BytesPerKey: 212, Latencies: []time.Duration{480 * ms1, 500 * ms1, 520 * ms1, 540 * ms1}},
	{Name: "gosh", Keys: 4, Median: 1500 * time.Microsecond, Mean: 2500 * ms1, P95: 9 * time.Second, P99: 10 * time.Second,
		Instant: 0.75, Wrong: 0.25, NeverShown: 1, Latencies: []time.Duration{200 * time.Microsecond, 1 * ms1, 2 * ms1, -1}},
	{Name: "mosh <stock> & co", Keys: 0},
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, "typing: shell over 250 ms", testRows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "typing: shell over 250 ms" {
		t.Errorf("first line %q, want the title", lines[0])
	}
	table := lines[1 : 2+len(testRows)]
	if !strings.HasPrefix(lines[2+len(testRows)], "times in ms") || !strings.Contains(lines[3+len(testRows)], "one run") {
		t.Errorf("the table is not followed by its units and the line saying one run has no spread:\n%s", b.String())
	}
	if len(table) != 1+len(testRows) {
		t.Fatalf("table has %d lines, want a heading and %d rows:\n%s", len(table), len(testRows), b.String())
	}
	for i, r := range testRows {
		if !strings.HasPrefix(table[1+i], r.Name+" ") {
			t.Errorf("line %d = %q, want row %q", 2+i, table[1+i], r.Name)
		}
	}
	for _, l := range table {
		if n, want := len([]rune(l)), len([]rune(table[0])); n != want {
			t.Errorf("line %q is %d characters wide, want %d (aligned)", l, n, want)
		}
	}
	for _, want := range []string{"500.0", "1.5", "75.0%", "25.0%", "212", " -"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// spreadRows are two transports measured over three runs: their medians
// are apart, their means' ranges overlap, and the second predicts nothing.
var spreadRows = []Row{
	{Name: "gosh", Keys: 10, Runs: 3, Median: ms1, Mean: 50 * ms1, P95: 500 * ms1, P99: 510 * ms1, Instant: 0.9, Wrong: 0.01,
		Spread: &Spread{Median: [2]time.Duration{ms1 / 2, 2 * ms1}, Mean: [2]time.Duration{40 * ms1, 60 * ms1},
			P95: [2]time.Duration{490 * ms1, 520 * ms1}, P99: [2]time.Duration{500 * ms1, 530 * ms1},
			Instant: [2]float64{0.85, 0.95}, Wrong: [2]float64{0, 0.02}, BytesPerKey: [2]float64{140, 150}}},
	{Name: "mosh-nopredict", Keys: 10, Runs: 3, Median: 500 * ms1, Mean: 55 * ms1, P95: 700 * ms1, P99: 710 * ms1, WrongNA: true,
		Spread: &Spread{Median: [2]time.Duration{499 * ms1, 503 * ms1}, Mean: [2]time.Duration{58 * ms1, 70 * ms1},
			P95: [2]time.Duration{690 * ms1, 720 * ms1}, P99: [2]time.Duration{700 * ms1, 730 * ms1},
			NeverShown: [2]int{0, 1}, BytesPerKey: [2]float64{240, 250}}},
}

// TestWriteTableSpread: over several runs, the table shows the medians,
// "n/a" for a transport without a wrong figure, a second table with the
// ranges, and which figures the runs do not tell apart.
func TestWriteTableSpread(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, "", spreadRows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"median of 3 runs",
		"range over runs",
		"0.5–2.0", "499.0–503.0", "85.0%–95.0%", "0.0%–2.0%", "0–1", "140–150",
		"within the spread of the runs (ranges overlap; not a measured difference): mean: gosh ≈ mosh-nopredict\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(out, "\n")
	if !strings.HasSuffix(lines[2], " n/a      0        -") && !strings.Contains(lines[2], "n/a") {
		t.Errorf("mosh-nopredict's row %q does not say n/a for wrong", lines[2])
	}
	if strings.Contains(out, "median: gosh") || strings.Contains(out, "wrong: ") {
		t.Errorf("the medians (apart) or the wrong figures (n/a for one) are named as overlapping:\n%s", out)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, "t", testRows); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Title string
		Rows  []struct {
			Name        string    `json:"name"`
			Keys        int       `json:"keystrokes"`
			MedianMS    float64   `json:"median_ms"`
			NeverShown  int       `json:"never_shown"`
			LatenciesMS []float64 `json:"latencies_ms"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	if got.Title != "t" || len(got.Rows) != len(testRows) {
		t.Fatalf("got title %q and %d rows, want %q and %d", got.Title, len(got.Rows), "t", len(testRows))
	}
	for i, r := range testRows {
		g := got.Rows[i]
		if g.Name != r.Name || g.Keys != r.Keys || g.NeverShown != r.NeverShown || len(g.LatenciesMS) != len(r.Latencies) {
			t.Errorf("row %d = %+v, want %+v", i, g, r)
		}
	}
	if g := got.Rows[1]; g.MedianMS != 1.5 || g.LatenciesMS[0] != 0.2 || g.LatenciesMS[3] != -1 {
		t.Errorf("gosh row = %+v, want median 1.5 ms, first latency 0.2 ms and the last -1", g)
	}
}

// svgDoc is what the tests read back from a chart.
type svgDoc struct {
	paths []string // the d attribute of each path, in order
	texts []string // the character data of each text element
}

// parseSVG reads an SVG chart with encoding/xml.
func parseSVG(t *testing.T, data []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	dec := xml.NewDecoder(bytes.NewReader(data))
	inText, root := false, ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG does not parse: %v\n%s", err, data)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Space + " " + tok.Name.Local
			}
			inText = tok.Name.Local == "text"
			if tok.Name.Local == "path" {
				for _, a := range tok.Attr {
					if a.Name.Local == "d" {
						doc.paths = append(doc.paths, a.Value)
					}
				}
			}
		case xml.CharData:
			if inText {
				doc.texts = append(doc.texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("root element %q, want svg in the SVG namespace", root)
	}
	return doc
}

// points parses a path of absolute M and L commands.
func points(t *testing.T, d string) [][2]float64 {
	t.Helper()
	var pts [][2]float64
	f := strings.Fields(d)
	if len(f)%2 != 0 {
		t.Fatalf("path %q: odd number of fields", d)
	}
	for i := 0; i < len(f); i += 2 {
		cmd := f[i][0]
		if cmd != 'M' && cmd != 'L' || (cmd == 'M') != (i == 0) {
			t.Fatalf("path %q: command %q at field %d", d, cmd, i)
		}
		x, err1 := strconv.ParseFloat(f[i][1:], 64)
		y, err2 := strconv.ParseFloat(f[i+1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("path %q: bad point %q %q", d, f[i], f[i+1])
		}
		pts = append(pts, [2]float64{x, y})
	}
	return pts
}

func TestWriteCDF(t *testing.T) {
	var series []Series
	for _, r := range testRows {
		series = append(series, r.Series())
	}
	series = append(series, Series{Name: "slow", Latencies: []time.Duration{20 * time.Second, 5 * time.Second}})
	var b bytes.Buffer
	if err := WriteCDF(&b, "keystroke response <CDF> & more", series); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b.Bytes())
	if len(doc.paths) != len(series) {
		t.Fatalf("%d paths, want one per series (%d)", len(doc.paths), len(series))
	}
	wantEnd := []float64{0, 0.75, 0, 0.5} // the fraction each curve ends at
	for i, d := range doc.paths {
		pts := points(t, d)
		for j, p := range pts {
			if p[0] < plotL || p[0] > plotR || p[1] < plotT || p[1] > plotB {
				t.Errorf("%s: point %v outside the plot area", series[i].Name, p)
			}
			if j > 0 && (p[0] < pts[j-1][0] || p[1] > pts[j-1][1]) {
				t.Errorf("%s: point %v after %v goes left or down", series[i].Name, p, pts[j-1])
			}
		}
		first, last := pts[0], pts[len(pts)-1]
		if first[0] != plotL || last[0] != plotR {
			t.Errorf("%s: curve spans x %v to %v, want the plot's width", series[i].Name, first[0], last[0])
		}
		if i == 0 {
			wantEnd[0] = 1
		}
		if f := (plotB - last[1]) / (plotB - plotT); math.Abs(f-wantEnd[i]) > 1e-3 {
			t.Errorf("%s: curve ends at fraction %.3f, want %.3f", series[i].Name, f, wantEnd[i])
		}
	}
	// 200 µs is clamped to 1 ms, so gosh's curve starts at 2/4 (200 µs and 1 ms).
	if f := (plotB - points(t, doc.paths[1])[0][1]) / (plotB - plotT); f != 0.5 {
		t.Errorf("gosh curve starts at fraction %v, want 0.5", f)
	}
	all := strings.Join(doc.texts, "\n")
	for _, want := range []string{"keystroke response <CDF> & more", "ssh", "gosh (1 never shown)", "mosh <stock> & co", "1 ms", "10 s", "0.0", "1.0"} {
		if !strings.Contains(all, want) {
			t.Errorf("the chart's text lacks %q:\n%s", want, all)
		}
	}
	for _, bad := range []string{"<style", "<script", "href=", "@import"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("the SVG contains %q: it must stand alone", bad)
		}
	}
}

func TestWriteCDFNoSeries(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCDF(&b, "", nil); err != nil {
		t.Fatal(err)
	}
	if doc := parseSVG(t, b.Bytes()); len(doc.paths) != 0 {
		t.Errorf("%d paths for no series, want none", len(doc.paths))
	}
}

// TestWriteJSONSpread: a transport without a wrong figure has null for
// it, and the ranges over the runs are there.
func TestWriteJSONSpread(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, "t", spreadRows); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Rows []struct {
			Name  string   `json:"name"`
			Wrong *float64 `json:"wrong_fraction"`
			Runs  int      `json:"runs"`
			Range *struct {
				MedianMS [2]float64  `json:"median_ms"`
				Wrong    *[2]float64 `json:"wrong_fraction"`
			} `json:"range"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	g, m := got.Rows[0], got.Rows[1]
	if g.Wrong == nil || *g.Wrong != 0.01 || g.Runs != 3 || g.Range == nil || g.Range.MedianMS != [2]float64{0.5, 2} || g.Range.Wrong == nil {
		t.Errorf("gosh = %+v, want wrong 0.01, 3 runs and the ranges", g)
	}
	if m.Wrong != nil || m.Range == nil || m.Range.Wrong != nil {
		t.Errorf("mosh-nopredict = %+v, want wrong null, in the range too", m)
	}
}

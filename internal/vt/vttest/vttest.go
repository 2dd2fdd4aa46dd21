// Package vttest has helpers for tests of terminal screens: readable
// renderings of a [vt.Framebuffer] and a comparison that explains the
// first differences between two screens.
package vttest

import (
	"fmt"
	"strings"

	"github.com/gosh-term/gosh/internal/vt"
)

// Rows returns the text of every row, trailing blanks removed.
func Rows(fb *vt.Framebuffer) []string {
	rows := make([]string, fb.Height())
	for y := range rows {
		rows[y] = fb.Row(y).Text()
	}
	return rows
}

// Render draws fb as text for failure messages: one line per row between
// '|' marks (a '+' after the row marks a wrapped row) and the cursor.
func Render(fb *vt.Framebuffer) string {
	var b strings.Builder
	x, y := fb.Cursor()
	for yy := range fb.Height() {
		r := fb.Row(yy)
		b.WriteByte('|')
		for xx := range r.Len() {
			c := r.Cell(xx)
			if xx == x && yy == y {
				b.WriteString("\x1b[7m") // harmless in logs, shows the cursor in a terminal
			}
			b.Write(c.AppendText(nil))
			if xx == x && yy == y {
				b.WriteString("\x1b[27m")
			}
		}
		b.WriteByte('|')
		if r.Wrapped() {
			b.WriteByte('+')
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "cursor (%d,%d) visible=%v", x, y, fb.CursorVisible())
	return b.String()
}

// Diff compares what got shows with what want shows, as a terminal with
// capabilities caps would see them (renditions through
// [vt.DisplayCaps.Shown], hyperlinks by target, the cursor style only with
// [vt.CapCursorStyle]). It returns "" if they match, else a description of
// up to five differences. Bell counters are not compared (a differ sends
// at most a few bells per frame).
func Diff(want, got *vt.Framebuffer, caps vt.DisplayCaps) string {
	var out []string
	add := func(format string, args ...any) {
		if len(out) < 5 {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	ww, wh := want.Size()
	gw, gh := got.Size()
	if ww != gw || wh != gh {
		return fmt.Sprintf("size %dx%d, want %dx%d", gw, gh, ww, wh)
	}
	wx, wy := want.Cursor()
	gx, gy := got.Cursor()
	if wx != gx || wy != gy {
		add("cursor (%d,%d), want (%d,%d)", gx, gy, wx, wy)
	}
	if want.CursorVisible() != got.CursorVisible() {
		add("cursor visible %v, want %v", got.CursorVisible(), want.CursorVisible())
	}
	if caps.Ext&vt.CapCursorStyle != 0 && want.CursorStyle() != got.CursorStyle() {
		add("cursor style %d, want %d", got.CursorStyle(), want.CursorStyle())
	}
	if a, b := caps.Shown(got.Rendition()), caps.Shown(want.Rendition()); a != b {
		add("rendition %+v, want %+v", a, b)
	}
	if caps.Ext&vt.CapHyperlinks != 0 && got.Link(got.Rendition().Link) != want.Link(want.Rendition().Link) {
		add("current hyperlink %q, want %q", got.Link(got.Rendition().Link), want.Link(want.Rendition().Link))
	}
	diffModes(want.Modes(), got.Modes(), add)
	if caps.Titles && want.TitleSet() && (want.Title() != got.Title() || want.IconName() != got.IconName()) {
		add("title %q icon %q, want %q %q", got.Title(), got.IconName(), want.Title(), want.IconName())
	}
	wc, gc := want.Clipboard(), got.Clipboard()
	if wc.Data != gc.Data {
		add("clipboard %q, want %q", trim(gc.Data), trim(wc.Data))
	}
	for y := range wh {
		diffRow(want, got, y, caps, add)
	}
	return strings.Join(out, "\n")
}

func diffModes(w, g vt.Modes, add func(string, ...any)) {
	if w.ReverseVideo != g.ReverseVideo || w.BracketedPaste != g.BracketedPaste ||
		w.Mouse != g.Mouse || w.MouseEncoding != g.MouseEncoding || w.FocusEvents != g.FocusEvents {
		add("modes %+v, want %+v", g, w)
	}
}

func diffRow(want, got *vt.Framebuffer, y int, caps vt.DisplayCaps, add func(string, ...any)) {
	wr, gr := want.Row(y), got.Row(y)
	if wr.Wrapped() != gr.Wrapped() {
		add("row %d wrapped=%v, want %v", y, gr.Wrapped(), wr.Wrapped())
	}
	for x := range wr.Len() {
		wc, gc := wr.Cell(x), gr.Cell(x)
		wt, gt := string(wc.AppendText(nil)), string(gc.AppendText(nil))
		switch {
		case wt != gt || wc.Width() != gc.Width():
			add("row %d col %d: %q (width %d), want %q (width %d)\n got: %q\nwant: %q",
				y, x, gt, gc.Width(), wt, wc.Width(), gr.Text(), wr.Text())
			return
		case caps.Shown(wc.Rend) != caps.Shown(gc.Rend):
			add("row %d col %d %q: rendition %+v, want %+v", y, x, wt, caps.Shown(gc.Rend), caps.Shown(wc.Rend))
			return
		case caps.Ext&vt.CapHyperlinks != 0 && want.Link(wc.Rend.Link) != got.Link(gc.Rend.Link):
			add("row %d col %d: link %q, want %q", y, x, got.Link(gc.Rend.Link), want.Link(wc.Rend.Link))
			return
		}
	}
}

func trim(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

package vt

import (
	"bytes"
	"unicode/utf8"
)

// OSCDispatch implements [Handler]: titles (0, 1, 2), hyperlinks (8) and
// the clipboard (52). Other commands are ignored.
func (t *terminal) OSCDispatch(data []byte, truncated bool) {
	fb := t.fb
	num, rest, ok := bytes.Cut(data, []byte{';'})
	if !ok {
		return
	}
	switch string(num) {
	case "0", "": // Mosh treats a leading ';' as 0
		title := truncate(rest, MaxTitle)
		fb.SetTitle(title, title)
	case "1":
		fb.icon, fb.titleSet = truncate(rest, MaxTitle), true
	case "2":
		fb.title, fb.titleSet = truncate(rest, MaxTitle), true
	case "8":
		if !truncated {
			fb.setLink(rest)
		}
	case "52":
		sel, d, ok := bytes.Cut(rest, []byte{';'})
		if ok && !truncated {
			fb.clip = Clipboard{Selection: string(sel), Data: string(d)}
		}
	}
}

// truncate returns at most n bytes of b, cut at a character boundary.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n])
}

// setLink starts (params;URI) or ends (empty URI) a hyperlink.
func (fb *Framebuffer) setLink(spec []byte) {
	_, uri, ok := bytes.Cut(spec, []byte{';'})
	if !ok || len(uri) == 0 || len(spec) > MaxLinkLen {
		fb.rend.Link = 0
		return
	}
	fb.rend.Link = fb.linkID(string(spec))
}

// linkID returns the id of link, adding it to the table if needed.
func (fb *Framebuffer) linkID(link string) uint16 {
	for i, l := range fb.links {
		if l == link {
			return uint16(i + 1)
		}
	}
	if len(fb.links) >= MaxLinks {
		// Compaction costs a pass over the screen; allow it only after as
		// many cells were written since the last one, so hostile streams
		// of fresh links stay linear.
		if fb.writes-fb.compacted < uint64(fb.w*fb.h) {
			return 0
		}
		fb.compacted = fb.writes
		fb.compactLinks()
		if len(fb.links) >= MaxLinks {
			return 0
		}
	}
	fb.links = append(fb.links, link)
	return uint16(len(fb.links))
}

// compactLinks drops the hyperlinks no cell, saved cursor or the current
// rendition uses, renumbering the rest.
func (fb *Framebuffer) compactLinks() {
	remap := make([]uint16, len(fb.links)+1)
	used := func(id uint16) {
		if id != 0 {
			remap[id] = 1
		}
	}
	used(fb.rend.Link)
	used(fb.saved.rend.Link)
	used(fb.altSaved.rend.Link)
	for _, rows := range [][]*Row{fb.rows, fb.mainRows} {
		for _, r := range rows {
			for _, c := range r.cells {
				used(c.Rend.Link)
			}
		}
	}
	var links []string
	for id := 1; id < len(remap); id++ {
		if remap[id] != 0 {
			links = append(links, fb.links[id-1])
			remap[id] = uint16(len(links))
		}
	}
	fb.links = links
	fb.relink(remap)
}

// relink rewrites every hyperlink id through remap.
func (fb *Framebuffer) relink(remap []uint16) {
	fb.rend.Link = remap[fb.rend.Link]
	fb.saved.rend.Link = remap[fb.saved.rend.Link]
	fb.altSaved.rend.Link = remap[fb.altSaved.rend.Link]
	for _, rows := range [][]*Row{fb.rows, fb.mainRows} {
		for y, r := range rows {
			for x, c := range r.cells {
				if c.Rend.Link != remap[c.Rend.Link] {
					if r.owner != fb.owner {
						r = r.clone(fb.owner)
						rows[y] = r
					}
					r.cells[x].Rend.Link = remap[c.Rend.Link]
				}
			}
		}
	}
}

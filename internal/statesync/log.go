package statesync

// entryKind says what an entryLog needs to know of its entries (channel
// messages, scrollback lines): the methods of a zero-size type, so that
// entries may be another package's type.
type entryKind[E any] interface {
	size(e *E) int // the bytes it carries (what the backlog limits count)
	cloned(e E) E  // a copy that shares no memory with the original
	overhead() int // about what holding one costs beyond size, for Footprint
}

// entryLog is an append-only log with absolute positions, as a state
// carries it (channel messages, section 12.2; scrollback lines, section
// 12.3): it holds the entries at positions base to total-1 (earlier ones
// were trimmed). Clones share the entries, which are never modified.
type entryLog[E any, K entryKind[E]] struct {
	base, total uint64
	ents        []E // ents[i] is at position base+i
	bytes       int // sum of the held entries' sizes
}

// push appends e, copying what it points to.
func (l *entryLog[E, K]) push(e E) {
	var k K
	e = k.cloned(e)
	l.ents = append(l.ents, e)
	l.bytes += k.size(&e)
	l.total++
}

// clone returns a copy of l that shares its entries; either copy appends
// beyond its own length without disturbing the other.
func (l *entryLog[E, K]) clone() entryLog[E, K] {
	c := *l
	c.ents = l.ents[:len(l.ents):len(l.ents)]
	return c
}

// since returns the held entries from absolute position pos on.
func (l *entryLog[E, K]) since(pos uint64) []E {
	if pos >= l.total {
		return nil
	}
	return append([]E(nil), l.ents[max(pos, l.base)-l.base:]...)
}

// trim drops the held entries below absolute position pos.
func (l *entryLog[E, K]) trim(pos uint64) {
	var k K
	for l.base < min(pos, l.total) {
		l.bytes -= k.size(&l.ents[0])
		l.ents = l.ents[1:]
		l.base++
	}
	if len(l.ents) == 0 {
		l.ents = nil
	}
}

// reset empties l and makes pos the position of its next entry.
func (l *entryLog[E, K]) reset(pos uint64) { *l = entryLog[E, K]{base: pos, total: pos} }

// appendDiff appends, with enc, an instruction for each held entry from
// absolute position from on.
func (l *entryLog[E, K]) appendDiff(b []byte, from uint64, enc func([]byte, uint64, *E) []byte) []byte {
	for p := max(from, l.base); p < l.total; p++ {
		b = enc(b, p, &l.ents[p-l.base])
	}
	return b
}

// footprint is about how many bytes the held entries take.
func (l *entryLog[E, K]) footprint() int {
	var k K
	return l.bytes + k.overhead()*len(l.ents)
}

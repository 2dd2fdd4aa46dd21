package statesync

import (
	"errors"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/gosh-term/gosh/internal/vt"
)

// Scrollback lines on the wire (spec section 12.3): the server's state
// carries the lines of its [vt.History] its client has not yet taken in
// an append-only log, sent in diffs as an Instruction extension that stock
// Mosh never receives.

// Limits of the scrollback a state carries.
const (
	// MaxScrollLine is the most Text one received line may carry.
	MaxScrollLine = 64 << 10
	// MaxScrollBacklog is the most of received lines a state holds
	// (those not yet trimmed or subtracted): their Text bytes, and
	// ScrollLineCost bytes for each line itself, so that empty lines are
	// bounded too.
	MaxScrollBacklog = 4 << 20
	// ScrollLineCost is what a held line counts towards
	// MaxScrollBacklog beyond its Text: about what holding it costs.
	ScrollLineCost = scrollOverhead
	// scrollOverhead is about what a held line costs beyond its Text.
	scrollOverhead = 64
)

// ErrScrollBacklog is returned by Apply for a diff whose lines exceed
// MaxScrollLine or MaxScrollBacklog.
var ErrScrollBacklog = errors.New("statesync: scrollback backlog too large")

// scrollKind makes [vt.ScrollLine] a log entry.
type scrollKind struct{}

func (scrollKind) size(l *vt.ScrollLine) int            { return len(l.Text) }
func (scrollKind) cloned(l vt.ScrollLine) vt.ScrollLine { l.Text = cloneData(l.Text); return l }
func (scrollKind) overhead() int                        { return scrollOverhead }

// scrollLog is the log of scrollback lines of a host state.
type scrollLog = entryLog[vt.ScrollLine, scrollKind]

// appendScroll appends a scrollback instruction for l at log position
// index.
func appendScroll(b []byte, index uint64, l *vt.ScrollLine) []byte {
	var body []byte
	body = protowire.AppendTag(body, fieldScrollIndex, protowire.VarintType)
	body = protowire.AppendVarint(body, index)
	body = protowire.AppendTag(body, fieldScrollLine, protowire.VarintType)
	body = protowire.AppendVarint(body, l.Line)
	if len(l.Text) > 0 {
		body = appendBytesField(body, fieldScrollText, l.Text)
	}
	body = protowire.AppendTag(body, fieldScrollWidth, protowire.VarintType)
	body = protowire.AppendVarint(body, uint64(l.Width))
	if l.Wrapped {
		body = protowire.AppendTag(body, fieldScrollWrapped, protowire.VarintType)
		body = protowire.AppendVarint(body, 1)
	}
	return appendInstruction(b, extScroll, body)
}

// parseScroll decodes a scrollback extension body (the last occurrence of
// each field wins). l.Text aliases body.
func parseScroll(body []byte) (index uint64, l vt.ScrollLine, err error) {
	var width, wrapped uint64
	err = forEachField(body, func(f field) error {
		if f.typ == protowire.BytesType && f.num == fieldScrollText {
			l.Text = f.bytes
			return nil
		}
		if f.typ != protowire.VarintType {
			return nil
		}
		switch f.num {
		case fieldScrollIndex:
			index = f.varint
		case fieldScrollLine:
			l.Line = f.varint
		case fieldScrollWidth:
			width = f.varint
		case fieldScrollWrapped:
			wrapped = f.varint
		}
		return nil
	})
	if err != nil {
		return 0, vt.ScrollLine{}, err
	}
	if width > vt.MaxCols || wrapped > 1 || l.Line == math.MaxUint64 {
		return 0, vt.ScrollLine{}, ErrMalformed
	}
	l.Width, l.Wrapped = int(width), wrapped == 1
	return index, l, nil
}

// applyScroll applies a received scrollback extension body to l: a line
// already held is skipped, the next one appended, and a gap or too much
// text rejects the diff.
func applyScroll(l *scrollLog, body []byte) error {
	index, line, err := parseScroll(body)
	if err != nil {
		return err
	}
	switch {
	case len(line.Text) > MaxScrollLine:
		return ErrScrollBacklog
	case index < l.total:
		return nil
	case index > l.total:
		return ErrMalformed // a gap: the diff is not from our base
	case l.footprint()+len(line.Text)+scrollOverhead > MaxScrollBacklog:
		return ErrScrollBacklog
	}
	l.push(line)
	return nil
}
